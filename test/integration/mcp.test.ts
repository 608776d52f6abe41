/**
 * `tasks mcp` end to end: the SDK's own client spawns the built CLI over
 * stdio and drives it as an agent client would. Two servers on one
 * repository conflict through the ref; two servers in two clones race
 * through a bare remote.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Ajv from 'ajv'
import {OPERATIONS} from '../../src/operations/table'
import {toolName} from '../../src/operations/spec'

/** Write tools answer compactly by default (issue 35); these tests read their JSON. */
const WRITES = new Set(OPERATIONS.filter((s) => s.writes).map(toolName))
const asJson = (name: string, args: Record<string, unknown>): Record<string, unknown> => (WRITES.has(name) && args.format === undefined ? {...args, format: 'json'} : args)
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'

interface Connected {
  client: Client
  close(): Promise<void>
}

async function connect(cwd: string, actor: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', actor, '--toolsets', 'all', ...extraArgs], cwd, env: {...TEST_ENV, ...env}, stderr: 'pipe'})
  const client = new Client({name: 'test-agent', version: '1.0.0'})
  await client.connect(transport)
  return {client, close: () => client.close()}
}

type ToolResult = {isError?: boolean; structuredContent?: any; content: Array<{type: string; text?: string}>}

async function call(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await c.client.callTool({name, arguments: asJson(name, args)})) as ToolResult
}

/** The tool's JSON: the text content parsed (the same object as structuredContent). */
function json(r: ToolResult): any {
  const text = r.content[0]?.text ?? ''
  return JSON.parse(text)
}

afterAll(() => cleanupAll())

// The --json contract (schemas/output): a tool's result must match its command's schema.
const SCHEMA_DIR = join(ROOT, 'schemas', 'output')
const ajv = new Ajv({strict: true, allErrors: true})
for (const f of readdirSync(SCHEMA_DIR).filter((n) => n.endsWith('.schema.json'))) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')))

/** The tool succeeded and its JSON matches schemas/output/<schema>.schema.json; returns that JSON. */
function valid(r: ToolResult, schema: string): any {
  if (r.isError) throw new Error(`tool error: ${r.content[0]?.text}`)
  const body = json(r)
  const v = ajv.getSchema(`https://git-tasks.dev/schemas/output/${schema}.schema.json`)!
  if (!v(body)) throw new Error(`result does not match ${schema}.schema.json: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body)}`)
  return body
}

/** The tool failed with this code and exit, and the error object matches error.schema.json. */
function failed(r: ToolResult, code: string, exit: number): any {
  expect(r.isError, r.content[0]?.text).toBe(true)
  const body = json(r)
  expect(body.error).toMatchObject({code, exit})
  const v = ajv.getSchema('https://git-tasks.dev/schemas/output/error.schema.json')!
  if (!v(body)) throw new Error(`error does not match error.schema.json: ${ajv.errorsText(v.errors)}`)
  return body.error
}

