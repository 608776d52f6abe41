/**
 * The --json contract: every command's stdout and every --json error on
 * stderr is validated against its JSON Schema in schemas/output/, on real
 * output of the built CLI driven through a scenario that runs every command.
 * The schemas close their objects (additionalProperties: false), so adding,
 * renaming or dropping a key fails here until the schema (the documented
 * shape) is changed with it.
 */
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Ajv, {type ValidateFunction} from 'ajv'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, makeBareRepo, makeRepo, run, tempDir, type RunOptions} from '../helpers/cli'
import {startBoard} from '../helpers/board'

const SCHEMA_DIR = join(ROOT, 'schemas', 'output')
const BASE = 'https://git-tasks.dev/schemas/output/'

const ajv = new Ajv({strict: true, allErrors: true})
const schemaFiles = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort()
for (const f of schemaFiles) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')))

function validator(name: string): ValidateFunction {
  const v = ajv.getSchema(`${BASE}${name}.schema.json`)
  if (!v) throw new Error(`no schema ${name}.schema.json in schemas/output`)
  return v
}

function check(name: string, data: unknown): void {
  const v = validator(name)
  if (!v(data)) throw new Error(`output does not match ${name}.schema.json: ${ajv.errorsText(v.errors)}\n${JSON.stringify(data, null, 1)}`)
}

function isValid(name: string, data: unknown): boolean {
  return validator(name)(data) as boolean
}

/** Which command's output each schema describes (start and next print a claim). */
const SCHEMA_OF: Record<string, string> = {
  start: 'claim',
  'remote:set': 'remote',
  'remote:unset': 'remote',
  remote: 'remote-status',
  'config:get': 'config-get',
  'config:list': 'config-list',
  'config:set': 'config-change',
  'config:unset': 'config-change',
  'hooks:install': 'hooks',
  'hooks:uninstall': 'hooks',
  'hooks:status': 'hooks',
  'hooks:run': 'hooks-run',
  'server:install-hook': 'server-hook',
  'collab:add': 'role-change',
  'collab:rm': 'role-change',
  watch: 'role-change',
  unwatch: 'role-change',
  notify: 'role-change',
  'actor:list': 'actor-list',
  'actor:add': 'actor-change',
  'actor:alias': 'actor-change',
  'inbox:ack': 'inbox-ack',
  'check:add': 'check',
  'check:pass': 'check',
  'check:fail': 'check',
  'check:supersede': 'check',
  'check:list': 'check-list',
  unflag: 'flag',
  takeover: 'claim',
  'mcp:install': 'mcp-install',
  'board:status': 'board-status',
  'board:stop': 'board-stop',
  'mcp:list-tools': 'mcp-list-tools',
  'mcp:doctor': 'mcp-doctor',
  'remind:--install-unit': 'remind-unit',
  ...Object.fromEntries(['create', 'claim', 'revise', 'checkpoint', 'heartbeat', 'release', 'complete', 'cancel', 'takeover'].map((w) => [`session:${w}`, 'session-change'])),
  'session:show': 'session-show',
  'session:list': 'session-list',
  'session:search': 'session-search',
  'scenario:start': 'scenario-start',
  'scenario:status': 'scenario-status',
  'scenario:list': 'scenario-list',
  ...Object.fromEntries(['start', 'list', 'rm', 'diff', 'merge'].map((w) => [`plan:${w}`, `plan-${w}`])),
}
const exercised = new Set<string>()
const errorCodes = new Set<string>()

/**
 * Run a command with --json, expect exit `exit` (0, or 5 for a doctor that
 * finds problems: it still prints its result), and validate the one line on
 * stdout against the command's schema.
 */
async function ok(cwd: string, args: string[], options: RunOptions = {}, exit = 0): Promise<any> {
  const r = await run(cwd, [...args, '--json'], options)
  expect(r.code, `tasks ${args.join(' ')}: ${r.stderr}`).toBe(exit)
  expect(r.stderr).toBe('')
  expect(r.stdout.endsWith('\n')).toBe(true)
  expect(r.stdout.trimEnd().split('\n')).toHaveLength(1)
  const data = JSON.parse(r.stdout)
  const schema = SCHEMA_OF[`${args[0]}:${args[1]}`] ?? SCHEMA_OF[args[0]!] ?? args[0]!
  check(schema, data)
  exercised.add(schema)
  return data
}

/** Run a command with --json that must fail with `exit`; validate the one-line JSON error on stderr. */
async function fails(cwd: string, args: string[], exit: number, code?: string, options: RunOptions = {}): Promise<any> {
  const r = await run(cwd, [...args, '--json'], options)
  expect(r.code, `tasks ${args.join(' ')}: ${r.stderr}`).toBe(exit)
  expect(r.stdout).toBe('')
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  const data = JSON.parse(r.stderr)
  check('error', data)
  expect(data.error.exit).toBe(exit)
  if (code) expect(data.error.code).toBe(code)
  exercised.add('error')
  errorCodes.add(data.error.code)
  return data.error
}

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error(`dist/tasks.js is missing: run \`npm run build\` before the integration tests (${BIN})`)
})

describe('schemas/output', () => {
  it('every schema compiles in strict mode, is draft-07 and is named after its file', () => {
    expect(schemaFiles.length).toBeGreaterThan(0)
    for (const f of schemaFiles) {
      const s = JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8'))
      expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#')
      expect(s.$id).toBe(`${BASE}${f}`)
      expect(typeof validator(f.replace(/\.schema\.json$/, ''))).toBe('function')
    }
  })

  it('every command in the oclif manifest has an output schema', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags?: Record<string, unknown>}>}
    // Commands without --json (`completion` prints a shell script) have no JSON output to describe.
    const commands = Object.keys(manifest.commands).filter((c) => manifest.commands[c]!.flags?.json)
    expect(commands).toContain('list')
    for (const c of commands) expect(schemaFiles, `schema for ${c}`).toContain(`${SCHEMA_OF[c] ?? c}.schema.json`)
    expect(schemaFiles).toContain('task.schema.json')
    expect(schemaFiles).toContain('error.schema.json')
  })

  it('a list row has exactly the TaskView keys plus depth', () => {
    const task = JSON.parse(readFileSync(join(SCHEMA_DIR, 'task.schema.json'), 'utf8'))
    const list = JSON.parse(readFileSync(join(SCHEMA_DIR, 'list.schema.json'), 'utf8'))
    const row = list.definitions.row
    expect(Object.keys(row.properties).sort()).toEqual([...Object.keys(task.properties), 'depth'].sort())
    expect([...row.required].sort()).toEqual([...task.required, 'depth'].sort())
    expect(row.additionalProperties).toBe(false)
    expect(task.additionalProperties).toBe(false)
    // TaskView documents every key as always present (null when unset).
    expect([...task.required].sort()).toEqual(Object.keys(task.properties).sort())
  })
})

