/**
 * Agent handoff on one machine: optimistic edits (`--if-revision`) on every
 * command that changes what a card says, progress checkpoints through a
 * claim, a release, an expired lease and a takeover, and the compact output
 * read back into the information of the JSON form.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {parseCompact} from '../../src/render/compact'

const REF = 'refs/tasks/main'
const tip = (repo: string) => gitSync(repo, ['rev-parse', REF]).trim()

afterAll(() => cleanupAll())

describe('--if-revision', () => {
  let repo: string
  let id: string
  let other: string

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    id = (await runJson(repo, ['add', 'guarded card', '--as', 'alice'])).task.id
    other = (await runJson(repo, ['add', 'another card', '--as', 'alice'])).task.id
    // Revision 2, by bob: every guard at revision 1 below is stale.
    await runJson(repo, ['edit', id, '--priority', '1', '--as', 'bob'])
  })

  const stale: Array<[string, (id: string, other: string) => string[]]> = [
    ['edit', (id) => ['edit', id, '--title', 'from a stale read']],
    ['edit (a change that would be a no-op)', (id) => ['edit', id, '--priority', '1']],
    ['deps', (id, other) => ['deps', id, other]],
    ['assign', (id) => ['assign', id, 'carol']],
    ['block', (id) => ['block', id, 'waiting on review']],
    ['comment', (id) => ['comment', id, 'based on what I read']],
  ]
  for (const [name, args] of stale) {
    it(`${name} with a stale revision: exit 4 revision_mismatch naming the current revision and who changed it; nothing written`, async () => {
      const before = tip(repo)
      const r = await run(repo, [...args(id, other), '--if-revision', '1', '--json', '--as', 'carol'])
      expect(r.code, r.stderr).toBe(4)
      expect(r.stdout).toBe('')
      const e = jsonError(r)
      expect(e).toMatchObject({code: 'revision_mismatch', id, revision: 2, expected: 1, updated_by: 'bob'})
      expect(e.changes_since).toEqual([expect.objectContaining({actor: 'bob', op: 'edit'})])
      expect(e.message).toContain('--if-revision 2')
      expect(tip(repo)).toBe(before)
    })
  }

  it('says so in words without --json', async () => {
    const human = await run(repo, ['edit', id, '--title', 'x', '--if-revision', '1', '--as', 'carol'])
    expect(human.code).toBe(4)
    expect(human.stderr).toMatch(/^error: tsk-\w+ is at revision 2, not 1: it was changed 1 time since, last by bob at .*retry with --if-revision 2\n$/)
  })

  it('with the current revision each applies, and the next guard must name the new revision', async () => {
    let revision = 2
    const steps: string[][] = [
      ['edit', id, '--title', 'current read'],
      ['deps', id, other],
      ['assign', id, 'carol'],
    ]
    for (const step of steps) {
      const out = await runJson(repo, [...step, '--if-revision', String(revision), '--as', 'carol'])
      expect(out.commit).toMatch(/^[0-9a-f]{40}$/)
      expect(out.task.revision).toBe(revision + 1)
      revision = out.task.revision
    }
    const comment = await runJson(repo, ['comment', id, 'still current', '--if-revision', String(revision), '--as', 'carol'])
    expect(comment.comment.body).toBe('still current')
    await runJson(repo, ['done', other, '--as', 'carol'])
    // Its last dependency finished: the card became ready, which bumps its revision in that commit (an unblocked event).
    revision += 1
    const blocked = await runJson(repo, ['block', id, 'needs a decision', '--if-revision', String(revision), '--as', 'carol'])
    expect(blocked.task).toMatchObject({status: 'blocked', revision: revision + 1})
    const r = await run(repo, ['edit', id, '--title', 'late', '--if-revision', String(revision), '--json', '--as', 'carol'])
    expect(jsonError(r)).toMatchObject({code: 'revision_mismatch', revision: revision + 1, expected: revision})
  })

  it('names one card: with several ids it is a usage error, and it takes a whole number', async () => {
    const several = await run(repo, ['assign', id, other, 'dave', '--if-revision', '2', '--json'])
    expect(several.code).toBe(2)
    expect(jsonError(several).message).toContain('single ID')
    const bad = await run(repo, ['edit', id, '--title', 'x', '--if-revision', 'two', '--json'])
    expect(bad.code).toBe(2)
  })
})

describe('checkpoints', () => {
  let repo: string
  let id: string
  const at = (iso: string) => ({TASKS_NOW: iso})

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    id = (await runJson(repo, ['add', 'handed-over work'])).task.id
  })

  it('only the holder records one; it needs --summary and --next', async () => {
    const todo = await run(repo, ['checkpoint', id, '--summary', 's', '--next', 'n', '--json', '--as', 'a1'])
    expect(todo.code).toBe(4)
    expect(jsonError(todo).code).toBe('not_claimed')
    await runJson(repo, ['claim', id, '--as', 'a1'], {env: at('2026-03-01T09:00:00.000Z')})
    const before = tip(repo)
    const other = await run(repo, ['checkpoint', id, '--summary', 's', '--next', 'n', '--json', '--as', 'a2'])
    expect(other.code).toBe(6)
    expect(jsonError(other).code).toBe('not_owner')
    const noNext = await run(repo, ['checkpoint', id, '--summary', 's', '--json', '--as', 'a1'])
    expect(noNext.code).toBe(2)
    const empty = await run(repo, ['checkpoint', id, '--summary', '  ', '--next', 'n', '--json', '--as', 'a1'])
    expect(empty.code).toBe(5)
    expect(jsonError(empty).code).toBe('empty_summary')
    expect(tip(repo)).toBe(before)
  })

  it('records summary, next step and session in one commit that also renews the lease', async () => {
    const out = await runJson(repo, ['checkpoint', id, '--summary', 'tokenizer done\n\nsee src/lex.ts', '--next', 'parse | expressions', '--as', 'a1'], {
      env: {...at('2026-03-01T09:30:00.000Z'), TASKS_SESSION: 'sess-1'},
    })
    expect(out.checkpoint).toMatchObject({kind: 'checkpoint', author: 'a1', body: 'tokenizer done\n\nsee src/lex.ts', next: 'parse | expressions', session: 'sess-1', epoch: 1})
    expect(out.task.lease_expires).toBe('2026-03-01T10:30:00.000Z')
    const files = gitSync(repo, ['show', '--name-only', '--format=%B', REF])
    expect(files).toContain('Tasks-Op: checkpoint')
    expect(files).toMatch(/\/task\.md$/m)
    const commentPath = files.split('\n').find((l) => l.includes('/comments/'))!
    const stored = gitSync(repo, ['show', `${REF}:${commentPath}`])
    expect(stored).toBe(
      '---\nkind: "checkpoint"\nauthor: "a1"\ncreated_at: "2026-03-01T09:30:00.000Z"\nepoch: 1\nsession: "sess-1"\nnext: "parse | expressions"\n---\ntokenizer done\n\nsee src/lex.ts\n',
    )
  })

  it('release --summary --next records one in the release commit; show returns the newest first', async () => {
    const half = await run(repo, ['release', id, '--summary', 'only half', '--json', '--as', 'a1'])
    expect(half.code).toBe(2)
    const out = await runJson(repo, ['release', id, '--summary', 'lexer and half the parser', '--next', 'finish binary operators', '--as', 'a1'], {env: at('2026-03-01T10:00:00.000Z')})
    expect(out.released[0].status).toBe('todo')
    expect(gitSync(repo, ['log', '-1', '--format=%B', REF])).toContain('Tasks-Op: release')
    expect(gitSync(repo, ['show', '--name-only', '--format=', REF])).toMatch(/comments\//)
    const r = await run(repo, ['show', id, '--json'])
    expect(r.stdout.startsWith('{"checkpoint":{')).toBe(true)
    const shown = JSON.parse(r.stdout)
    expect(shown.checkpoint).toMatchObject({author: 'a1', body: 'lexer and half the parser', next: 'finish binary operators'})
    expect(shown.comments.filter((c: {kind: string}) => c.kind === 'checkpoint')).toHaveLength(2)
    const text = await run(repo, ['show', id])
    expect(text.stdout).toMatch(/Checkpoint .*a1\n {2}lexer and half the parser\n {2}next: finish binary operators/)
  })

  it('survives a new claim, an expired lease and a takeover: next --json returns it first', async () => {
    const claimed = await runJson(repo, ['next', '--as', 'a2'], {env: at('2026-03-01T11:00:00.000Z')})
    expect(Object.keys(claimed)[0]).toBe('checkpoint')
    expect(claimed.checkpoint).toMatchObject({author: 'a1', next: 'finish binary operators'})
    expect(claimed.task.owner).toBe('a2')
    // a2 vanishes; its lease runs out; a3 takes the stranded claim over.
    const taken = await runJson(repo, ['next', '--as', 'a3'], {env: at('2026-03-01T13:00:00.000Z')})
    expect(taken.took_over_from).toBe('a2')
    expect(taken.checkpoint).toMatchObject({author: 'a1', body: 'lexer and half the parser', next: 'finish binary operators'})
    // a3 resumes after losing its context: the same item, the same checkpoint first.
    const resumed = await runJson(repo, ['next', '--as', 'a3'], {env: at('2026-03-01T13:10:00.000Z')})
    expect(resumed.resumed).toBe(true)
    expect(resumed.checkpoint.next).toBe('finish binary operators')
    const human = await run(repo, ['next', '--as', 'a3'], {env: at('2026-03-01T13:11:00.000Z')})
    expect(human.stdout).toContain('last checkpoint (a1, 2026-03-01T10:00:00.000Z): lexer and half the parser\nnext: finish binary operators')
  })

  it('done --summary records a closing checkpoint (no next step) in the done commit', async () => {
    const out = await runJson(repo, ['done', id, '--summary', 'parser complete, 40 tests', '--as', 'a3'], {env: at('2026-03-01T14:00:00.000Z')})
    expect(out.task.status).toBe('done')
    expect(gitSync(repo, ['log', '-1', '--format=%B', REF])).toContain('Tasks-Op: done')
    const shown = await runJson(repo, ['show', id])
    expect(shown.checkpoint).toMatchObject({author: 'a3', body: 'parser complete, 40 tests', epoch: 3})
    expect(shown.checkpoint.next).toBeUndefined()
    // A repeat by the finisher changes nothing but keeps what was typed.
    const again = await runJson(repo, ['done', id, '--summary', 'also updated the docs', '--as', 'a3'])
    expect(again.changed).toBe(false)
    expect((await runJson(repo, ['show', id])).checkpoint.body).toBe('also updated the docs')
  })
})

// ------------------------------------------------------------ compact output

type Row = Record<string, string>
const list = (v: string | undefined) => (v ? v.split(',') : [])
const bool = (v: string | undefined) => v === 'y'
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))

/** A compact id (short or full, without tsk-) back to the full id it names among `ids`. */
function resolver(ids: readonly string[]): (short: string | undefined) => string | null {
  return (short) => {
    if (short === undefined) return null
    const hits = ids.filter((id) => id.startsWith(`tsk-${short}`))
    expect(hits, `compact id ${short}`).toHaveLength(1)
    return hits[0]!
  }
}