describe('tasks mcp over stdio', () => {
  let repo: string
  let a: Connected
  let b: Connected

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    a = await connect(repo, 'agent-a')
    b = await connect(repo, 'agent-b')
  })

  afterAll(async () => {
    await a?.close()
    await b?.close()
  })

  it('lists its tools, with input schemas', async () => {
    const {tools} = await a.client.listTools()
    const names = tools.map((t) => t.name)
    for (const n of ['list', 'show', 'add', 'edit', 'claim', 'next', 'heartbeat', 'done', 'block', 'reopen', 'release', 'comment', 'deps', 'assign', 'sync', 'log', 'search', 'prime', 'poll_inbox']) expect(names).toContain(n)
    const claim = tools.find((t) => t.name === 'claim')!
    expect(claim.inputSchema.required).toContain('id')
    expect(Object.keys(claim.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['id', 'lease', 'force', 'reason']))
  })

  it('add, claim (a second client gets already_claimed), done: the same JSON as the CLI', async () => {
    const added = await call(a, 'add', {title: 'Wire the claim CAS', tags: ['backend'], priority: 1})
    expect(added.isError).toBeFalsy()
    const task = json(added).task
    expect(json(added)).toMatchObject({created: true, published: false})
    expect(added.structuredContent).toEqual(json(added))

    const claimed = json(await call(a, 'claim', {id: task.id, lease: '30m'}))
    expect(claimed.task).toMatchObject({id: task.id, owner: 'agent-a', state: 'in_progress', epoch: 1})
    expect(claimed.commit).toMatch(/^[0-9a-f]{40}$/)

    // The CLI sees the same state the server wrote (and shapes it the same way).
    const shown = await runJson(repo, ['show', task.id], {env: {TASKS_ACTOR: 'agent-a'}})
    expect(shown.task.owner).toBe('agent-a')
    expect(Object.keys(claimed.task).sort()).toEqual(Object.keys(shown.task).sort())

    const lost = await call(b, 'claim', {id: task.id})
    expect(lost.isError).toBe(true)
    expect(json(lost).error).toMatchObject({code: 'already_claimed', exit: 4, owner: 'agent-a'})

    const done = json(await call(a, 'done', {id: task.id, epoch: 1}))
    expect(done).toMatchObject({changed: true, published: false})
    expect(done.task.state).toBe('done')
  })

  it('sees what another process wrote between calls (the long-lived server re-reads the ref)', async () => {
    const viaCli = await runJson(repo, ['add', 'Added by the CLI'], {env: {TASKS_ACTOR: 'human'}})
    const next = json(await call(b, 'next', {format: 'json'}))
    expect(next.task.id).toBe(viaCli.task.id)
    expect(next.task.owner).toBe('agent-b')
    const listed = json(await call(a, 'list', {owner: 'agent-b', format: 'json'}))
    expect(listed.tasks.map((t: any) => t.id)).toEqual([viaCli.task.id])
  })

  it('errors carry their code: not found, usage, a bad value', async () => {
    const missing = await call(a, 'show', {id: 'tsk-zzzzzzzzzz'})
    expect(missing.isError).toBe(true)
    expect(json(missing).error).toMatchObject({code: 'task_not_found', exit: 3})
    const forced = await call(a, 'claim', {id: 'tsk-zzzz', force: true})
    expect(json(forced).error).toMatchObject({code: 'force_without_reason', exit: 2})
    const badLease = await call(a, 'claim', {id: 'tsk-zzzz', lease: 'soon'})
    expect(json(badLease).error).toMatchObject({code: 'usage', exit: 2})
    // Arguments that fail the input schema: the same JSON error shape, code usage.
    const wrongType = await call(a, 'claim', {id: 42})
    expect(wrongType.isError).toBe(true)
    expect(json(wrongType).error).toMatchObject({code: 'usage', exit: 2})
    expect(json(wrongType).error.message).toMatch(/id/)
    const empty = await call(a, 'add', {title: '  '})
    expect(json(empty).error).toMatchObject({code: 'empty_title', exit: 5})
  })

  it('serves the list, a card and the guide as resources', async () => {
    const {resources} = await a.client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['tasks://main', 'tasks://guide']))
    const list = await a.client.readResource({uri: 'tasks://main'})
    const open = JSON.parse(String((list.contents[0] as {text: string}).text))
    const id = open.tasks[0].id
    const card = await a.client.readResource({uri: `tasks://main/${id}`})
    expect(JSON.parse(String((card.contents[0] as {text: string}).text)).task.id).toBe(id)
    const guide = await a.client.readResource({uri: 'tasks://guide'})
    expect(String((guide.contents[0] as {text: string}).text)).toContain('tasks next')
  })

  it('poll_inbox answers with nothing while the store has no inbox', async () => {
    const polled = json(await call(a, 'poll_inbox'))
    expect(polled).toEqual({agent: null, records: [], source: 'none'})
  })
})

describe('two MCP servers in two clones, one bare remote', () => {
  it('race for one item: exactly one wins, the other gets already_claimed', async () => {
    const remote = makeBareRepo()
    const first = makeRepo()
    gitSync(first, ['remote', 'add', 'origin', remote])
    await runJson(first, ['init', '--remote', 'origin'])
    const added = await runJson(first, ['add', 'Contested'], {env: {TASKS_ACTOR: 'lead'}})
    const second = tempDir('clone-')
    gitSync(second, ['clone', '-q', remote, '.'])
    await runJson(second, ['init', '--remote', 'origin'])

    const servers = [await connect(first, 'agent-1'), await connect(second, 'agent-2')]
    try {
      const results = await Promise.all(servers.map((s) => call(s, 'claim', {id: added.task.id})))
      const wins = results.filter((r) => !r.isError)
      const losses = results.filter((r) => r.isError)
      expect(wins).toHaveLength(1)
      expect(losses).toHaveLength(1)
      expect(json(wins[0]!)).toMatchObject({published: true})
      const winner = json(wins[0]!).task.owner
      expect(json(losses[0]!).error).toMatchObject({code: 'already_claimed', exit: 4, owner: winner})
      // The remote agrees with the winner.
      const fresh = tempDir('check-')
      gitSync(fresh, ['clone', '-q', remote, '.'])
      await runJson(fresh, ['init', '--remote', 'origin'])
      expect((await runJson(fresh, ['show', added.task.id])).task.owner).toBe(winner)
    } finally {
      for (const s of servers) await s.close()
    }
  })
})