describe('every --json output matches its schema', () => {
  let repo: string
  const A = {env: {TASKS_ACTOR: 'alice'}}
  const B = {env: {TASKS_ACTOR: 'bob'}}
  const ids: Record<string, any> = {}

  beforeAll(() => {
    repo = makeRepo()
  })

  it('init (created, then again: harmless)', async () => {
    const first = await ok(repo, ['init'])
    expect(first.created).toBe(true)
    const again = await ok(repo, ['init'])
    expect(again).toEqual({...first, created: false})
  })

  it('add with every flag, and an idempotent re-add', async () => {
    const parent = await ok(repo, ['add', 'Parent', '--tag', 'api,backend', '-p', '1', '--body', 'Some *markdown*\n---\nkey: value'], A)
    ids.parent = parent.task.id
    const child = await ok(repo, ['add', 'Child one', '--parent', ids.parent], A)
    ids.child = child.task.id
    ids.child2 = (await ok(repo, ['add', 'Child two', '--parent', ids.parent], A)).task.id
    ids.dep = (await ok(repo, ['add', 'Dependency', '--priority', '0'], A)).task.id
    const waiter = await ok(repo, ['add', 'Waiter', '--depends-on', ids.dep, '--key', 'waiter-key'], A)
    ids.waiter = waiter.task.id
    expect(waiter.task.blocked_by).toEqual([{id: ids.dep, status: 'todo', via: null}])
    const again = await ok(repo, ['add', 'Waiter', '--depends-on', ids.dep, '--key', 'waiter-key'], A)
    expect(again.created).toBe(false)
    expect(again.commit).toBeNull()
    ids.reserved = (await ok(repo, ['add', 'Reserved for bob', '--assignee', 'bob'], A)).task.id
    ids.solo = (await ok(repo, ['add', 'Solo', '--body-file', '-'], {...A, input: 'from stdin\n'})).task.id
  })

  it('list (default, --all, --ready, filters)', async () => {
    const l = await ok(repo, ['list'], A)
    expect(l.tasks.map((t: {depth: number}) => t.depth)).toContain(1)
    expect(l.broken).toEqual([])
    await ok(repo, ['list', '--all'], A)
    await ok(repo, ['list', '--ready'], A)
    await ok(repo, ['list', '--status', 'todo,blocked', '--tag', 'api'], A)
    await ok(repo, ['list', '--assignee', 'bob'], A)
  })

  it('show (sub-items, dependencies, dependents)', async () => {
    const p = await ok(repo, ['show', ids.parent!], A)
    expect(p.subitems).toHaveLength(2)
    const w = await ok(repo, ['show', ids.waiter!.slice(0, 8)], A)
    expect(w.dependencies).toHaveLength(1)
    const d = await ok(repo, ['show', ids.dep!], A)
    expect(d.dependents).toHaveLength(1)
  })

  it('graph (the open items; from an id; with --out), and board (the line it prints at start)', async () => {
    const g = await ok(repo, ['graph'], A)
    expect(g.nodes.length).toBeGreaterThan(0)
    expect(g.critical_path.length).toBeGreaterThan(0)
    const from = await ok(repo, ['graph', ids.waiter!, '--all'], A)
    expect(from.roots).toEqual([ids.waiter])
    const out = join(tempDir('graph-'), 'g.dot')
    expect((await ok(repo, ['graph', '--out', out], A)).format).toBe('dot')
    expect(readFileSync(out, 'utf8')).toMatch(/^digraph tasks \{/)
    const board = await startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'alice'})
    try {
      check('board', board.printed)
      expect(board.printed).toMatchObject({host: '127.0.0.1', actor: 'alice', list: 'main', exposed: false})
      exercised.add('board')
    } finally {
      await board.stop()
    }
    // In the background: what --detach prints, then status (exit 0 running, 3 not), then stop.
    const detached = await ok(repo, ['board', '--detach', '--port', '0'], A)
    expect(detached.pid).toBeGreaterThan(0)
    expect((await ok(repo, ['board', 'status'], A)).pid).toBe(detached.pid)
    expect((await ok(repo, ['board', 'stop'], A)).stopped).toBe(true)
    expect((await ok(repo, ['board', 'status'], A, 3)).running).toBe(false)
  })

  it('claim, start, next, heartbeat, block, reopen, done', async () => {
    const c = await ok(repo, ['claim', ids.dep!], A)
    expect(c.took_over_from).toBeNull()
    const renewed = await ok(repo, ['claim', ids.dep!], A)
    expect(renewed.already_owned).toBe(true)
    await ok(repo, ['heartbeat', ids.dep!, '--lease', '600'], A)
    const cp = await ok(repo, ['checkpoint', ids.dep!, '--summary', 'half done', '--next', 'the other half', '--session', 's1'], A)
    expect(cp.checkpoint.kind).toBe('checkpoint')
    const shown = await ok(repo, ['show', ids.dep!], A)
    expect(shown.checkpoint.next).toBe('the other half')
    await ok(repo, ['block', ids.dep!, 'waiting for review'], A)
    const resumed = await ok(repo, ['start', ids.dep!], A)
    expect(resumed.task.status).toBe('in_progress')
    const done = await ok(repo, ['done', ids.dep!], A)
    expect(done.changed).toBe(true)
    const doneAgain = await ok(repo, ['done', ids.dep!], A)
    expect(doneAgain).toMatchObject({changed: false, commit: null})
    const reopened = await ok(repo, ['reopen', ids.dep!], A)
    expect(reopened.task.status).toBe('todo')
    await ok(repo, ['done', ids.dep!], A)
    const n = await ok(repo, ['next'], B)
    expect(n.task.owner).toBe('bob')
    ids.bobs = n.task.id
  })

  it('a takeover of an expired claim names the previous holder', async () => {
    const c = await ok(repo, ['claim', ids.solo!, '--lease', '1'], A)
    const later = new Date(Date.parse(c.task.lease_expires) + 3_600_000).toISOString()
    const t = await ok(repo, ['claim', ids.solo!], {env: {TASKS_ACTOR: 'bob', TASKS_NOW: later}})
    expect(t.took_over_from).toBe('alice')
  })

  it('release (one, --all, nothing to release)', async () => {
    const one = await ok(repo, ['release', ids.solo!], B)
    expect(one.released).toHaveLength(1)
    await ok(repo, ['claim', ids.solo!], B)
    const all = await ok(repo, ['release', '--all'], B)
    expect(all.released.length).toBeGreaterThanOrEqual(2)
    const none = await ok(repo, ['release', '--all'], B)
    expect(none).toEqual({released: [], commit: null, published: false})
  })

  it('edit (changed and unchanged)', async () => {
    const e = await ok(repo, ['edit', ids.solo!, '--title', 'Solo, renamed', '-p', '3', '--tag', 'x', '--body', 'new body'], A)
    expect(e.fields.sort()).toEqual(['body', 'priority', 'tags', 'title'])
    const same = await ok(repo, ['edit', ids.solo!, '--title', 'Solo, renamed'], A)
    expect(same).toMatchObject({fields: [], commit: null})
    const guarded = await ok(repo, ['edit', ids.solo!, '-p', '2', '--if-revision', String(e.task.revision)], A)
    const stale = await fails(repo, ['edit', ids.solo!, '-p', '1', '--if-revision', String(e.task.revision)], 4, 'revision_mismatch', A)
    expect(stale).toMatchObject({revision: guarded.task.revision, expected: e.task.revision})
    // Custom fields (issue 33): the edit names them, every task view carries them, list --field filters.
    const f = await ok(repo, ['edit', ids.solo!, '--field', 'job_id=8812', '--field', 'host=gpu-01'], A)
    expect(f.fields).toEqual(['fields'])
    expect(f.task.fields).toEqual({host: 'gpu-01', job_id: '8812'})
    expect((await ok(repo, ['list', '--field', 'host=gpu-01'], A)).tasks.map((t: {id: string}) => t.id)).toEqual([ids.solo])
  })

  it('assign, assign --none, deps (set, clear)', async () => {
    const a = await ok(repo, ['assign', ids.solo!, 'carol'], A)
    expect(a.task.assignee).toBe('carol')
    const n = await ok(repo, ['assign', ids.solo!, '--none'], A)
    expect(n.task.assignee).toBeNull()
    const d = await ok(repo, ['deps', ids.solo!, ids.reserved!, ids.dep!], A)
    expect(d.task.depends_on).toHaveLength(2)
    const cleared = await ok(repo, ['deps', ids.solo!], A)
    expect(cleared.task.depends_on).toEqual([])
  })

  it('comment (every kind), then show with comments', async () => {
    for (const kind of ['note', 'decision', 'problem', 'lesson', 'knowledge']) {
      const c = await ok(repo, ['comment', ids.parent!, `a ${kind}`, '--kind', kind], A)
      expect(c.comment.kind).toBe(kind)
    }
    const s = await ok(repo, ['show', ids.parent!], A)
    expect(s.comments).toHaveLength(5)
  })

  it('roles, actors, inbox, stale and remind', async () => {
    const c = await ok(repo, ['collab', 'add', ids.parent!, 'carol'], A)
    expect(c.task.collaborators).toEqual(['carol'])
    expect((await ok(repo, ['collab', 'rm', ids.parent!, 'carol'], A)).task.collaborators).toEqual([])
    expect((await ok(repo, ['watch', ids.parent!], B)).task.subscribers).toEqual(['bob'])
    expect((await ok(repo, ['unwatch', ids.parent!, '--mute'], B)).task.notify_mute).toEqual(['bob'])
    expect((await ok(repo, ['notify', ids.parent!, 'comment:owner', 'subscribers'], A)).task.notify_roles).toEqual(['comment:owner', 'subscribers'])
    await ok(repo, ['notify', ids.parent!, '--clear'], A)
    await fails(repo, ['notify', ids.parent!, 'comment:boss'], 2, 'bad_notify_rule', A)
    expect((await ok(repo, ['actor', 'add', 'bob', '--mute', 'heartbeat', '--alias', 'bob@example.com'], A)).actor).toMatchObject({id: 'bob', mute: ['heartbeat'], aliases: ['bob@example.com']})
    await ok(repo, ['actor', 'alias', 'bob', 'bob-session'], A)
    await fails(repo, ['actor', 'alias', 'alice', 'bob-session'], 4, 'alias_conflict', A)
    expect((await ok(repo, ['actor', 'list'], A)).actors.map((a: any) => a.id)).toContain('bob')
    const inbox = await ok(repo, ['inbox', '--all'], B)
    expect(inbox.actor).toBe('bob')
    await fails(repo, ['inbox', 'ack', 'ffffffff'], 3, 'record_not_found', B)
    const ack = await ok(repo, ['inbox', 'ack', '--all'], B)
    expect(ack.acked.length).toBe(inbox.unseen)
    await ok(repo, ['stale', '--older-than', '1s'], {env: {...A.env, TASKS_NOW: '2030-01-01T00:00:00.000Z'}})
    await ok(repo, ['remind', '--older-than', '1s'], {env: {...A.env, TASKS_NOW: '2030-01-01T00:00:00.000Z'}})
    await ok(repo, ['remind', '--install-unit'], A)
  })

  it('cancel (with sub-items) and rm', async () => {
    const c = await ok(repo, ['cancel', ids.parent!, '--reason', 'no longer needed'], A)
    expect(c.subitems).toHaveLength(2)
    const r = await ok(repo, ['rm', ids.reserved!, '--confirm', ids.reserved!, '--reason', 'not needed'], A)
    expect(r.removed).toEqual([{id: ids.reserved, title: 'Reserved for bob'}])
  })

  it('issue 33: defer, fail, a repeating done (next_instance), dated rows in list and stale', async () => {
    const [x, y] = [(await ok(repo, ['add', 'Defer me', '--scheduled', '2029-01-01'], A)).task.id, (await ok(repo, ['add', 'Fail me', '--due', '2020-01-01'], A)).task.id]
    expect((await ok(repo, ['defer', x, '--until', '2030-01-01', '--reason', 'later'], A)).task.status).toBe('deferred')
    expect((await ok(repo, ['list', '--overdue'], A)).tasks.map((t: {id: string}) => t.id)).toContain(y)
    await ok(repo, ['stale'], A)
    expect((await ok(repo, ['fail', y, '--reason', 'broke'], A)).task.status).toBe('failed')
    await ok(repo, ['list', '--all'], A)
    await ok(repo, ['list', '--due-before', '+1y', '--all'], A)
    const r = (await ok(repo, ['add', 'Repeat me', '--due', '2026-01-05', '--every', '1w'], A)).task.id
    expect((await ok(repo, ['done', r], A)).next_instance.previous).toBe(r)
    await ok(repo, ['reopen', x], A)
    await ok(repo, ['reopen', y], A)
  })

  it('several ids: done, reopen, assign, cancel, release and rm as one batch; undo', async () => {
    const [x, y] = [(await ok(repo, ['add', 'Batch X'], A)).task.id, (await ok(repo, ['add', 'Batch Y'], A)).task.id]
    expect((await ok(repo, ['assign', x, y, 'carol'], A)).results).toHaveLength(2)
    expect((await ok(repo, ['assign', x, y, '--none'], A)).results).toHaveLength(2)
    expect((await ok(repo, ['done', x, y], A)).results).toHaveLength(2)
    expect((await ok(repo, ['reopen', x, y], A)).results).toHaveLength(2)
    await ok(repo, ['claim', x], A)
    await ok(repo, ['claim', y], A)
    expect((await ok(repo, ['release', x, y], A)).released).toHaveLength(2)
    const refused = await fails(repo, ['reopen', x, y], 4, 'already_open', A)
    expect(refused).toMatchObject({id: x, index: 0})
    expect((await ok(repo, ['cancel', x, y, '--reason', 'batch'], A)).results).toHaveLength(2)
    expect((await ok(repo, ['rm', x, y, '--confirm', x, y, '--reason', 'batch'], A)).removed).toHaveLength(2)
    // undo brings both back; undo again removes them (redo).
    expect((await ok(repo, ['undo'], A)).restored.map((t: {id: string}) => t.id).sort()).toEqual([x, y].sort())
    expect((await ok(repo, ['undo'], A)).removed.map((t: {id: string}) => t.id).sort()).toEqual([x, y].sort())
  })

  it('checks, flags, sessions, sweep, takeover, prune and batch', async () => {
    const id = (await ok(repo, ['add', 'Checked item'], A)).task.id
    const chk = (await ok(repo, ['check', 'add', id, '--acceptance', 'it works'], A)).check.id
    await ok(repo, ['check', 'add', id, '--test', 'npm test'], A)
    await fails(repo, ['done', id], 4, 'checks_pending', A)
    await ok(repo, ['check', 'fail', id, chk, '--evidence', 'red'], A)
    await ok(repo, ['check', 'pass', id, chk, '--evidence', 'green'], A)
    const listed = await ok(repo, ['check', 'list', id], A)
    expect(listed.unmet).toHaveLength(1)
    await ok(repo, ['check', 'supersede', id, listed.unmet[0], '--reason', 'not needed'], A)
    expect((await ok(repo, ['edit', id, '--title', 'Checked item, new spec'], A)).checks_reset).toEqual([chk])
    await fails(repo, ['check', 'pass', id, 'chk-zzzz', '--evidence', 'x'], 3, 'check_not_found', A)
    await ok(repo, ['claim', id, '--session', 'run-9'], A)
    expect((await ok(repo, ['flag', id, 'looks wrong'], B)).task.flag.reason).toBe('looks wrong')
    await fails(repo, ['done', id], 4, 'flagged', A)
    await ok(repo, ['unflag', id], B)
    await ok(repo, ['takeover', id, '--reason', 'alice is gone', '--confirm', id], B)
    await ok(repo, ['release', '--session', 'run-9', '--force', '--reason', 'run-9 stopped'], B)
    await ok(repo, ['sweep'], A)
    await ok(repo, ['prune', '--older-than', '30d'], A)
    const ops = [{op: 'create', name: 'n', title: 'from a batch'}, {op: 'comment', id: '$n', text: 'hi'}]
    expect((await ok(repo, ['batch', '-'], {...A, input: JSON.stringify(ops)})).applied).toBe(2)
    const each = await ok(repo, ['batch', '-', '--each'], {...A, input: JSON.stringify([...ops.slice(0, 1), {op: 'done', id: 'tsk-zzzzzzzzzz'}])})
    expect(each.failed).toBe(1)
    await fails(repo, ['batch', '-'], 2, 'unknown_batch_name', {...A, input: JSON.stringify([{op: 'done', id: '$missing'}])})
  })

  it('log, log ID, log -n', async () => {
    const all = await ok(repo, ['log'], A)
    expect(all.task).toBeNull()
    expect(all.events.at(-1).op).toBe('init')
    const one = await ok(repo, ['log', ids.solo!], A)
    expect(one.task).toBe(ids.solo)
    await ok(repo, ['log', '-n', '2'], A)
  })

  it('blame, blame --at, blame of an unknown id', async () => {
    const now = await ok(repo, ['blame', ids.solo!], A)
    expect(now.task).toBe(ids.solo)
    expect(now.fields.length).toBeGreaterThan(0)
    const then = await ok(repo, ['blame', ids.solo!, '--at', now.commit.slice(0, 12)], A)
    expect(then.at.commit).toBe(now.commit)
    await fails(repo, ['blame', 'tsk-zzzzzzzzzz'], 3, 'task_not_found', A)
  })

  it('log with details and filters, log of a removed id, restore', async () => {
    const claims = await ok(repo, ['log', '--op', 'claim,block', '--actor', 'alice,bob'], A)
    expect(claims.events.length).toBeGreaterThan(0)
    expect(claims.events.every((e: any) => ['claim', 'block'].includes(e.op))).toBe(true)
    const gone = await ok(repo, ['log', ids.reserved!], A)
    expect(gone).toMatchObject({task: ids.reserved, removed: true})
    expect(gone.events[0].op).toBe('rm')
    const back = await ok(repo, ['restore', ids.reserved!], A)
    expect(back.restored[0].id).toBe(ids.reserved)
    // revert --actor: a look first (no published key), then the revert itself; nobody's writes is exit 3.
    const look = await ok(repo, ['revert', '--actor', 'alice', '--dry-run'], A)
    expect(look).toMatchObject({dry_run: true, commit: null})
    const mine = (await ok(repo, ['add', 'Revert me'], A)).task.id
    const base = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
    await ok(repo, ['edit', mine, '--priority', '0'], A)
    const reverted = await ok(repo, ['revert', '--actor', 'alice', '--since', base], A)
    expect(reverted.restored).toEqual([{id: mine, title: 'Revert me', field: 'priority', from: 0, to: 2}])
    await fails(repo, ['revert', '--actor', 'nobody-at-all'], 3, 'nothing_to_revert', A)
  })

  it('diff, diff --actor', async () => {
    const all = await ok(repo, ['diff', '1w'], A)
    expect(all.cards.length).toBeGreaterThan(0)
    await ok(repo, ['diff', '1w', '--actor', 'bob'], A)
    await fails(repo, ['diff', 'not-a-when'], 2, 'bad_when', A)
  })

  it('config list, get, set, unset', async () => {
    const all = await ok(repo, ['config', 'list'], A)
    expect(all.settings.map((s: any) => s.key)).toContain('lease_seconds')
    await ok(repo, ['config', 'get', 'admins'], A)
    const set = await ok(repo, ['config', 'set', 'lease_seconds', '2h'], A)
    expect(set).toMatchObject({value: 7200, previous: 3600, default: false})
    const unset = await ok(repo, ['config', 'unset', 'lease_seconds'], A)
    expect(unset).toMatchObject({value: 3600, default: true})
    await fails(repo, ['config', 'set', 'lease_seconds', '0'], 5, 'bad_config_value', A)
    await fails(repo, ['config', 'get', 'nope'], 2, 'unknown_config_key', A)
    // A custom field's declared type (issue 33): the fields setting, a map of key to type.
    expect(await ok(repo, ['config', 'set', 'field.estimate', 'enum(s|m|l)'], A)).toMatchObject({key: 'fields', value: {estimate: 'enum(s|m|l)'}, previous: {}, default: false})
    expect(await ok(repo, ['config', 'get', 'fields'], A)).toMatchObject({value: {estimate: 'enum(s|m|l)'}})
    expect(await ok(repo, ['config', 'unset', 'field.estimate'], A)).toMatchObject({value: {}, default: true})
    await fails(repo, ['config', 'set', 'field.estimate', 'list'], 5, 'bad_config_value', A)
  })

  it('search, prime, prime --write, export, import, mcp install; the poll_inbox result of mcp', async () => {
    const found = await ok(repo, ['search', 'a'], A)
    expect(found.index.tasks).toBeGreaterThan(0)
    await ok(repo, ['search', 'zzzznothing', '--status', 'open'], A)
    await ok(repo, ['prime'], A)
    await ok(repo, ['prime', '--write', 'AGENTS.md'], A)
    const doc = await ok(repo, ['export'], A)
    expect(doc.tasks.length).toBeGreaterThan(0)
    const file = join(tempDir('doc-'), 'export.json')
    writeFileSync(file, JSON.stringify(doc))
    const other = makeRepo()
    await run(other, ['init'])
    await ok(other, ['import', file], A)
    await ok(other, ['import', file], A)
    await ok(repo, ['mcp', 'install', '--client', 'vscode'], A)
    await ok(repo, ['mcp', 'install', '--client', 'codex', '--agent', 'agent-1'], A)
    expect((await ok(repo, ['mcp', 'install', '--fleet'], A)).entries.length).toBeGreaterThan(0)
    expect((await ok(repo, ['mcp', 'list-tools', '--toolsets', 'all'], A)).tools.length).toBeGreaterThan(20)
    expect((await ok(repo, ['mcp', 'list-tools'], A)).tools.length).toBe(14)
    // No client configured here: a problem, exit 5, the report printed all the same.
    expect((await ok(repo, ['mcp', 'doctor'], A, 5)).ok).toBe(false)
    await fails(repo, ['mcp', '--agent', 'nobody-registered'], 2, 'unknown_agent', A)
    // The line `tasks mcp --http --json` prints (test/integration/mcp-http.test.ts reads it from a running server).
    check('mcp-http', {url: 'http://127.0.0.1:8765/mcp', host: '127.0.0.1', port: 8765, exposed: false, token_required: false, agent: null, list: 'main'})
    exercised.add('mcp-http')
    await fails(other, ['import', join(tempDir('none-'), 'missing.json')], 2, 'bad_file', A)
    check('mcp', {agent: 'agent-1', source: 'none', records: [{id: 'r1', task: null, from: 'lead', kind: 'mention', created_at: null, text: 'hi'}]})
    exercised.add('mcp')
  })

  it('list and show report a hand-broken task file in `broken`', async () => {
    const path = gitSync(repo, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').find((p) => p.includes(ids.child2!))!
    putFileOnRef(repo, path, '---\ntitle: [unclosed\n---\nbody\n')
    const l = await ok(repo, ['list', '--all'], A)
    expect(l.broken).toEqual([{path, error: expect.any(String)}])
    await fails(repo, ['show', ids.child2!], 5, 'broken_task_file', A)
  })

  it('errors, each one JSON object on stderr', async () => {
    await fails(repo, ['show', 'tsk-zzzzzzzzzz'], 3, 'task_not_found')
    await fails(repo, ['show', '../x'], 3, 'bad_id')
    await fails(repo, ['list', '--bogus'], 2, 'usage')
    await fails(repo, ['frobnicate'], 2)
    await fails(repo, ['add', 'x', '-p', 'high'], 5, 'bad_priority')
    await fails(repo, ['add', 'x'.repeat(501)], 5, 'title_too_long')
    await fails(repo, ['claim', ids.dep!], 4, 'not_claimable', A)
    await fails(repo, ['deps', ids.dep!, ids.dep!], 5, 'self_dependency', A)
    await ok(repo, ['deps', ids.solo!, ids.waiter!], A)
    await fails(repo, ['deps', ids.waiter!, ids.solo!], 5, 'dependency_cycle', A)
    await ok(repo, ['claim', ids.waiter!], A)
    await fails(repo, ['done', ids.waiter!], 6, 'not_owner', B)
    await fails(repo, ['claim', ids.waiter!], 4, 'already_claimed', B)
    await fails(repo, ['done', ids.waiter!, '--force'], 2, 'force_without_reason', B)
    await fails(repo, ['next', '--tag', 'no-such-tag'], 3, 'nothing_ready', B)
    await fails(repo, ['comment', ids.waiter!, 'x', '--kind', 'rant'], 2)
    await fails(repo, ['rm', ids.waiter!, '--confirm', ids.waiter!, '--reason', 'r'], 4, 'has_dependents', A)
    const bare = makeRepo()
    await fails(bare, ['list'], 1, 'not_initialised')
    await fails(tempDir('nogit-'), ['list'], 1, 'not_a_repository')
    expect(errorCodes.size).toBeGreaterThanOrEqual(15)
  })

  it('doctor on the hand-broken list: exit 5, the file in `broken`, the result on stdout', async () => {
    const d = await ok(repo, ['doctor'], A, 5)
    expect(d.broken).toHaveLength(1)
    expect(d.fixed).toBeNull()
  })

  it('shared remote: init --remote, remote set/unset, sync (every action, notes, repairs), doctor, merge-driver', async () => {
    const bare = makeBareRepo()
    const clone = (): string => {
      const dir = tempDir('clone-')
      gitSync(dir, ['clone', '-q', bare, '.'])
      return dir
    }
    const c1 = clone()
    await fails(c1, ['init', '--remote', 'nosuch'], 3, 'remote_not_found')
    const i1 = await ok(c1, ['init', '--remote', 'origin'])
    expect(i1).toMatchObject({created: true, remote: 'origin', sync: 'published'})
    const c2 = clone()
    const i2 = await ok(c2, ['init', '--remote', 'origin'])
    expect(i2).toMatchObject({remote: 'origin', commit: i1.commit})
    expect(['up_to_date', 'fast_forward']).toContain(i2.sync)
    const i3 = await ok(c2, ['init'])
    expect(i3).toMatchObject({created: false, remote: 'origin', sync: null, discovered: false})
    // A fresh clone: init without --remote finds the list on origin and adopts it.
    const c3 = clone()
    await fails(c3, ['list'], 1, 'not_initialised')
    expect(await ok(c3, ['init'])).toMatchObject({created: true, remote: 'origin', sync: 'up_to_date', discovered: true, commit: i1.commit})
    expect(await ok(c3, ['remote'])).toMatchObject({remote: 'origin', ahead: 0, behind: 0, local_tip: i1.commit})
    expect((await ok(c3, ['lists'])).lists).toEqual([{name: 'main', ref: 'refs/tasks/main', commit: i1.commit, tasks: null, remote_commit: i1.commit}])
    await ok(c3, ['list'])
    expect((await ok(c3, ['lists'])).lists[0].tasks).toBe(0)
    expect(await ok(repo, ['remote'])).toMatchObject({remote: null, ahead: null})
    expect((await ok(repo, ['lists'])).remote).toBeNull()

    // remote set / unset.
    const unset = await ok(c2, ['remote', 'unset'])
    expect(unset).toEqual({remote: null, previous: 'origin'})
    expect(await ok(c2, ['remote', 'unset'])).toEqual({remote: null, previous: null})
    await fails(c2, ['sync'], 1, 'no_remote')
    await fails(c2, ['remote', 'set', 'nosuch'], 3, 'remote_not_found')
    expect(await ok(c2, ['remote', 'set', 'origin'])).toEqual({remote: 'origin', previous: null})
    expect(await ok(c2, ['remote', 'set', 'origin'])).toEqual({remote: 'origin', previous: 'origin'})

    // Every sync action.
    expect((await ok(c1, ['sync'])).action).toBe('up_to_date')
    const sharedP = await ok(c1, ['add', 'Shared P'], A)
    expect(sharedP.published).toBe(true)
    const p = sharedP.task.id
    const q = (await ok(c1, ['add', 'Shared Q'], A)).task.id
    const claimable = (await ok(c1, ['add', 'Shared claim'], A)).task.id
    expect((await ok(c2, ['sync'])).action).toBe('fast_forward')
    expect((await ok(c1, ['deps', p, q, '--offline'], A)).published).toBe(false)
    await ok(c1, ['claim', claimable, '--offline'], A)
    await ok(c2, ['deps', q, p, '--offline'], B)
    await ok(c2, ['claim', claimable, '--offline'], B)
    await ok(c2, ['edit', p, '--title', 'P by bob', '--offline'], B)
    await ok(c1, ['edit', p, '--title', 'P by alice', '--offline'], A)
    const pushed = await ok(c1, ['sync'])
    expect(pushed).toMatchObject({action: 'pushed', notes: [], repairs: []})
    const merged = await ok(c2, ['sync'])
    expect(merged.action).toBe('merged')
    expect(merged.notes.map((n: {kind: string}) => n.kind).sort()).toEqual(['field_conflict', 'lost_claim'])
    expect(merged.notes.find((n: {kind: string}) => n.kind === 'lost_claim')).toMatchObject({task: claimable, loser: {owner: 'bob'}, winner: {owner: 'alice'}})
    expect(merged.repairs.map((r: {kind: string}) => r.kind)).toEqual(['dependency_cycle'])
    const published = makeRepo()
    gitSync(published, ['remote', 'add', 'origin', makeBareRepo()])
    await ok(published, ['init'])
    await ok(published, ['remote', 'set', 'origin'])
    expect((await ok(published, ['sync'])).action).toBe('published')

    // An online mutation with the remote unreachable.
    gitSync(c1, ['remote', 'set-url', 'origin', join(bare, '..', 'no-such-remote.git')])
    await fails(c1, ['comment', p, 'lost?'], 1, 'remote_unreachable', A)
    gitSync(c1, ['remote', 'set-url', 'origin', bare])

    // doctor: healthy, then a dangling dependency made by hand, then --fix.
    expect((await ok(c2, ['doctor'])).violations).toEqual([])
    const target = (await ok(c2, ['add', 'Doctor target'], B)).task.id
    const path = gitSync(c2, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').find((f) => f.endsWith(`/${target}/task.md`))!
    const text = gitSync(c2, ['cat-file', '-p', `refs/tasks/main:${path}`])
    const dangling = text.replace(/^depends_on: \[\]$/m, 'depends_on:\n  - "tsk-zzzzzzzzzz"')
    expect(dangling).not.toBe(text)
    putFileOnRef(c2, path, dangling)
    const sick = await ok(c2, ['doctor'], {}, 5)
    expect(sick.violations).toEqual([{kind: 'dangling_dependency', task: target, related: ['tsk-zzzzzzzzzz'], message: expect.any(String)}])
    const fixed = await ok(c2, ['doctor', '--fix'], B)
    expect(fixed.repairs).toHaveLength(1)
    expect(fixed.fixed).toMatch(/^[0-9a-f]{40}$/)

    // merge-driver, as git calls it: BASE OURS THEIRS PATH; the result over OURS.
    const dir = tempDir('driver-')
    const base = text
    const ours = text.replace(/^title: .*$/m, 'title: "Target by ours"').replace(/^updated_at: .*$/m, 'updated_at: "2031-01-01T00:00:00.000Z"')
    const theirs = text.replace(/^tags: \[\]$/m, 'tags:\n  - "theirs"')
    for (const [f, c] of [['base', base], ['ours', ours], ['theirs', theirs]] as const) writeFileSync(join(dir, f), c)
    const drv = await ok(dir, ['merge-driver', join(dir, 'base'), join(dir, 'ours'), join(dir, 'theirs'), path])
    expect(drv).toMatchObject({path, clean: true})
    const result = readFileSync(join(dir, 'ours'), 'utf8')
    expect(result).toMatch(/^title: "Target by ours"$/m)
    expect(result).toContain('  - "theirs"')
  })

  it('hooks, branch, show --history, verify, server install-hook and events (issue 10)', async () => {
    const repo = makeRepo()
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
    const A = {env: {TASKS_ACTOR: 'alice'}}
    await ok(repo, ['init'], A)
    const id = (await ok(repo, ['add', 'Hooked'], A)).task.id
    expect((await ok(repo, ['hooks', 'install'])).hooks).toHaveLength(3)
    await ok(repo, ['hooks', 'status'])
    await ok(repo, ['hooks', 'run'], A)
    await ok(repo, ['hooks', 'uninstall'])
    expect((await ok(repo, ['branch', id], A)).created).toBe(true)
    expect((await ok(repo, ['show', id, '--history'], A)).history.length).toBeGreaterThan(1)
    // Spec revisions: a typed edit with a reason, a check added; the creation is revision 1.
    await ok(repo, ['edit', id, '--title', 'Hooked up', '--type', 'feature', '--reason', 'scope grew'], A)
    await ok(repo, ['check', 'add', id, '--test', 'npm test'], A)
    const revisions = (await ok(repo, ['show', id, '--revisions', '--history'], A)).revisions
    expect(revisions.map((r: {revision: number}) => r.revision)).toEqual([1, 2, 3])
    expect(revisions[1]).toMatchObject({reason: 'scope grew', forced: false, changes: [{field: 'title', before: 'Hooked', after: 'Hooked up'}, {field: 'type', before: 'task', after: 'feature'}]})
    const tip = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
    expect((await ok(repo, ['verify', '0'.repeat(40), tip])).ok).toBe(true)
    await fails(repo, ['verify', 'HEAD', tip], 2, 'bad_revision')
    await ok(tempDir(), ['server', 'install-hook', makeBareRepo()])
    const r = await run(repo, ['events', '--json'], A)
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) check('events', JSON.parse(line))
    exercised.add('events')
  })

  it('coordination sessions: every session command (issue 32)', async () => {
    const repo = makeRepo()
    const A = {env: {TASKS_ACTOR: 'alice'}}
    const B = {env: {TASKS_ACTOR: 'bob'}}
    await ok(repo, ['init'], A)
    const sid = (await ok(repo, ['session', 'create', 'Sessions', '--description', 'the demand', '--strategy', 'the plan'], A)).session.id
    await ok(repo, ['session', 'claim', sid], A)
    const t = (await ok(repo, ['add', 'Joined', '--session', sid], A)).task
    expect(t.work_session).toBe(sid)
    expect((await ok(repo, ['list', '--session', sid], A)).tasks).toHaveLength(1)
    await ok(repo, ['session', 'revise', sid, '--strategy', 'plan b', '--if-revision', '1', '--reason', 'changed'], A)
    await ok(repo, ['session', 'checkpoint', sid, '--summary', 'half', '--next', 'rest'], A)
    await ok(repo, ['session', 'heartbeat', sid], A)
    await fails(repo, ['session', 'complete', sid, '--summary', 'x'], 4, 'session_tasks_open', A)
    await fails(repo, ['session', 'show', 'ses-zzzzzzzz'], 3, 'session_not_found', A)
    await ok(repo, ['session', 'release', sid, '--summary', 'half', '--next', 'rest'], A)
    await ok(repo, ['session', 'claim', sid], B)
    await ok(repo, ['session', 'takeover', sid, '--reason', 'bob is away'], A)
    expect((await ok(repo, ['session', 'show', sid], A)).checkpoints.length).toBe(2)
    expect((await ok(repo, ['session', 'list', '--state', 'all'], A)).sessions).toHaveLength(1)
    expect((await ok(repo, ['session', 'search', 'demand'], A)).results).toHaveLength(1)
    // `tasks search` lists the sessions that match beside the tasks (issue 32, item 11).
    expect((await ok(repo, ['search', 'demand'], A)).sessions.map((h: {session: {id: string}}) => h.session.id)).toEqual([sid])
    await ok(repo, ['done', t.id], A)
    await ok(repo, ['session', 'complete', sid, '--summary', 'delivered'], A)
    const other = (await ok(repo, ['session', 'create', 'Other', '--description', 'd', '--strategy', 's'], A)).session.id
    await ok(repo, ['session', 'cancel', other, '--reason', 'dropped'], A)
  })

  it('scenarios: start, status, list, and their refusals (issue 33)', async () => {
    const repo = makeRepo()
    const A = {env: {TASKS_ACTOR: 'lead'}}
    const args = ['scenario', 'start', 'strath', '--member', 'api=Build the API', '--member', 'ui=Build the UI', '--depends', 'ui:api']
    expect((await ok(repo, args, A)).created).toBe(true)
    expect((await ok(repo, args, A)).created).toBe(false)
    await fails(repo, ['scenario', 'start', 'strath', '--member', 'api=Other'], 4, 'scenario_mismatch', A)
    await fails(repo, ['scenario', 'start', 'x', '--member', 'api=A', '--depends', 'api:nobody'], 2, 'unknown_member', A)
    await fails(repo, ['scenario', 'start', 'x', '--member', 'api=A', '--member', 'api=B'], 2, 'duplicate_member', A)
    await fails(repo, ['scenario', 'start', 'x', '--member', 'api'], 2, 'bad_member', A)
    await ok(repo, ['init'], A)
    await ok(repo, ['add', 'busy'], A)
    await fails(repo, ['scenario', 'start', 'main', '--member', 'api=A'], 4, 'list_in_use', A)
    await fails(repo, ['scenario', 'status', 'main'], 3, 'scenario_not_found', A)
    expect((await ok(repo, ['scenario', 'status', 'strath'], A)).members.find((m: {member: string}) => m.member === 'ui').waiting_on).toEqual(['api'])
    expect((await ok(repo, ['scenario', 'list'], A)).scenarios.map((s: {scenario: string}) => s.scenario)).toEqual(['strath'])
  })

  it('plans: start, list, diff, merge, rm, and their refusals (issue 34)', async () => {
    const repo = makeRepo()
    const A = {env: {TASKS_ACTOR: 'lead'}}
    await ok(repo, ['init'], A)
    const live = (await ok(repo, ['add', 'Live card'], A)).task.id
    await ok(repo, ['claim', live], A)
    expect((await ok(repo, ['plan', 'start', 'draft'], A)).base).toBe(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim())
    await fails(repo, ['plan', 'start', 'draft'], 4, 'plan_exists', A)
    await fails(repo, ['plan', 'start', 'x', '--from', 'nope'], 3, 'list_not_found', A)
    await ok(repo, ['add', 'Drafted', '--list', 'draft'], A)
    await ok(repo, ['release', live, '--list', 'draft'], A)
    expect((await ok(repo, ['plan', 'list'], A)).plans).toHaveLength(1)
    const d = await ok(repo, ['plan', 'diff', 'draft'], A)
    expect(d.kept_claims.map((k: {task: string}) => k.task)).toEqual([live])
    expect((await ok(repo, ['plan', 'merge', 'draft', '--keep'], A)).action).toBe('merged')
    await fails(repo, ['plan', 'merge', 'main'], 4, 'not_a_plan', A)
    await fails(repo, ['plan', 'diff', 'nope'], 3, 'plan_not_found', A)
    await fails(repo, ['plan', 'rm', 'draft'], 2, 'confirm_required', A)
    expect((await ok(repo, ['plan', 'rm', 'draft', '--confirm', 'draft'], A)).plan).toBe('draft')
  })

  it('exercised every output schema', () => {
    const names = schemaFiles.map((f) => f.replace(/\.schema\.json$/, '')).filter((n) => n !== 'task')
    expect([...exercised].sort()).toEqual(names.sort())
  })
})

