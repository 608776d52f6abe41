// Plans for pictures and browser tests of the graph: a realistic 26-card plan (a release of
// this tool: storage, sync, agents, board, packaging; long and short titles, owners, a blocked
// item, a reservation, sub-items) and a generated plan of any size (chains of work inside
// epics, cross-links, some loose cards). Each is a few `tasks batch` documents: one of adds
// by the lead, then one per agent (claims, done, block), so a plan costs a handful of
// processes whatever its size. Used by scripts/screenshots.mjs (its `plan` list) and test/browser/graph.test.ts.

/** The 26-card plan: `{adds, moves}`; `adds` is one batch (names $a…), `moves(ids)` gives each actor's batch. */
export function realisticPlan() {
  const adds = [
    ['spec', 'Write the storage format specification (refs, trees, task files)', [], {priority: 1, tags: ['backend']}],
    ['cas', 'Implement compare-and-swap claims on refs/tasks/<list>', ['spec'], {priority: 1, tags: ['backend']}],
    ['lease', 'Lease renewal through heartbeats, with a sweep that frees expired claims', ['cas'], {tags: ['backend']}],
    ['remote', 'Sync through a shared remote: fetch, merge, push with retries', ['cas'], {priority: 1, tags: ['backend']}],
    ['merge', 'Merge driver for task files: a field-wise three-way merge of the frontmatter and an append-only merge of comments', ['remote'], {priority: 1, tags: ['backend']}],
    ['guard', 'Server-side guard: a pre-receive hook that verifies pushed commits', ['merge'], {tags: ['server']}],
    ['guarddoc', 'Document the guard for people who host the remote', ['guard'], {priority: 3, tags: ['docs']}],
    ['cli', 'CLI skeleton', [], {tags: ['cli']}],
    ['json', 'Schema-checked --json output for every command', ['cli'], {tags: ['cli']}],
    ['compact', 'Compact text output for agents', ['json'], {tags: ['agents']}],
    ['mcp', 'MCP server exposing the claim loop as tools', ['compact', 'cas'], {priority: 1, tags: ['agents']}],
    ['toolsets', 'Toolsets, so that an agent loads only the core tools (about 3,500 tokens)', ['mcp'], {tags: ['agents']}],
    ['board', 'Web board: a kanban of ready, waiting, in progress, blocked and done', ['json'], {priority: 1, tags: ['ui']}],
    ['sse', 'Live updates over Server-Sent Events', ['board'], {tags: ['ui']}],
    ['graph', 'Dependency graph view with zoom, pan and the critical path highlighted', ['board'], {tags: ['ui']}],
    ['dnd', 'Drag and drop between columns, performing the same transitions as the buttons', ['board', 'sse'], {tags: ['ui']}],
    ['phone', 'Phone layout', ['board'], {priority: 3, tags: ['ui']}],
    ['bench', 'Benchmark 10,000 tasks on a 2-core machine', ['remote'], {tags: ['perf']}],
    ['scaledoc', 'Write docs/scale.md with the measured figures', ['bench'], {priority: 3, tags: ['docs']}],
    ['pkg', 'Lean npm package: one bundle, no source maps, a LICENSE', ['cli'], {tags: ['release']}],
    ['pkgtest', 'Packaging test: npm pack, install into a temporary prefix, run a command from another directory', ['pkg'], {tags: ['release']}],
    ['readme', 'A short README: the agent loop and the human loop', ['toolsets', 'pkgtest'], {priority: 2, tags: ['docs']}],
    ['release', 'Release 0.1.0', ['readme', 'guarddoc', 'scaledoc', 'dnd', 'graph', 'lease'], {priority: 1, tags: ['release']}],
    ['flaky', 'Fix the flaky push test on slow CI runners', [], {priority: 0, tags: ['ci']}],
    ['completion', 'Shell completion for statuses and open ids', [], {priority: 3, tags: ['cli']}],
    ['empty', 'Empty states with a next step', [], {parent: 'board', tags: ['ui']}],
  ]
  return {
    adds: adds.map(([name, title, deps, o]) => ({op: 'add', name, title, priority: o.priority ?? 2, tags: o.tags ?? [], ...(deps.length ? {depends_on: deps.map((d) => `$${d}`)} : {}), ...(o.parent ? {parent: `$${o.parent}`} : {})})),
    moves: (id) => [
      ['agent-1', [{op: 'claim', id: id.spec}, {op: 'done', id: id.spec}, {op: 'claim', id: id.cas}]],
      ['agent-2', [{op: 'claim', id: id.cli}, {op: 'done', id: id.cli}, {op: 'claim', id: id.json}, {op: 'done', id: id.json}, {op: 'claim', id: id.empty}]],
      ['agent-3', [{op: 'claim', id: id.flaky}, {op: 'block', id: id.flaky, reason: 'needs a second remote to reproduce'}]],
      ['agent-4', [{op: 'claim', id: id.pkg}]],
      ['lead', [{op: 'assign', id: id.completion, assignee: 'agent-3'}]],
    ],
  }
}