describe('a long-lived server online: the first try on the tip it left, the lease deciding', () => {
  it('skips the fetch while nobody else moves the list; a rejected push or a refusal on that tip fetches and decides again; one winner per item', async () => {
    const remote = makeBareRepo()
    const first = makeRepo()
    gitSync(first, ['remote', 'add', 'origin', remote])
    await runJson(first, ['init', '--remote', 'origin'])
    const ids: string[] = []
    for (let i = 0; i < 10; i++) ids.push((await runJson(first, ['add', `online ${i}`], {env: {TASKS_ACTOR: 'lead'}})).task.id)
    const second = tempDir('clone-')
    gitSync(second, ['clone', '-q', remote, '.'])
    await runJson(second, ['init', '--remote', 'origin'])
    // git's own trace of every git command server A runs: the fetches and pushes each call started.
    const trace = join(tempDir('trace-'), 'a.trace')
    writeFileSync(trace, '')
    const a = await connect(first, 'agent-a', [], {GIT_TRACE: trace})
    const b = await connect(second, 'agent-b')
    const gitCalls = async (work: () => Promise<ToolResult>): Promise<{result: ToolResult; fetches: number; pushes: number}> => {
      const before = readFileSync(trace, 'utf8').length
      const result = await work()
      const lines = readFileSync(trace, 'utf8').slice(before).split('\n')
      const count = (cmd: string) => lines.filter((l) => l.includes(`built-in: git ${cmd} `)).length
      return {result, fetches: count('fetch'), pushes: count('push')}
    }
    const ownerOnRemote = async (id: string) => {
      const fresh = tempDir('check-')
      gitSync(fresh, ['clone', '-q', remote, '.'])
      await runJson(fresh, ['init', '--remote', 'origin'])
      return (await runJson(fresh, ['show', id])).task.owner
    }
    try {
      // A publishes twice, the second time finding the list where it left it: from then on A skips the fetch.
      valid(await call(a, 'claim', {id: ids[0]}), 'claim')
      valid(await call(a, 'claim', {id: ids[1]}), 'claim')
      const quiet = await gitCalls(() => call(a, 'claim', {id: ids[2]}))
      expect(valid(quiet.result, 'claim')).toMatchObject({published: true})
      expect([quiet.fetches, quiet.pushes]).toEqual([0, 1])

      // B moves the list: A's push on the tip it knew is rejected by the lease, then A fetches and wins on the new tip.
      valid(await call(b, 'claim', {id: ids[3]}), 'claim')
      const moved = await gitCalls(() => call(a, 'claim', {id: ids[4]}))
      expect(valid(moved.result, 'claim')).toMatchObject({published: true, task: {owner: 'agent-a'}})
      expect([moved.fetches, moved.pushes]).toEqual([1, 2])
      expect(await ownerOnRemote(ids[3]!)).toBe('agent-b')
      expect(await ownerOnRemote(ids[4]!)).toBe('agent-a')

      // A refusal on the assumed tip is not the answer: B holds ids[5] as A last saw it, then releases it;
      // A's claim, refused on the tip it knew (already claimed), fetches and wins.
      valid(await call(b, 'claim', {id: ids[5]}), 'claim')
      valid(await call(a, 'claim', {id: ids[6]}), 'claim') // fetches: the list moved (B)
      valid(await call(a, 'claim', {id: ids[7]}), 'claim') // fetches, finds it where A left it: quiet again
      valid(await call(b, 'release', {id: ids[5]}), 'release')
      const refused = await gitCalls(() => call(a, 'claim', {id: ids[5]}))
      expect(valid(refused.result, 'claim')).toMatchObject({task: {id: ids[5], owner: 'agent-a'}})
      expect(refused.fetches).toBe(1)
      expect(await ownerOnRemote(ids[5]!)).toBe('agent-a')

      // A (assuming its tip) and B race for one item: exactly one wins.
      valid(await call(a, 'claim', {id: ids[8]}), 'claim') // quiet again after the fetch above
      const results = await Promise.all([call(a, 'claim', {id: ids[9]}), call(b, 'claim', {id: ids[9]})])
      const wins = results.filter((r) => !r.isError)
      expect(wins).toHaveLength(1)
      const winner = json(wins[0]!).task.owner
      expect(json(results.find((r) => r.isError)!).error).toMatchObject({code: 'already_claimed', owner: winner})
      expect(await ownerOnRemote(ids[9]!)).toBe(winner)
      // One commit per claim and release on the remote: nothing lost, nothing doubled (init, 10 adds, 10 claims, 1 release, 1 claim).
      expect(gitSync(remote, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe(String(1 + 10 + 10 + 1 + 1))
      gitSync(remote, ['fsck', '--strict', '--no-progress', '--no-dangling'])
    } finally {
      await a.close()
      await b.close()
    }
  })
})

describe('two MCP servers on one repository', () => {
  it('claims racing through the kept update-ref processes: every claim lands once, one winner per item', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await runJson(repo, ['add', `item ${i}`], {env: {TASKS_ACTOR: 'lead'}})).task.id)
    const servers = [await connect(repo, 'agent-x'), await connect(repo, 'agent-y')]
    try {
      // Both servers claim every item at once: their compare-and-swaps collide and are retried.
      const results = await Promise.all(servers.flatMap((s) => ids.map((id) => call(s, 'claim', {id}))))
      const won = results.filter((r) => !r.isError).map((r) => json(r).task)
      const lost = results.filter((r) => r.isError).map((r) => json(r).error)
      expect(won).toHaveLength(ids.length)
      expect(new Set(won.map((t: any) => t.id)).size).toBe(ids.length)
      expect(lost.every((e: any) => e.code === 'already_claimed')).toBe(true)
      const listed = await runJson(repo, ['list', '--status', 'in_progress'], {env: {TASKS_ACTOR: 'lead'}})
      const owners = new Map(listed.tasks.map((t: any) => [t.id, t.owner]))
      for (const t of won) expect(owners.get(t.id)).toBe(t.owner)
      // One claim commit per item, on top of init and the adds: nothing lost, nothing doubled.
      expect(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe(String(1 + ids.length * 2))
      gitSync(repo, ['fsck', '--strict', '--no-progress', '--no-dangling']) // throws on a broken object
    } finally {
      for (const s of servers) await s.close()
    }
  })
})