describe('a change of shape fails validation', () => {
  let repo: string
  let add: any
  beforeAll(async () => {
    repo = makeRepo()
    await ok(repo, ['init'])
    add = await ok(repo, ['add', 'Shape probe'], {env: {TASKS_ACTOR: 'alice'}})
  })

  it('an extra, a missing or a retyped key in a TaskView is rejected', () => {
    expect(isValid('add', add)).toBe(true)
    expect(isValid('add', {...add, extra: 1})).toBe(false)
    expect(isValid('add', {...add, task: {...add.task, surprise: true}})).toBe(false)
    const {owner: _owner, ...withoutOwner} = add.task
    expect(isValid('add', {...add, task: withoutOwner})).toBe(false)
    expect(isValid('add', {...add, task: {...add.task, priority: '2'}})).toBe(false)
    expect(isValid('add', {...add, task: {...add.task, status: 'open'}})).toBe(false)
    expect(isValid('task', add.task)).toBe(true)
  })

  it('a list row must carry depth, and an error must carry code, message and exit', () => {
    const row = {...add.task, depth: 0}
    const list = {list: 'main', commit: add.commit, tasks: [row], broken: [], warnings: [], total: 1, offset: 0, limit: null, next_cursor: null, summary: {total: 1, by_state: {ready: 1}, hidden_finished: 0}}
    expect(isValid('list', list)).toBe(true)
    expect(isValid('list', {...list, tasks: [add.task]})).toBe(false)
    expect(isValid('list', {...list, tasks: [{...row, depth: 5}]})).toBe(false)
    expect(isValid('list', {...list, tasks: [{...row, state: 'sleeping'}]})).toBe(false)
    expect(isValid('list', {...list, summary: {...list.summary, by_state: {sleeping: 1}}})).toBe(false)
    expect(isValid('error', {error: {code: 'task_not_found', message: 'm', exit: 3, extra: 'data is allowed'}})).toBe(true)
    expect(isValid('error', {error: {code: 'no_such_code', message: 'm', exit: 3}})).toBe(false)
    expect(isValid('error', {error: {code: 'task_not_found', message: 'm'}})).toBe(false)
    expect(isValid('error', {error: {code: 'task_not_found', message: 'm', exit: 0}})).toBe(false)
    expect(isValid('error', {error: {code: 'task_not_found', message: 'm', exit: 3}, more: 1})).toBe(false)
  })
})

/** Commit `content` at `path` onto refs/tasks/main with plain plumbing (hash-object, mktree, commit-tree, update-ref). */
function putFileOnRef(repo: string, path: string, content: string): void {
  const blob = gitSync(repo, ['hash-object', '-w', '--stdin'], content).trim()
  const old = gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
  const put = (tree: string | null, parts: string[]): string => {
    const [name, ...rest] = parts as [string, ...string[]]
    const entries = tree ? gitSync(repo, ['ls-tree', tree]).split('\n').filter(Boolean) : []
    const existing = entries.find((l) => l.split('\t')[1] === name)
    const kept = entries.filter((l) => l !== existing)
    const entry = rest.length === 0 ? `100644 blob ${blob}\t${name}` : `040000 tree ${put(existing ? existing.split(/\s+/)[2]! : null, rest)}\t${name}`
    return gitSync(repo, ['mktree'], `${[...kept, entry].join('\n')}\n`).trim()
  }
  const tree = put(`${old}^{tree}`, path.split('/'))
  const commit = gitSync(repo, ['commit-tree', tree, '-p', old, '-m', 'hand edit']).trim()
  gitSync(repo, ['update-ref', 'refs/tasks/main', commit, old])
}
