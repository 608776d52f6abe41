/**
 * The operations over the list's history and its other shapes: log,
 * events, restore, undo, search, graph, export, import, branch and prime.
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import {MCP_PAGE} from './reads'
import {operation} from './spec'
import {at, lease, taskId} from './common'

export const log = operation({
  name: 'log',
  toolset: 'history',
  summary: 'The audit log: who did what, when, and why, from the commits of the tasks ref.',
  description:
    'Each event shows what its commit recorded: a forced override and its reason, a takeover and from whom, a renewed lease, the epoch, a block note, a cancel reason, an assignee. With ID, the history of that task, also of one that was removed (see `tasks restore`). Times are local with their offset (JSON: exact ISO-8601). On a terminal the output goes through $TASKS_PAGER, $PAGER or `less -FRX`.',
  params: {
    id: p.id('task id or unique prefix (also of a removed task)', {positional: true}),
    limit: p.integer('Show at most this many events.', {char: 'n', min: 1}),
    actor: p.strings('Only events by this actor (@me: you); repeatable or comma-separated.'),
    since: p.string('Only events at or after this date, time or duration ago (2026-11-30, "2026-11-30 14:00", 2h, 3d).'),
    until: p.string('Only events at or before this date, time or duration ago.'),
    op: p.strings('Only these ops (claim, done, rm, …); repeatable or comma-separated.'),
    noPager: p.boolean('Print directly, never through a pager.', {only: ['cli']}),
  },
  writes: false,
  result: 'log',
  compact: (e, r) => e.compact.compactLog(r),
  examples: ['<%= config.bin %> log', '<%= config.bin %> log tsk-k3v9 --json', '<%= config.bin %> log --since 2d --op claim,done --actor @me'],
  run: (e, s, {noPager: _, ...a}) => e.history.log(s, a),
})

export const events = operation({
  name: 'events',
  toolset: 'history',
  summary: 'One event per commit of the tasks ref (op, items and their revisions, actor, time, commit); --follow keeps printing new ones.',
  description:
    "Derived from the commits' trailers, oldest first. With --json, JSON Lines: one event object per line (over MCP: the newest --limit events and their total). --follow watches the ref (online: fetches the remote's list every --interval seconds), survives a non-fast-forward such as a sync merge, and ends cleanly on Ctrl-C. An event is a hint: re-read the item it names.",
  params: {
    since: p.string('Only events after this revision of the ref (a commit id).'),
    limit: p.integer('Only the newest N (over MCP: default 200); not with --follow.', {char: 'n', min: 1}),
    follow: p.boolean('Keep watching and print new events as they land.', {char: 'f', only: ['cli']}),
    interval: p.string('Seconds between looks at the ref with --follow (default 1; online, 5 between fetches).', {only: ['cli']}),
    at: at.onlyOn(['cli', 'mcp']),
  },
  writes: false,
  result: 'events',
  examples: ['<%= config.bin %> events --json', '<%= config.bin %> events --follow --json --since $(git rev-parse refs/tasks/main)'],
  check: (a) => {
    if (a.at !== undefined && a.follow) throw new UsageError('--at reads the events up to a point in the past: not with --follow', {}, 'usage')
  },
  run: (e, s, {at: when, ...a}) =>
    e.timeTravel.readAt(s, when, async (s) => {
      const list: Array<Parameters<Parameters<typeof e.hooks.streamEvents>[1]['emit']>[0]> = []
      await e.hooks.streamEvents(s, {since: a.since, follow: false, stopped: new Promise<void>(() => {}), emit: (ev) => list.push(ev)})
      const limit = a.limit ?? 200
      return {events: list.slice(-limit), total: list.length}
    }),
})

export const restore = operation({
  name: 'restore',
  toolset: 'history',
  summary: 'Bring back a removed task, with its sub-items and comments, as a new commit.',
  description:
    'The task comes back as it was just before `tasks rm` removed it (found through the history: `tasks log ID` shows it). Refused when the id is in the list again, or when its parent is gone (restore the parent first) or finished. Dependencies on items that are gone are dropped, and the output says which.',
  params: {id: p.id('id or unique prefix of the removed task', {positional: true}).need()},
  writes: true,
  result: 'restore',
  examples: ['<%= config.bin %> restore tsk-k3v9', '<%= config.bin %> log tsk-k3v9   # what happened to it'],
  run: (e, s, a) => e.history.restore(s, a),
})

export const undo = operation({
  name: 'undo',
  toolset: 'history',
  summary: 'Take back your last change to the list, as a new commit.',
  description:
    'Reverts the newest commit whose actor is you (Tasks-Undo: <commit> in the new one). Refused (exit 4, undo_conflict) when a later commit, by anyone, touched the same tasks. Undoing an undo redoes.',
  params: {},
  writes: true,
  result: 'undo',
  examples: ['<%= config.bin %> undo', '<%= config.bin %> undo --json'],
  run: (e, s) => e.undo(s),
})

export const search = operation({
  name: 'search',
  toolset: 'history',
  summary: 'Search titles, descriptions, comments, tags, and the text and evidence of checks; ranked, with snippets. Coordination sessions that match are listed too.',
  description:
    "Every word must match (prefixes and small typos count); when no task has them all, tasks with any of them are shown. An exact title match comes first, then by relevance (title words weigh most). Each hit says where it matched (fields: title, body, comments, tags, checks, evidence). One page at a time: next_cursor, passed as --cursor with the same query and filters, gives the next. The index is cached under the git directory and updated from the tasks that changed.",
  params: {
    query: p.text('words to look for', {positional: true}).need(),
    status: p.strings('Only these states (ready, waiting, …, done, cancelled; open, all). Default: all.', {char: 's'}),
    tags: p.strings('Only items with this tag.', {char: 't', aliases: ['tag']}),
    owner: p.string('Only items claimed by this actor (@me: you).'),
    session: p.string('Only the tasks of this coordination session (ses-… id or prefix).'),
    limit: p.integer("At most N results (default 20; over MCP 50), never more than the list's list_limit. 0: every hit on the command line; over MCP, list_limit hits.", {char: 'n', min: 0}),
    cursor: p.string('Continue after a previous page: pass its next_cursor, with the same query and filters (another query is refused, exit 2).'),
    at,
  },
  writes: false,
  result: 'search',
  compact: (e, r) => e.compact.compactSearch(r),
  examples: ['<%= config.bin %> search "claim race"', '<%= config.bin %> search flaky --status open --json', '<%= config.bin %> search flaky --json --cursor CURSOR', '<%= config.bin %> search lease --tags backend', '<%= config.bin %> search lease --format compact'],
  // Coordination sessions are searched too (their titles, descriptions, strategies and checkpoints): the few best, beside the tasks.
  run: (e, s, {at: when, ...a}, call) =>
    e.timeTravel.readAt(s, when, async (s) => {
      const tasks = await e.search.search(s, {...a, unbounded: call.surface === 'cli', defaultLimit: call.surface === 'mcp' ? MCP_PAGE : undefined})
      const sessions = a.session === undefined && tasks.offset === 0 ? (await e.workSessions.search(s, {query: a.query, limit: 5})).results : []
      return {...tasks, sessions}
    }),
})

export const GRAPH_FORMATS = ['svg', 'png', 'mermaid', 'dot', 'json'] as const

export const graph = operation({
  name: 'graph',
  toolset: 'history',
  summary: 'Draw the dependency graph: SVG, PNG, Mermaid or Graphviz DOT.',
  description:
    'The open items (or with IDs, what they reach through their dependencies and sub-items), coloured by state. The critical path (the longest chain of unfinished work) is red; items ready now are outlined green; sub-items hang from their parent by dashed lines. The format comes from --format, else from the --out file name (.svg, .png, .dot/.gv, .mmd/.mermaid/.md; another name needs --format), else svg; png is drawn into --out only (over MCP: json, the graph itself: nodes, edges, critical_path, frontier; mermaid and dot answer {format, text}).',
  params: {
    ids: p.strings('task ids or unique prefixes (several allowed)', {positional: true}),
    all: p.boolean('Include done and cancelled items.', {char: 'a'}),
    format: p.choice(GRAPH_FORMATS, 'svg, png (with --out), mermaid, dot, or json (the graph itself; default: from --out, else svg; over MCP json).', {char: 'f'}),
    out: p.string('Write the drawing to FILE instead of stdout.', {char: 'o', helpValue: 'FILE', only: ['cli']}),
    at,
  },
  writes: false,
  result: 'graph',
  examples: ['<%= config.bin %> graph --out graph.svg', '<%= config.bin %> graph --all --out graph.png', '<%= config.bin %> graph tsk-k3v9 --format mermaid', '<%= config.bin %> graph --all --format dot | dot -Tpng > graph.png'],
  run: async (e, s, a) => {
    const g = await e.timeTravel.readAt(s, a.at, (s) => e.graph.taskGraph(s, {ids: a.ids ?? [], all: a.all}))
    const format = a.format ?? 'json'
    if (format === 'svg' || format === 'png') throw new UsageError(`${format === 'svg' ? 'an SVG' : 'a PNG'} is drawn by the command line (\`tasks graph --out FILE.${format}\`); ask for json, mermaid or dot here`)
    // The model exactly as `tasks graph --json` prints it (format names the CLI's default drawing; nothing is drawn).
    if (format === 'json') return {...g, format: 'svg', out: null}
    return {format, text: format === 'dot' ? e.renderDot(g) : e.renderMermaid(g), ...(g.at ? {at: g.at} : {})}
  },
})

export const exportDocument = operation({
  name: 'export',
  toolset: 'history',
  summary: 'Write the list (or some cards) as a versioned document: JSON to import elsewhere, or Markdown to read.',
  description:
    'Every card with its description, comments and checks, ids kept, sorted by id; never the claim fencing tokens (epoch). A card named by ID comes with its sub-items, theirs and so on (the whole subtree), so `tasks import` brings back the parent with its plan. The JSON document ("format": "git-tasks/export", "version": 1) is what `tasks import` reads. --json is the same as --format json; md answers {format, text} over MCP.',
  params: {
    ids: p.strings('task ids or unique prefixes, each with its sub-items (default: the whole list)', {positional: true}),
    format: p.choice(['json', 'md'] as const, 'json (for import) or md (for people).').or('json'),
    output: p.string('Write to this file instead of stdout.', {char: 'o', helpValue: 'FILE', only: ['cli']}),
    at,
  },
  writes: false,
  result: 'export',
  examples: ['<%= config.bin %> export > tasks.json', '<%= config.bin %> export tsk-k3v9 tsk-8d2q --format md', '<%= config.bin %> export -o backup.json'],
  run: async (e, s, a) => {
    const doc = await e.timeTravel.readAt(s, a.at, (s) => e.interchange.exportDocument(s, {ids: a.ids ?? []}))
    return a.format === 'md' ? {format: 'md', text: e.interchange.exportMarkdown(doc), ...(doc.at ? {at: doc.at} : {})} : doc
  },
})

export const importDocument = operation({
  name: 'import',
  toolset: 'history',
  summary: 'Import a document from `tasks export`, or a Taskwarrior `task export`, as one commit.',
  description:
    'Idempotent by key: cards keep their ids (Taskwarrior tasks get the id of the key taskwarrior:<uuid>), a card that already holds what the file says is left alone, a different one is updated, comments are added once. Importing the same file twice changes nothing. Taskwarrior: pending/waiting/recurring → todo, completed → done, deleted → cancelled, priority H/M/L → 1/2/3, project → tag project:NAME, annotations → comments, depends → dependencies. A progress bar shows on a terminal for large files (never with --json). Give exactly one of FILE or (over MCP) document.',
  params: {
    file: p.string('the JSON file (- for stdin), read up to 64 MiB (TASKS_IMPORT_MAX_BYTES); over MCP a regular file inside the repository\'s work tree, relative to the server\'s working directory', {positional: true}),
    document: p.json('the export document (object) or a Taskwarrior export (array)', {only: ['mcp']}),
  },
  writes: true,
  result: 'import',
  examples: ['<%= config.bin %> import tasks.json', 'task export | <%= config.bin %> import -', '<%= config.bin %> import backup.json --json'],
  check: (a) => {
    if ((a.document === undefined) === (a.file === undefined)) throw new UsageError('give exactly one of FILE or document')
  },
  // The person at the command line may import any file they can read, with a progress bar on a terminal; an MCP
  // client names a file inside the work tree (its standard input is the protocol: `-` cannot mean it).
  run: (e, s, a, call) => {
    if (call.surface === 'mcp' && a.file === '-') throw new UsageError('file "-" (stdin) is not available through MCP: pass the JSON as document', {field: 'file'})
    return e.interchange.importDocument(s, {file: a.file, document: a.document, quiet: call.output !== 'text', confined: call.surface !== 'cli'})
  },
})

export const branch = operation({
  name: 'branch',
  toolset: 'history',
  summary: 'Claim a task and check out task/<short id>-<slug> from HEAD for its work.',
  description:
    'The claim comes first: when it is refused, no branch is created. A branch that exists already is checked out (the claim renewed). Commits on the branch are linked to the card by the hooks (`tasks hooks install`).',
  params: {id: taskId, lease},
  writes: true,
  agentSession: true,
  result: 'branch',
  examples: ['<%= config.bin %> branch tsk-k3v9'],
  run: (e, s, a) => e.hooks.branchForTask(s, a),
})

export const prime = operation({
  name: 'prime',
  toolset: 'history',
  summary: "A short guide for an agent's system prompt, from the list's current state.",
  description:
    "How to find work, claim, heartbeat, record evidence, finish and what to run on stop, with this list's lease and remote, and what is ready now. --write FILE keeps a marked section of FILE (such as AGENTS.md) current: the rest of the file is left as it is, and the section holds no counts, so it changes only when the setup does.",
  params: {write: p.string('Keep the git-tasks section of this file current (created when missing).', {helpValue: 'FILE', only: ['cli']})},
  writes: false,
  result: 'prime',
  examples: ['<%= config.bin %> prime', '<%= config.bin %> prime --json', '<%= config.bin %> prime --write AGENTS.md'],
  run: (e, s, a) => (a.write !== undefined ? e.prime.writePrime(s, {file: a.write, cwd: process.cwd()}) : e.prime.prime(s)),
})

export const revert = operation({
  name: 'revert',
  toolset: 'history',
  summary: "Take back one actor's writes in a window, as one commit, keeping everyone else's changes.",
  description:
    "Field by field, every value the actor set in the window that nobody changed since goes back to the value before the actor's change (several changes of one field: the value before the first of them); a value someone else changed since is kept and listed with who changed it. Cards the actor created in the window are cancelled (--remove: removed); a live claim the actor still holds is released. Only moves the rulebook allows are made: what would break a rule (a claim of someone else's, done, a card that is gone, a cycle, a done dependent) is listed under skipped with why, and a card someone else holds live needs --force with --reason. Comments and check results are never rewritten: the actor's are listed. Look first with --dry-run, which writes nothing. Exit 3 (nothing_to_revert) when the actor made no change in the window.",
  params: {
    actor: p.string('The actor whose writes are taken back (@me: you).').need(),
    since: p.string('Only writes after this point: a commit of the list (writes after it), a date or time, or a duration ago (2h, 3d). Default: from the start.'),
    until: p.string('Only writes up to this point (a commit: it and before; a time: at or before). Default: up to now.'),
    dryRun: p.boolean('Show what would be taken back; write nothing.'),
    remove: p.boolean('Remove the cards the actor created instead of cancelling them.'),
    // Also the override's reason when --force releases a live claim or changes the spec of a card someone holds.
    reason: p.string('Why (recorded in the commit, the cancel reason of the cards cancelled). With --force: the override\'s reason.', {char: 'r'}),
  },
  writes: true,
  override: true,
  result: 'revert',
  examples: [
    '<%= config.bin %> revert --actor agent-7 --since 3h --dry-run',
    '<%= config.bin %> revert --actor agent-7 --since 3h --reason "looping agent"',
    '<%= config.bin %> revert --actor agent-7 --since 2026-12-01T09:00 --until 2026-12-01T12:00 --remove --json',
  ],
  run: (e, s, a) => e.revert.revert(s, a),
})

export const diff = operation({
  name: 'diff',
  toolset: 'history',
  summary: 'What changed on the list between two points (default: since a day ago): cards added, removed and changed field by field, checks, comments.',
  description:
    'The standup report: "what happened since yesterday". FROM and TO are each a commit of the list (any unique prefix), a date or time (the last commit at or before it), or a duration ago (2h, 3d); FROM defaults to 1d, TO to the list\'s tip. Each card changed in between is listed with every field that changed, before → after (status, owner, priority, title, tags, dependencies, type, custom fields, dates), its description as a unified diff, its checks added, passed, failed, superseded or reset, and its comments added (author and first line). Claim bookkeeping a heartbeat moves (lease_expires, epoch, claimed_at) is left out. Without --actor it is the net change between the two trees; with --actor, only what commits of those actors changed in the window (also on another clone, merged in by sync).',
  params: {
    from: p.string('start: a commit, a date or time, or a duration ago (default 1d)', {positional: true}),
    to: p.string('end: a commit, a date or time, or a duration ago (default: now, the list\'s tip)', {positional: true}),
    actor: p.strings('Only changes made by commits of this actor (@me: you); repeatable or comma-separated.'),
  },
  writes: false,
  result: 'diff',
  compact: (e, r) => e.listDiffRender.compactDiff(r),
  examples: ['<%= config.bin %> diff', '<%= config.bin %> diff 3d --actor agent-7', '<%= config.bin %> diff 2026-12-01 2026-12-02 --json', '<%= config.bin %> diff a1b2c3d --format compact'],
  run: (e, s, a) => e.listDiff.diff(s, a),
})

export const blame = operation({
  name: 'blame',
  toolset: 'history',
  summary: 'Who set each field of a card and each line of its description: the commit, actor, time and op.',
  description:
    "For every field the card has (status, owner, priority, title, tags, dependencies, dates, each custom field, …) and every line of its description, the commit that set the value it holds now, read from the card's own history. A value that reached the list through a `sync` merge is blamed on the commit that set it on the other clone; a value the merge itself made (a repair, a resolved conflict) on the merge. With --at, the card as it was then (also a card removed since; without --at a removed card is not found, exit 3, and the message names the --at to use). Reads only: nothing is written.",
  params: {
    id: p.id('task id or unique prefix (also of a removed task, with --at)', {positional: true}).need(),
    at, // the card as it was at WHEN (docs/history.md, "WHEN")
  },
  writes: false,
  result: 'blame',
  compact: (e, r) => e.renderBlame.compactBlame(r),
  examples: ['<%= config.bin %> blame tsk-k3v9', '<%= config.bin %> blame tsk-k3v9 --json', '<%= config.bin %> blame tsk-k3v9 --at 2d', '<%= config.bin %> blame tsk-k3v9 --format compact'],
  run: (e, s, a) => e.blame.blame(s, a),
})