describe('a server on a freshly packed repository', () => {
  it('claims land whole though no fan-out directory existed, also after a gc that removes them between calls; no temporary file is left', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push((await runJson(repo, ['add', `packed ${i}`], {env: {TASKS_ACTOR: 'lead'}})).task.id)
    gitSync(repo, ['gc', '-q', '--prune=now'])
    const objects = join(repo, '.git', 'objects')
    const fanOuts = () => readdirSync(objects).filter((n) => /^[0-9a-f]{2}$/.test(n))
    expect(fanOuts()).toEqual([])
    const s = await connect(repo, 'agent-p')
    try {
      const first = valid(await call(s, 'claim', {id: ids[0]}), 'claim')
      // Every object of the claim's commit reads back through git, whole.
      gitSync(repo, ['fsck', '--strict', '--no-dangling'])
      expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toBe(first.commit)
      // A gc while the server runs packs the objects and removes the (now empty) fan-out directories.
      gitSync(repo, ['gc', '-q', '--prune=now'])
      const second = valid(await call(s, 'claim', {id: ids[1]}), 'claim')
      const third = valid(await call(s, 'claim', {id: ids[2]}), 'claim')
      expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toBe(third.commit)
      expect(gitSync(repo, ['rev-parse', `${third.commit}^`]).trim()).toBe(second.commit)
      gitSync(repo, ['fsck', '--strict', '--no-dangling'])
      const listed = await runJson(repo, ['list', '--status', 'in_progress'], {env: {TASKS_ACTOR: 'lead'}})
      expect(listed.tasks.map((t: any) => t.id).sort()).toEqual(ids.slice(0, 3).sort())
    } finally {
      await s.close()
    }
    // The server's spare temporary files went with it.
    for (let i = 0; i < 50 && readdirSync(objects).some((f) => f.startsWith('tmp_obj_')); i++) await new Promise((r) => setTimeout(r, 50))
    expect(readdirSync(objects).filter((f) => f.startsWith('tmp_obj_'))).toEqual([])
  })
})