/** The TaskView a compact row (or a show's scalars) stands for. */
/** Custom fields (issue 33) from show's `fields` text block, one KEY=VALUE a line; a list row has none ({}). */
function fieldsFromCompact(text: string | undefined): Record<string, string> {
  if (!text) return {}
  return Object.fromEntries(text.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
}

function taskFromCompact(r: Row, full: (s: string | undefined) => string | null, fieldsText?: string): Record<string, unknown> {
  const state = r.state!
  const status = ['ready', 'waiting', 'reserved', 'todo'].includes(state) ? 'todo' : state === 'stale' ? 'in_progress' : state
  return {
    id: full(r.id),
    short_id: `tsk-${r.id}`,
    title: r.title,
    status,
    state,
    // An empty type cell is the default type.
    type: r.type ?? 'task',
    priority: num(r.priority),
    tags: list(r.tags),
    parent: full(r.parent),
    subitems: list(r.subitems).map((s) => full(s)),
    progress: r.progress ? {done: Number(r.progress.split('/')[0]), total: Number(r.progress.split('/')[1])} : null,
    depends_on: list(r.depends_on).map((s) => full(s)),
    blocked_by: list(r.blocked_by).map((w) => {
      const m = /^([^:]+):([a-z_]+)(?:@(.+))?$/.exec(w)!
      return {id: full(m[1]), status: m[2], via: m[3] ? full(m[3]) : null}
    }),
    ready: bool(r.ready),
    waiting: bool(r.waiting),
    assignee: r.assignee ?? null,
    owner: r.owner ?? null,
    epoch: num(r.epoch),
    claimed_at: r.claimed_at ?? null,
    lease_expires: r.lease_expires ?? null,
    claim_live: bool(r.claim_live),
    session: r.session ?? null,
    work_session: r.work_session ?? null,
    blocked_on: r.blocked_on ?? null,
    flag: r.flag === undefined ? null : {reason: r.flag, by: r.flagged_by ?? null, at: r.flagged_at ?? null},
    block_note: r.block_note ?? null,
    cancel_reason: r.cancel_reason ?? null,
    closed_at: r.closed_at ?? null,
    key: r.key ?? null,
    collaborators: list(r.collaborators),
    subscribers: list(r.subscribers),
    notify_roles: list(r.notify_roles),
    notify_mute: list(r.notify_mute),
    created_at: r.created_at,
    created_by: r.created_by,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
    revision: num(r.revision),
    // Issue 33.
    defer_reason: r.defer_reason ?? null,
    defer_until: r.defer_until ?? null,
    fail_reason: r.fail_reason ?? null,
    due: r.due ?? null,
    scheduled: r.scheduled ?? null,
    every: r.every ?? null,
    previous: full(r.previous),
    overdue: bool(r.overdue),
    fields: fieldsFromCompact(fieldsText),
  }
}

function commentFromCompact(r: Row, task: string): Record<string, unknown> {
  const stamp = r.created_at!.replace(/[-:]/g, '')
  return {
    id: /^[0-9a-f]{8}$/.test(r.id!) ? `${stamp}-${r.id}` : r.id,
    task,
    kind: r.kind,
    author: r.author,
    created_at: r.created_at,
    body: r.body,
    ...(r.epoch !== undefined ? {epoch: Number(r.epoch)} : {}),
    ...(r.session !== undefined ? {session: r.session} : {}),
    ...(r.next !== undefined ? {next: r.next} : {}),
  }
}

describe('--format compact', () => {
  let repo: string
  const ids: Record<string, string> = {}
  const env = {TASKS_NOW: '2026-05-01T12:00:00.000Z'}

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    const add = async (name: string, args: string[]) => (ids[name] = (await runJson(repo, ['add', ...args], {env})).task.id)
    await add('base', ['Design the | pipe API', '-p', '1', '-t', 'api,design', '--body', 'Line one\nwith a back\\slash\n\n| a | table |', '--key', 'design-key'])
    await add('parent', ['Parent item', '-t', 'epic'])
    await add('child', ['Child of parent', '--parent', ids.parent!])
    await add('waits', ['Waits on base', '--depends-on', ids.base!])
    await add('reserved', ['Reserved item', '-p', '0'])
    await add('blocked', ['Blocked item'])
    await add('doneItem', ['Done item'])
    await add('cancelled', ['Cancelled item'])
    await add('childDeps', ['Sub-item waiting via parent', '--parent', ids.waits!])
    await runJson(repo, ['assign', ids.reserved!, 'someone-else'], {env})
    await runJson(repo, ['claim', ids.base!, '--as', 'agent-1'], {env})
    await runJson(repo, ['checkpoint', ids.base!, '--summary', 'half | done', '--next', 'the rest\nand more', '--session', 's9', '--as', 'agent-1'], {env})
    await runJson(repo, ['comment', ids.base!, 'a note with\ttab and \\ and |', '--kind', 'decision'], {env})
    await runJson(repo, ['block', ids.blocked!, 'needs a key\nfrom ops | team', '--as', 'agent-2'], {env})
    await runJson(repo, ['done', ids.doneItem!], {env})
    await runJson(repo, ['check', 'add', ids.parent!, '--acceptance', 'the | parent, checked'], {env})
    await runJson(repo, ['flag', ids.waits!, 'spec, unclear | ask'], {env})
    await runJson(repo, ['collab', 'add', ids.waits!, 'bob'], {env})
    await runJson(repo, ['watch', ids.waits!, '--as', 'carol'], {env})
    await runJson(repo, ['cancel', ids.cancelled!, '--reason', 'dup of base'], {env})
    // Custom fields (issue 33), with the characters a compact cell or list would have to escape.
    await runJson(repo, ['edit', ids.base!, '--field', 'cmd=a, b | c', '--field', 'host=gpu-01'], {env})
  })

  it('list: the compact rows parse back into every task of list --json, and are at most 40% of its size', async () => {
    const json = await run(repo, ['list', '--all', '--json'], {env: {...env, TASKS_ACTOR: 'agent-1'}})
    const compact = await run(repo, ['list', '--all', '--format', 'compact'], {env: {...env, TASKS_ACTOR: 'agent-1'}})
    expect(compact.code, compact.stderr).toBe(0)
    const data = JSON.parse(json.stdout)
    const doc = parseCompact(compact.stdout)
    expect(doc.comments[0]).toMatch(/^git-tasks compact 1: list/)
    const full = resolver(data.tasks.map((t: {id: string}) => t.id))
    expect(doc.scalars).toMatchObject({list: data.list, commit: data.commit, total: String(data.total)})
    expect(Object.fromEntries(list(doc.scalars.by_state).map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]))).toEqual(data.summary.by_state)
    const rows = doc.tables.tasks!
    expect(rows).toHaveLength(data.tasks.length)
    rows.forEach((row, i) => {
      // A list row leaves the custom fields out (show and next have them as a text block).
      const {depth, fields: _fields, ...view} = data.tasks[i]
      const {fields: _none, ...back} = taskFromCompact(row, full)
      expect(back).toEqual(view)
      // depth: a row under a parent shown in the same table.
      expect(depth).toBe(view.parent && data.tasks.some((t: {id: string}) => t.id === view.parent) ? 1 : 0)
    })
    expect(compact.stdout.length / json.stdout.length).toBeLessThanOrEqual(0.4)
    // TASKS_FORMAT gives the same document; --json still wins over it.
    const viaEnv = await run(repo, ['list', '--all'], {env: {...env, TASKS_ACTOR: 'agent-1', TASKS_FORMAT: 'compact'}})
    expect(viaEnv.stdout).toBe(compact.stdout)
    const jsonWins = await run(repo, ['list', '--all', '--json'], {env: {...env, TASKS_ACTOR: 'agent-1', TASKS_FORMAT: 'compact'}})
    expect(jsonWins.stdout).toBe(json.stdout)
  })

  it('show: checkpoint, fields, body, comments and neighbours parse back into show --json', async () => {
    for (const name of ['base', 'parent', 'waits', 'blocked']) {
      const id = ids[name]!
      const data = JSON.parse((await run(repo, ['show', id, '--json'], {env})).stdout)
      const out = await run(repo, ['show', id, '--format', 'compact'], {env})
      expect(out.code, out.stderr).toBe(0)
      const doc = parseCompact(out.stdout)
      const known = [data.task.id, data.task.parent, ...data.task.depends_on, ...[...data.dependencies, ...data.dependents, ...data.subitems].map((b: {id: string}) => b.id)].filter(Boolean)
      const full = resolver([...new Set<string>(known)])
      const back = {
        checkpoint: doc.tables.checkpoint ? commentFromCompact(doc.tables.checkpoint[0]!, data.task.id) : null,
        task: taskFromCompact(doc.scalars, full, doc.texts.fields),
        body: doc.texts.body ?? '',
        comments: (doc.tables.comments ?? []).map((c) => commentFromCompact(c, data.task.id)),
        checks: (doc.tables.checks ?? []).map((c) => ({...c, task: data.task.id, spec_revision: Number(c.spec_revision)})),
        dependencies: (doc.tables.dependencies ?? []).map((b) => ({id: full(b.id), short_id: `tsk-${b.id}`, title: b.title, status: b.status})),
        dependents: (doc.tables.dependents ?? []).map((b) => ({id: full(b.id), short_id: `tsk-${b.id}`, title: b.title, status: b.status})),
        subitems: (doc.tables.subitems ?? []).map((b) => ({id: full(b.id), short_id: `tsk-${b.id}`, title: b.title, status: b.status})),
        broken: doc.tables.broken ?? [],
      }
      // The body is compared without trailing newlines: compact writes lines.
      expect({...back, body: back.body}).toEqual({...data, body: data.body.replace(/\n+$/, '')})
    }
  })

  it('next: the checkpoint comes first', async () => {
    const out = await run(repo, ['next', '--format', 'compact', '--as', 'agent-1'], {env})
    expect(out.code, out.stderr).toBe(0)
    const lines = out.stdout.split('\n')
    expect(lines[1]).toMatch(/^checkpoint\[1\]\{/)
    const doc = parseCompact(out.stdout)
    expect(doc.tables.checkpoint![0]).toMatchObject({kind: 'checkpoint', body: 'half | done', next: 'the rest\nand more', session: 's9'})
    expect(doc.scalars).toMatchObject({resumed: 'y', already_owned: 'y', title: 'Design the | pipe API'})
  })

  it('log: one row per event; errors stay JSON on stderr; --format and --json must agree', async () => {
    const out = await run(repo, ['log', '-n', '3', '--format', 'compact'], {env})
    const doc = parseCompact(out.stdout)
    expect(doc.tables.events).toHaveLength(3)
    expect(doc.tables.events![0]!.op).toBe('claim')
    const missing = await run(repo, ['show', 'zzzzzz', '--format', 'compact'])
    expect(missing.code).toBe(3)
    expect(jsonError(missing).code).toBe('task_not_found')
    const both = await run(repo, ['list', '--json', '--format', 'compact'])
    expect(both.code).toBe(2)
    const badEnv = await run(repo, ['list'], {env: {TASKS_FORMAT: 'yaml'}})
    expect(badEnv.code).toBe(2)
    expect(badEnv.stderr).toContain('TASKS_FORMAT')
  })
})