const WORDS = ['parser', 'index', 'cache', 'claims', 'leases', 'remote', 'merge', 'guard', 'board', 'graph', 'search', 'export', 'import', 'schema', 'agent', 'session', 'inbox', 'checks', 'hooks', 'docs', 'bench', 'package', 'release', 'layout', 'compact output']
const VERBS = ['Implement', 'Test', 'Document', 'Speed up', 'Refactor', 'Measure', 'Fix', 'Design', 'Review']

/** A generated plan of `size` cards: epics of chains, links across, one in ten loose; a few claimed, done and blocked. */
export function generatedPlan(size) {
  let seed = 12345
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const adds = []
  for (let i = 0; i < size; i++) {
    const w = WORDS[Math.floor(rnd() * WORDS.length)]
    const long = rnd() < 0.3 ? ` so that a list of ${Math.floor(rnd() * 9000) + 1000} items stays fast and every edge case is covered by a test` : ''
    const deps = []
    if (i % 10 !== 9) {
      // Within the epic (blocks of 15): the one before, sometimes another; now and then an earlier epic.
      const epic = Math.floor(i / 15) * 15
      if (i > epic && rnd() < 0.8) deps.push(`n${i - 1 - Math.floor(rnd() * Math.min(3, i - epic))}`)
      if (i > epic + 3 && rnd() < 0.3) deps.push(`n${epic + Math.floor(rnd() * (i - epic - 1))}`)
      if (epic > 0 && rnd() < 0.08) deps.push(`n${Math.floor(rnd() * epic)}`)
    }
    const uniq = [...new Set(deps)].filter((d) => Number(d.slice(1)) % 10 !== 9)
    adds.push({op: 'add', name: `n${i}`, title: `${VERBS[Math.floor(rnd() * VERBS.length)]} the ${w} (${i + 1})${long}`, priority: Math.floor(rnd() * 4), ...(uniq.length ? {depends_on: uniq.map((d) => `$${d}`)} : {})})
  }
  return {
    adds,
    moves: (id) => [
      ['agent-1', [{op: 'claim', id: id.n0}, {op: 'done', id: id.n0}, {op: 'claim', id: id.n15}]],
      ['agent-2', [{op: 'claim', id: id.n30}, {op: 'claim', id: id.n9}, {op: 'block', id: id.n9, reason: 'waiting for a key'}]],
    ],
  }
}

/**
 * Writes `plan` into the list of the repository `tasks` works in. `tasks(args, actor, input)` runs the
 * CLI with --json and returns the parsed output. Returns the ids by name.
 */
export async function writePlan(plan, tasks) {
  const out = await tasks(['batch', '-'], 'lead', JSON.stringify(plan.adds))
  const id = {}
  for (const r of out.results) id[r.name] = r.id
  for (const [actor, ops] of plan.moves(id)) await tasks(['batch', '-'], actor, JSON.stringify(ops))
  return id
}