describe('tasks mcp install', () => {
  it('prints the entry, merges it into the client config keeping the rest, and refuses a broken file', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const printed = await runJson(repo, ['mcp', 'install', '--agent', 'agent-7'])
    expect(printed).toMatchObject({client: 'claude-code', scope: 'project', written: false, changed: true, server: {command: 'tasks', args: ['mcp', '--agent', 'agent-7']}})
    const file = join(repo, '.mcp.json')
    writeFileSync(file, JSON.stringify({mcpServers: {other: {command: 'other-server'}}, extra: 1}))
    expect(await runJson(repo, ['mcp', 'install', '--write', '--agent', 'agent-7'])).toMatchObject({written: true, changed: true, path: file})
    const config = JSON.parse(readFileSync(file, 'utf8'))
    expect(config).toEqual({mcpServers: {other: {command: 'other-server'}, 'git-tasks': {command: 'tasks', args: ['mcp', '--agent', 'agent-7']}}, extra: 1})
    expect(await runJson(repo, ['mcp', 'install', '--write', '--agent', 'agent-7'])).toMatchObject({written: true, changed: false})
    const codex = await runJson(repo, ['mcp', 'install', '--client', 'codex'])
    expect(codex.snippet).toContain('[mcp_servers.git-tasks]')
    expect(codex.server.args).toEqual(['-C', expect.any(String), 'mcp'])
    writeFileSync(file, '{broken')
    const bad = await run(repo, ['mcp', 'install', '--write', '--json'])
    expect(bad.code).toBe(5)
    expect(jsonError(bad).code).toBe('bad_config_file')
    expect(readFileSync(file, 'utf8')).toBe('{broken')
  })
})

describe('tasks mcp: the housekeeping and setup tools', () => {
  it('init, config, rm/restore/undo, doctor, lists, remote, export/import, branch: CLI shapes and error codes', async () => {
    const repo = makeRepo()
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
    const bare = makeBareRepo()
    gitSync(repo, ['remote', 'add', 'origin', bare])
    const c = await connect(repo, 'agent-a')
    try {
      const {tools} = await c.client.listTools()
      const names = tools.map((t) => t.name)
      for (const n of ['rm', 'restore', 'undo', 'config_list', 'config_get', 'config_set', 'config_unset', 'doctor', 'lists', 'remote', 'remote_set', 'remote_unset', 'init', 'branch', 'export', 'import']) expect(names, n).toContain(n)
      expect(tools.find((t) => t.name === 'doctor')!.annotations?.readOnlyHint).toBe(false)
      expect(tools.find((t) => t.name === 'config_get')!.annotations?.readOnlyHint).toBe(true)

      // A repository without a list: the server starts, init creates it, the same server then works on it.
      failed(await call(c, 'add', {title: 'too early'}), 'not_initialised', 1)
      expect(valid(await call(c, 'init'), 'init')).toMatchObject({created: true, remote: null})
      const parent = json(await call(c, 'add', {title: 'Parser'})).task
      const child = json(await call(c, 'add', {title: 'Tokenizer', parent: parent.id})).task
      const other = json(await call(c, 'add', {title: 'Emitter', depends_on: [parent.id]})).task

      // config: list, get, set (durations), a bad value and an unknown key with their codes, unset.
      const settings = valid(await call(c, 'config_list'), 'config-list')
      expect(settings.settings.map((x: any) => x.key)).toContain('lease_seconds')
      expect(valid(await call(c, 'config_get', {key: 'lease_seconds'}), 'config-get')).toMatchObject({key: 'lease_seconds', default: true})
      expect(valid(await call(c, 'config_set', {key: 'lease_seconds', value: '2h'}), 'config-change')).toMatchObject({key: 'lease_seconds', value: 7200, published: false})
      expect((await runJson(repo, ['config', 'get', 'lease_seconds'])).value).toBe(7200)
      failed(await call(c, 'config_set', {key: 'lease_seconds', value: 'soon'}), 'bad_config_value', 5)
      failed(await call(c, 'config_get', {key: 'colour'}), 'unknown_config_key', 2)
      expect(valid(await call(c, 'config_unset', {key: 'lease_seconds'}), 'config-change')).toMatchObject({default: true})

      // rm: refused while another task depends on it (nothing written), then removed with its sub-item; restore brings both back.
      const before = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
      // An MCP client has no terminal: rm needs the ids repeated and a reason (exit 2, nothing written), and a parent --with-subitems.
      const sure = {confirm: [parent.id], reason: 'superseded by the new plan'}
      failed(await call(c, 'rm', {id: parent.id}), 'confirm_required', 2)
      failed(await call(c, 'rm', {id: parent.id, confirm: [other.id], reason: 'x'}), 'confirm_mismatch', 2)
      failed(await call(c, 'rm', {id: parent.id, confirm: [parent.id]}), 'reason_required', 2)
      failed(await call(c, 'rm', {id: parent.id, ...sure, with_subitems: true}), 'has_dependents', 4)
      expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toBe(before)
      json(await call(c, 'deps', {id: other.id, depends_on: []}))
      failed(await call(c, 'rm', {id: parent.id, ...sure}), 'has_subitems', 4)
      const removed = valid(await call(c, 'rm', {id: parent.id, ...sure, with_subitems: true}), 'rm')
      expect(removed.removed.map((t: any) => t.id).sort()).toEqual([parent.id, child.id].sort())
      failed(await call(c, 'show', {id: child.id}), 'task_not_found', 3)
      const restored = valid(await call(c, 'restore', {id: parent.id}), 'restore')
      expect(restored.restored.map((t: any) => t.id).sort()).toEqual([parent.id, child.id].sort())
      failed(await call(c, 'restore', {id: parent.id}), 'already_exists', 4)

      // undo takes back this agent's newest change (the edit), as a new commit.
      json(await call(c, 'edit', {id: other.id, title: 'Emitter v2'}))
      const undone = valid(await call(c, 'undo'), 'undo')
      expect(undone.restored.map((t: any) => t.id)).toEqual([other.id])
      expect(json(await call(c, 'show', {id: other.id, format: 'json'})).task.title).toBe('Emitter')

      // doctor: a report (no problems), and fix with nothing to repair writes nothing.
      expect(valid(await call(c, 'doctor'), 'doctor')).toMatchObject({violations: [], broken: [], locks: [], fixed: null})
      const tip = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
      expect(valid(await call(c, 'doctor', {fix: true}), 'doctor')).toMatchObject({fixed: null, repairs: []})
      expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toBe(tip)

      // lists and remote: a remote git does not know is remote_not_found; set, show, unset.
      expect(valid(await call(c, 'lists'), 'lists').lists.map((l: any) => [l.name, l.tasks])).toEqual([['main', 3]])
      expect(valid(await call(c, 'remote'), 'remote-status')).toMatchObject({remote: null})
      failed(await call(c, 'remote_set', {name: 'nowhere'}), 'remote_not_found', 3)
      expect(valid(await call(c, 'remote_set', {name: 'origin'}), 'remote')).toEqual({remote: 'origin', previous: null})
      json(await call(c, 'sync'))
      expect(valid(await call(c, 'remote'), 'remote-status')).toMatchObject({remote: 'origin'})
      expect(gitSync(bare, ['rev-parse', 'refs/tasks/main']).trim()).toBe(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim())
      expect(valid(await call(c, 'remote_unset'), 'remote')).toEqual({remote: null, previous: 'origin'})

      // export (the document, and Markdown), then import it: into this list nothing changes; into an empty one, every card.
      const doc = valid(await call(c, 'export'), 'export')
      expect(doc.tasks.map((t: any) => t.title).sort()).toEqual(['Emitter', 'Parser', 'Tokenizer'])
      expect(json(await call(c, 'export', {ids: [other.id], format: 'md'})).text).toContain('Emitter')
      expect(valid(await call(c, 'import', {document: doc}), 'import')).toMatchObject({commit: null, created: 0, unchanged: 3})
      failed(await call(c, 'import', {file: '-'}), 'usage', 2)
      failed(await call(c, 'import', {document: doc, file: 'x.json'}), 'usage', 2)
      writeFileSync(join(repo, 'bad.json'), '{not json')
      failed(await call(c, 'import', {file: 'bad.json'}), 'bad_import', 5)
      const empty = makeRepo()
      await runJson(empty, ['init'])
      const d = await connect(empty, 'agent-d')
      try {
        const imported = valid(await call(d, 'import', {document: doc}), 'import')
        expect(imported).toMatchObject({created: 3, published: false})
        expect((await runJson(empty, ['list', '--all'])).tasks.map((t: any) => t.id).sort()).toEqual([parent.id, child.id, other.id].sort())
      } finally {
        await d.close()
      }

      // branch: the claim, then the work branch checked out in the server's working tree.
      const branched = valid(await call(c, 'branch', {id: other.id}), 'branch')
      expect(branched).toMatchObject({created: true, task: {id: other.id, owner: 'agent-a'}})
      expect(gitSync(repo, ['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe(branched.branch)
    } finally {
      await c.close()
    }
  }, 60000)
})
