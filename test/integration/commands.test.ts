/**
 * Behaviour of every command on real temporary repositories, through the
 * built CLI exactly as users and agents run it. Repositories are shared
 * within a describe block where the steps build on each other; every CLI
 * call is a separate process (~150 ms), so the blocks keep calls few.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, jsonError, makeRepo, run, runJson, tempDir, type RunOptions} from '../helpers/cli'

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
})

// ---------------------------------------------------------------- helpers

const HAS_SCRIPT = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/** The commit id refs/tasks/<list> points at, or null. */
function tip(repo: string, list = 'main'): string | null {
  try {
    return gitSync(repo, ['rev-parse', '-q', '--verify', `refs/tasks/${list}`]).trim()
  } catch {
    return null
  }
}

/** Options that act as `actor`, optionally at a pinned time (TASKS_NOW). */
function as(actor: string, now?: string, extra: RunOptions = {}): RunOptions {
  return {...extra, env: {TASKS_ACTOR: actor, ...(now ? {TASKS_NOW: now} : {}), ...extra.env}}
}

/** Minutes after a fixed instant, ISO-8601 (for TASKS_NOW). */
function at(minutes: number): string {
  return new Date(Date.UTC(2030, 0, 1, 0, 0, 0) + minutes * 60_000).toISOString()
}

async function newList(): Promise<string> {
  const repo = makeRepo()
  await runJson(repo, ['init'])
  return repo
}

/** `tasks add` as `actor`; returns the TaskView. */
async function add(repo: string, title: string, flags: string[] = [], options: RunOptions = as('alice')): Promise<any> {
  return (await runJson(repo, ['add', title, ...flags], options)).task
}

/** Run a command expected to fail with --json; returns the error object and checks the ref did not move. */
async function refused(repo: string, args: string[], exit: number, code: string, options: RunOptions = as('alice')): Promise<any> {
  const before = tip(repo)
  const r = await run(repo, [...args, '--json'], options)
  expect(r.code, `tasks ${args.join(' ')}: ${r.stderr}`).toBe(exit)
  const e = jsonError(r)
  expect(e.code).toBe(code)
  expect(tip(repo)).toBe(before)
  return e
}

/** The last commit message on the tasks ref. */
function lastMessage(repo: string): string {
  return gitSync(repo, ['log', '-1', '--format=%B', 'refs/tasks/main'])
}

function trailersOf(message: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const line of message.trimEnd().split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9-]*): (.*)$/.exec(line)
    if (m) (out[m[1]!] ??= []).push(m[2]!)
  }
  return out
}

// ---------------------------------------------------------------- init

describe('init', () => {
  it('is deterministic: two separate repositories get the same root commit', async () => {
    const [a, b] = [makeRepo(), makeRepo()]
    const [ra, rb] = await Promise.all([runJson(a, ['init']), runJson(b, ['init'])])
    expect(ra).toMatchObject({list: 'main', ref: 'refs/tasks/main', created: true})
    expect(ra.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(rb.commit).toBe(ra.commit)
    expect(tip(a)).toBe(ra.commit)
    expect(tip(b)).toBe(ra.commit)
    // A root commit with the fixed identity and date, holding meta.yaml and config.yaml.
    expect(gitSync(a, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe('1')
    expect(gitSync(a, ['log', '-1', '--format=%an %at', 'refs/tasks/main']).trim()).toBe('git-tasks 0')
    expect(gitSync(a, ['ls-tree', '--name-only', 'refs/tasks/main']).split('\n').filter(Boolean).sort()).toEqual(['config.yaml', 'meta.yaml'])
    expect(gitSync(a, ['show', 'refs/tasks/main:meta.yaml'])).toBe('format: 1\n')
    // Nothing is checked out: the work tree and HEAD are untouched.
    expect(gitSync(a, ['status', '--porcelain'])).toBe('')
  })

  it('running it twice is harmless and does not move the ref', async () => {
    const repo = makeRepo()
    const first = await runJson(repo, ['init'])
    await add(repo, 'keep me')
    const before = tip(repo)
    const again = await runJson(repo, ['init'])
    expect(again).toEqual({list: 'main', ref: 'refs/tasks/main', commit: before, created: false, remote: null, sync: null, discovered: false})
    expect(tip(repo)).toBe(before)
    expect(before).not.toBe(first.commit)
    const human = await run(repo, ['init'])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/already exists/)
  })

  it('--list NAME creates refs/tasks/NAME, independent of main', async () => {
    const repo = makeRepo()
    const r = await runJson(repo, ['init', '--list', 'release-2'])
    expect(r).toMatchObject({list: 'release-2', ref: 'refs/tasks/release-2', created: true})
    expect(tip(repo, 'main')).toBeNull()
    await add(repo, 'in release-2', ['--list', 'release-2'])
    const l = await runJson(repo, ['list', '--list', 'release-2'])
    expect(l.tasks.map((t: any) => t.title)).toEqual(['in release-2'])
  })
})

// ---------------------------------------------------------------- add

describe('add', () => {
  let repo: string
  beforeAll(async () => {
    repo = await newList()
  })

  it('defaults: todo, priority 2, epoch 0, revision 1, created by the actor, one commit with trailers', async () => {
    const before = tip(repo)
    const r = await runJson(repo, ['add', 'Plain task'], as('alice'))
    expect(r.created).toBe(true)
    expect(r.commit).toBe(tip(repo))
    expect(gitSync(repo, ['rev-parse', `${r.commit}^`]).trim()).toBe(before)
    const t = r.task
    expect(t.id).toMatch(/^tsk-[0-9a-hjkmnp-tv-z]{10}$/)
    expect(t.short_id).toBe(t.id.slice(0, 8))
    expect(t).toMatchObject({title: 'Plain task', status: 'todo', priority: 2, tags: [], parent: null, depends_on: [], epoch: 0, revision: 1, ready: true, waiting: false})
    expect(t).toMatchObject({created_by: 'alice', updated_by: 'alice', owner: null, assignee: null, key: null})
    const msg = lastMessage(repo)
    expect(msg.split('\n')[0]).toBe(`add ${t.id}: Plain task`)
    expect(trailersOf(msg)).toMatchObject({'Tasks-Op': ['add'], Task: [t.id], Actor: ['alice']})
    expect(gitSync(repo, ['log', '-1', '--format=%an', 'refs/tasks/main']).trim()).toBe('alice')
    // Stored at tasks/<xx>/<id>/task.md.
    const files = gitSync(repo, ['ls-tree', '-r', '--name-only', 'refs/tasks/main'])
    expect(files).toMatch(new RegExp(`^tasks/[0-9a-f]{2}/${t.id}/task\\.md$`, 'm'))
  })

  it('--body, --body-file PATH and --body-file - (stdin)', async () => {
    const a = await add(repo, 'With body', ['--body', 'line one\nline two'])
    expect((await runJson(repo, ['show', a.id])).body).toBe('line one\nline two\n')
    const file = join(tempDir('body-'), 'body.md')
    writeFileSync(file, '# From a file\n\n- item\n')
    const b = await add(repo, 'With body file', ['--body-file', file])
    expect((await runJson(repo, ['show', b.id])).body).toBe('# From a file\n\n- item\n')
    const c = await add(repo, 'With stdin body', ['--body-file', '-'], as('alice', undefined, {input: 'piped *text*\nsecond line\n'}))
    expect((await runJson(repo, ['show', c.id])).body).toBe('piped *text*\nsecond line\n')
  })

  it('--tag (repeatable, comma-separated, folded and sorted), --priority, --assignee', async () => {
    const t = await add(repo, 'Tagged', ['--tag', 'ui', '-t', 'backend,api', '--tag', 'ui', '--priority', '0', '--assignee', 'bob'])
    expect(t.tags).toEqual(['api', 'backend', 'ui'])
    expect(t.priority).toBe(0)
    expect(t.assignee).toBe('bob')
    expect(t.ready).toBe(false) // reserved for bob, and alice is looking
  })

  it('--parent makes a sub-item; --depends-on (repeatable) makes it wait', async () => {
    const p = await add(repo, 'Parent')
    const d1 = await add(repo, 'Dep one')
    const d2 = await add(repo, 'Dep two')
    const c = await add(repo, 'Child', ['--parent', p.short_id, '--depends-on', d2.id, '-d', d1.short_id, '-d', d2.id])
    expect(c.parent).toBe(p.id)
    expect(c.depends_on).toEqual([d1.id, d2.id].sort())
    expect(c.waiting).toBe(true)
    expect(c.ready).toBe(false)
    expect(c.blocked_by).toEqual([d1.id, d2.id].sort().map((id) => ({id, status: 'todo', via: null})))
    const shown = await runJson(repo, ['show', p.id])
    expect(shown.task.subitems).toEqual([c.id])
  })

  it('--key is idempotent: same key returns the same id, created:false, nothing written', async () => {
    const first = await runJson(repo, ['add', 'Keyed', '--key', 'deploy-42'], as('alice'))
    expect(first.created).toBe(true)
    expect(first.task.key).toBe('deploy-42')
    const before = tip(repo)
    const again = await runJson(repo, ['add', 'Keyed', '--key', 'deploy-42'], as('bob'))
    expect(again.created).toBe(false)
    expect(again.commit).toBeNull()
    expect(again.task.id).toBe(first.task.id)
    expect(again.task.title).toBe('Keyed')
    expect(tip(repo)).toBe(before)
    // The same key for something else is a conflict naming the item and what differs; nothing written.
    const e = await refused(repo, ['add', 'Keyed (retry, other title)', '--key', 'deploy-42', '-p', '0'], 4, 'key_mismatch', as('bob'))
    expect(e).toMatchObject({id: first.task.id, key: 'deploy-42', fields: ['title', 'priority']})
    await refused(repo, ['add', 'Keyed', '--key', 'deploy-42', '--body', 'another description'], 4, 'key_mismatch', as('bob'))
    expect(tip(repo)).toBe(before)
    const other = await runJson(repo, ['add', 'Keyed', '--key', 'deploy-43'], as('alice'))
    expect(other.task.id).not.toBe(first.task.id)
    // The same key gives the same id in another repository too (same list name).
    const elsewhere = await newList()
    expect((await runJson(elsewhere, ['add', 'Keyed', '--key', 'deploy-42'])).task.id).toBe(first.task.id)
  })

  it('human output names the task', async () => {
    const r = await run(repo, ['add', 'Human readable'], as('alice'))
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^added tsk-[0-9a-z]{4,}\s+Human readable\n$/)
  })
})

// ---------------------------------------------------------------- list and show

describe('list and show', () => {
  let repo: string
  const t: Record<string, any> = {}

  beforeAll(async () => {
    repo = await newList()
    const A = (min: number) => as('alice', at(min))
    t.parent = await add(repo, 'Parent', ['--tag', 'api', '-p', '1', '--body', 'The parent body.'], A(1))
    t.child1 = await add(repo, 'Child one', ['--parent', t.parent.id, '-p', '3'], A(2))
    t.child2 = await add(repo, 'Child two', ['--parent', t.parent.id, '-p', '0', '--tag', 'api'], A(3))
    t.dep = await add(repo, 'Dependency', [], A(4))
    t.waiter = await add(repo, 'Waiter', ['--depends-on', t.dep.id, '--tag', 'api,ui'], A(5))
    t.claimed = await add(repo, 'Claimed by carol', [], A(6))
    t.reserved = await add(repo, 'Reserved for bob', ['--assignee', 'bob'], A(7))
    t.finished = await add(repo, 'Finished', [], A(8))
    t.cancelled = await add(repo, 'Cancelled', [], A(9))
    t.blocked = await add(repo, 'Blocked', [], A(10))
    await runJson(repo, ['claim', t.claimed.id], as('carol', at(11)))
    await runJson(repo, ['done', t.finished.id], as('alice', at(12)))
    await runJson(repo, ['cancel', t.cancelled.id, '--reason', 'dropped'], as('alice', at(13)))
    await runJson(repo, ['block', t.blocked.id, 'waiting on legal'], as('alice', at(14)))
    await runJson(repo, ['comment', t.parent.id, 'first note'], as('bob', at(15)))
    await runJson(repo, ['comment', t.parent.id, 'we chose X', '--kind', 'decision'], as('carol', at(16)))
  })

  const ids = (l: any) => l.tasks.map((x: any) => x.id)
  const list = (args: string[] = [], actor = 'alice') => runJson(repo, ['list', ...args], as(actor, at(30)))

  it('default: open items only; sub-items right after their parent with depth 1', async () => {
    const l = await list()
    expect(l.list).toBe('main')
    expect(l.commit).toBe(tip(repo))
    expect(l.broken).toEqual([])
    expect(ids(l)).not.toContain(t.finished.id)
    expect(ids(l)).not.toContain(t.cancelled.id)
    const open = ['parent', 'child1', 'child2', 'dep', 'waiter', 'claimed', 'reserved', 'blocked'].map((k) => t[k].id)
    expect([...ids(l)].sort()).toEqual(open.sort())
    const i = ids(l).indexOf(t.parent.id)
    expect(l.tasks[i].depth).toBe(0)
    // Children follow, ordered by priority: child2 (p0) then child1 (p3).
    expect(ids(l).slice(i + 1, i + 3)).toEqual([t.child2.id, t.child1.id])
    expect(l.tasks[i + 1].depth).toBe(1)
    expect(l.tasks[i + 2].depth).toBe(1)
    for (const row of l.tasks) if (row.parent === null) expect(row.depth).toBe(0)
  })

  it('--status (single, comma-separated, open, all) and --all', async () => {
    expect(ids(await list(['--status', 'done']))).toEqual([t.finished.id])
    expect(ids(await list(['--status', 'cancelled']))).toEqual([t.cancelled.id])
    expect([...ids(await list(['--status', 'in_progress,blocked']))].sort()).toEqual([t.claimed.id, t.blocked.id].sort())
    expect([...ids(await list(['--status', 'blocked', '--status', 'done']))].sort()).toEqual([t.blocked.id, t.finished.id].sort())
    const all = await list(['--all'])
    expect(all.tasks).toHaveLength(Object.keys(t).length)
    expect(ids(await list(['--status', 'all']))).toEqual(ids(all))
    expect(ids(await list(['--status', 'open']))).toEqual(ids(await list()))
  })

  it('--status ready and waiting: the derived states, alone or with stored statuses', async () => {
    const ready = await list(['--status', 'ready'])
    expect(ids(ready)).toEqual(ids(await list(['--ready'])))
    for (const row of ready.tasks) expect(row, row.id).toMatchObject({ready: true})
    expect(ids(ready)).toContain(t.dep.id)
    expect(ids(ready)).not.toContain(t.waiter.id)
    expect(ids(await list(['--status', 'waiting']))).toEqual([t.waiter.id])
    expect([...ids(await list(['--status', 'waiting,done']))].sort()).toEqual([t.waiter.id, t.finished.id].sort())
    await refused(repo, ['list', '--status', 'soon'], 2, 'bad_status', as('alice', at(30)))
  })

  it('--tag (all given tags must match), --owner, --assignee', async () => {
    const api = await list(['--tag', 'api'])
    expect([...ids(api)].sort()).toEqual([t.parent.id, t.child2.id, t.waiter.id].sort())
    expect(ids(await list(['--tag', 'api', '--tag', 'ui']))).toEqual([t.waiter.id])
    // child2 is listed at depth 1 under its (also tagged) parent.
    expect(api.tasks.find((x: any) => x.id === t.child2.id).depth).toBe(1)
    expect(ids(await list(['--owner', 'carol']))).toEqual([t.claimed.id])
    // --owner narrows the default open view like every filter; --all widens it: alice finished one item and blocked another.
    expect(ids(await list(['--owner', 'alice']))).toEqual([t.blocked.id])
    expect([...ids(await list(['--owner', 'alice', '--all']))].sort()).toEqual([t.finished.id, t.blocked.id].sort())
    expect(ids(await list(['--owner', '@me'], 'carol'))).toEqual([t.claimed.id])
    expect(ids(await list(['--assignee', 'bob']))).toEqual([t.reserved.id])
  })

  it('a sub-item whose parent is filtered out is listed at depth 0', async () => {
    await runJson(repo, ['claim', t.child1.id], as('dave', at(31)))
    const byOwner = await list(['--owner', 'dave'])
    expect(byOwner.tasks).toEqual([expect.objectContaining({id: t.child1.id, parent: t.parent.id, depth: 0})])
    await runJson(repo, ['release', t.child1.id], as('dave', at(32)))
  })

  it('--ready: todo, dependencies done, not reserved for someone else', async () => {
    const forAlice = ids(await list(['--ready'], 'alice'))
    expect(forAlice).toContain(t.dep.id)
    expect(forAlice).not.toContain(t.waiter.id) // waits on dep
    expect(forAlice).not.toContain(t.reserved.id) // bob's
    expect(forAlice).not.toContain(t.claimed.id)
    expect(forAlice).not.toContain(t.blocked.id)
    expect(ids(await list(['--ready'], 'bob'))).toContain(t.reserved.id)
  })

  it('human output: a table with WHY BLOCKED naming unfinished dependencies and block notes; sub-items indented', async () => {
    const r = await run(repo, ['list'], as('alice', at(30)))
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID\s+P\s+STATUS\s+OWNER\s+TITLE\s+WHY BLOCKED$/)
    const row = (title: string) => lines.find((l) => l.includes(title))!
    expect(row('Waiter')).toContain(`${t.dep.short_id} todo`)
    expect(row('Waiter')).toMatch(/\bwaiting\b/)
    expect(row('Blocked')).toContain('waiting on legal')
    expect(row('Child one')).toContain(`└ ${t.child1.short_id}`)
    expect(row('Claimed by carol')).toContain('carol')
    expect(row('Reserved for bob')).toContain('→bob')
    expect(lines.indexOf(row('Child two'))).toBe(lines.indexOf(row('Parent')) + 1)
    expect(r.stdout).not.toContain('\u001b[')
  })

  // util-linux `script` gives the CLI a terminal, where colour would otherwise be on.
  it.skipIf(!HAS_SCRIPT)('respects NO_COLOR on a terminal (colour otherwise)', async () => {
    const onTty = (noColor: string | undefined) => {
      const env: NodeJS.ProcessEnv = {...TEST_ENV, TASKS_ACTOR: 'alice', TERM: 'xterm'}
      if (noColor === undefined) delete env.NO_COLOR
      else env.NO_COLOR = noColor
      return execFileSync('script', ['-qec', `'${process.execPath}' '${BIN}' list`, '/dev/null'], {cwd: repo, env, encoding: 'utf8'})
    }
    const coloured = onTty(undefined)
    expect(coloured).toContain('Waiter')
    expect(coloured).toContain('\u001b[')
    const plain = onTty('1')
    expect(plain).toContain('Waiter')
    expect(plain).not.toContain('\u001b[')
  })

  it('show: fields, body, comments in order, dependencies, dependents, sub-items', async () => {
    const p = await runJson(repo, ['show', t.parent.short_id], as('alice', at(30)))
    expect(p.task).toMatchObject({id: t.parent.id, title: 'Parent', priority: 1, tags: ['api'], status: 'todo'})
    expect(p.task.subitems.sort()).toEqual([t.child1.id, t.child2.id].sort())
    expect(p.body).toBe('The parent body.\n')
    expect(p.comments.map((c: any) => [c.author, c.kind, c.body])).toEqual([
      ['bob', 'note', 'first note'],
      ['carol', 'decision', 'we chose X'],
    ])
    expect(p.comments[0]).toMatchObject({task: t.parent.id, created_at: at(15)})
    expect(p.subitems.map((s: any) => s.id).sort()).toEqual([t.child1.id, t.child2.id].sort())
    expect(p.subitems[0]).toEqual({id: expect.any(String), short_id: expect.any(String), title: expect.any(String), status: 'todo'})
    expect(p.dependencies).toEqual([])
    const w = await runJson(repo, ['show', t.waiter.id], as('alice', at(30)))
    expect(w.dependencies).toEqual([{id: t.dep.id, short_id: t.dep.short_id, title: 'Dependency', status: 'todo'}])
    expect(w.task.blocked_by).toEqual([{id: t.dep.id, status: 'todo', via: null}])
    const d = await runJson(repo, ['show', t.dep.id], as('alice', at(30)))
    expect(d.dependents).toEqual([{id: t.waiter.id, short_id: t.waiter.short_id, title: 'Waiter', status: 'todo'}])
    const c = await runJson(repo, ['show', t.claimed.id], as('alice', at(30)))
    expect(c.task).toMatchObject({status: 'in_progress', owner: 'carol', epoch: 1, claim_live: true, claimed_at: at(11)})
    const b = await runJson(repo, ['show', t.blocked.id], as('alice', at(30)))
    expect(b.task).toMatchObject({status: 'blocked', block_note: 'waiting on legal', owner: 'alice'})
    const x = await runJson(repo, ['show', t.cancelled.id], as('alice', at(30)))
    expect(x.task).toMatchObject({status: 'cancelled', cancel_reason: 'dropped', closed_at: at(13)})
  })

  it('show, human: the sections people read', async () => {
    const r = await run(repo, ['show', t.parent.id], as('alice', at(30)))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`${t.parent.id}  Parent`)
    expect(r.stdout).toContain('Sub-items')
    expect(r.stdout).toContain('The parent body.')
    expect(r.stdout).toContain('Comments (2)')
    expect(r.stdout).toContain('we chose X')
    const w = await run(repo, ['show', t.waiter.id], as('alice', at(30)))
    expect(w.stdout).toContain('Depends on')
    const d = await run(repo, ['show', t.dep.id], as('alice', at(30)))
    expect(d.stdout).toContain('Needed by')
  })
})

// ---------------------------------------------------------------- claim, start, next

describe('claim and start', () => {
  let repo: string
  let task: any
  beforeAll(async () => {
    repo = await newList()
    task = await add(repo, 'Claim me', [], as('alice', at(0)))
  })

  it('claim: in_progress, owner, epoch + 1, lease from config (1 hour), trailers', async () => {
    const r = await runJson(repo, ['claim', task.short_id], as('alice', at(1)))
    expect(r).toMatchObject({took_over_from: null, already_owned: false})
    expect(r.task).toMatchObject({status: 'in_progress', owner: 'alice', epoch: 1, claimed_at: at(1), lease_expires: at(61), claim_live: true, ready: false, revision: 2})
    expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['claim'], Task: [task.id], Actor: ['alice'], 'Tasks-Epoch': ['1']})
  })

  it('claiming again as the owner renews the lease, same epoch; a shorter --lease keeps the longer live lease', async () => {
    // Issue 32: nothing shortens a longer live lease (before it, this claim cut the lease to at(12)).
    const r = await runJson(repo, ['claim', task.id, '--lease', '120'], as('alice', at(10)))
    expect(r.already_owned).toBe(true)
    expect(r.task).toMatchObject({epoch: 1, lease_expires: at(61)})
  })

  it('someone else is refused while the claim is live (exit 4, names the holder)', async () => {
    const e = await refused(repo, ['claim', task.id], 4, 'already_claimed', as('bob', at(11)))
    expect(e.message).toContain('alice')
    expect(e).toMatchObject({owner: 'alice', epoch: 1})
  })

  it('an expired lease may be taken over: epoch + 1, took_over_from', async () => {
    // After the hour's lease (at(61)) and the clock-skew margin.
    const r = await runJson(repo, ['start', task.id], as('bob', at(70)))
    expect(r.took_over_from).toBe('alice')
    expect(r.task).toMatchObject({owner: 'bob', epoch: 2})
    expect(trailersOf(lastMessage(repo))['Tasks-Takeover']).toEqual(['alice'])
    // The old owner is told its claim was taken over, by whom and at which epoch, and to move on.
    const e = await refused(repo, ['done', task.id], 6, 'claim_taken_over', as('alice', at(71)))
    expect(e).toMatchObject({id: task.id, owner: 'bob', epoch: 2, taken_over_by: 'bob', forced: null})
    expect(e.message).toMatch(/your claim on .* was taken over by bob at epoch 2 .*lease had expired.*tasks next/)
    // With its fencing token the code stays stale_epoch, with the same story.
    const f = await refused(repo, ['release', task.id, '--epoch', '1'], 6, 'stale_epoch', as('alice', at(71)))
    expect(f).toMatchObject({your_epoch: 1, epoch: 2, taken_over_by: 'bob'})
    // Someone who never held it is simply not the owner.
    await refused(repo, ['done', task.id], 6, 'not_owner', as('carol', at(71)))
  })

  it('start is claim under another name', async () => {
    const other = await add(repo, 'Start me', [], as('alice', at(40)))
    const r = await runJson(repo, ['start', other.id], as('carol', at(41)))
    expect(r.task).toMatchObject({status: 'in_progress', owner: 'carol', epoch: 1})
    expect(trailersOf(lastMessage(repo))['Tasks-Op']).toEqual(['claim'])
  })

  it('done, cancelled and waiting items cannot be claimed (exit 4)', async () => {
    const d = await add(repo, 'Done already', [], as('alice', at(50)))
    await runJson(repo, ['done', d.id], as('alice', at(51)))
    await refused(repo, ['claim', d.id], 4, 'not_claimable', as('bob', at(52)))
    const w = await add(repo, 'Waits', ['--depends-on', task.id], as('alice', at(53)))
    const e = await refused(repo, ['claim', w.id], 4, 'waiting', as('bob', at(54)))
    expect(e.blocked_by).toEqual([{id: task.id, status: 'in_progress', via: null}])
  })
})

describe('next', () => {
  let repo: string
  const t: Record<string, any> = {}
  beforeAll(async () => {
    repo = await newList()
    t.a = await add(repo, 'A p2 oldest', [], as('alice', at(1)))
    t.b = await add(repo, 'B p1 older', ['-p', '1'], as('alice', at(2)))
    t.c = await add(repo, 'C p1 newer', ['-p', '1', '--tag', 'ui'], as('alice', at(3)))
    t.w = await add(repo, 'W p0 waits on A', ['-p', '0', '-d', t.a.id], as('alice', at(4)))
    t.r = await add(repo, 'R p0 reserved for bob', ['-p', '0', '--assignee', 'bob'], as('alice', at(5)))
  })

  it('claims by priority, then creation order; skips waiting and reserved items; exit 3 when nothing is ready', async () => {
    const order: string[] = []
    for (let i = 0; i < 3; i++) order.push((await runJson(repo, ['next', '--another'], as('alice', at(10 + i)))).task.id)
    expect(order).toEqual([t.b.id, t.c.id, t.a.id])
    const e = await refused(repo, ['next', '--another'], 3, 'nothing_ready', as('alice', at(20)))
    expect(e).toMatchObject({waiting: 1, reserved: 1})
    const human = await run(repo, ['next', '--another'], as('alice', at(20)))
    expect(human.code).toBe(3)
    expect(human.stderr).toMatch(/^error: nothing is ready/)
    // The text gives the counts the JSON error has.
    expect(human.stderr).toContain(`${e.todo} todo (1 waiting on other work, 1 reserved for someone else), ${e.in_progress} in progress`)
  })

  it('the assignee gets the reserved item; finishing a dependency makes its waiter ready', async () => {
    expect((await runJson(repo, ['next'], as('bob', at(21)))).task.id).toBe(t.r.id)
    await runJson(repo, ['done', t.a.id], as('alice', at(22)))
    const n = await runJson(repo, ['next', '--another'], as('alice', at(23)))
    expect(n.task.id).toBe(t.w.id)
    expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['claim'], 'Tasks-Via': ['next']})
  })

  it('--tag restricts; a parent with open sub-items is skipped for its sub-items', async () => {
    const repo2 = await newList()
    const p = await add(repo2, 'Parent p0', ['-p', '0', '--tag', 'x'], as('alice', at(1)))
    const s = await add(repo2, 'Sub p4', ['-p', '4', '--parent', p.id], as('alice', at(2)))
    await add(repo2, 'Other p1', ['-p', '1'], as('alice', at(3)))
    await refused(repo2, ['next', '--tag', 'x'], 3, 'nothing_ready', as('alice', at(4)))
    const first = await runJson(repo2, ['next'], as('alice', at(5)))
    expect(first.task.title).toBe('Other p1')
    expect((await runJson(repo2, ['next', '--another'], as('alice', at(6)))).task.id).toBe(s.id)
  })

  it('is safe to retry: resumes the caller’s own claim (resumed: true, lease renewed) until --another', async () => {
    const r = await newList()
    const x = await add(r, 'X p1', ['-p', '1', '--body', 'the plan'], as('alice', at(1)))
    const y = await add(r, 'Y p2', [], as('alice', at(2)))
    await runJson(r, ['comment', x.id, 'first note'], as('alice', at(3)))
    const first = await runJson(r, ['next'], as('agent-1', at(4)))
    expect(first).toMatchObject({resumed: false, body: 'the plan\n', comment_count: 1})
    expect(first.task.id).toBe(x.id)
    expect(first.comments.map((c: any) => c.body)).toEqual(['first note'])
    // The agent crashed and runs next again: the same item, same epoch, lease renewed.
    const retry = await runJson(r, ['next'], as('agent-1', at(60)))
    expect(retry).toMatchObject({resumed: true, already_owned: true})
    expect(retry.task).toMatchObject({id: x.id, epoch: 1, lease_expires: at(120)})
    const human = await run(r, ['next'], as('agent-1', at(61)))
    expect(human.stdout).toMatch(/^resumed /)
    const more = await runJson(r, ['next', '--another'], as('agent-1', at(62)))
    expect(more).toMatchObject({resumed: false})
    expect(more.task.id).toBe(y.id)
    // Another agent is not resumed onto agent-1's work.
    await refused(r, ['next'], 3, 'nothing_ready', as('agent-2', at(63)))
  })

  it('an item reserved for the caller comes before unreserved items of any priority', async () => {
    const r = await newList()
    await add(r, 'Urgent, unreserved', ['-p', '0'], as('alice', at(1)))
    const mine = await add(r, 'Low, reserved for me', ['-p', '4', '--assignee', 'agent-1'], as('alice', at(2)))
    expect((await runJson(r, ['next'], as('agent-1', at(3)))).task.id).toBe(mine.id)
    expect((await runJson(r, ['next'], as('agent-2', at(4)))).task.title).toBe('Urgent, unreserved')
  })
})

describe('one readiness rule for list, show, next, claim and done', () => {
  it('a parent whose sub-items are all claimed is not ready anywhere, and cannot be claimed as work', async () => {
    const r = await newList()
    const p = await add(r, 'Epic', ['-p', '0'], as('alice', at(1)))
    const s1 = await add(r, 'Part 1', ['--parent', p.id], as('alice', at(2)))
    const s2 = await add(r, 'Part 2', ['--parent', p.id], as('alice', at(3)))
    await runJson(r, ['claim', s1.id], as('a1', at(4)))
    await runJson(r, ['claim', s2.id], as('a2', at(5)))
    const ready = await runJson(r, ['list', '--ready'], as('a3', at(6)))
    expect(ready.tasks.map((t: any) => t.id)).toEqual([])
    expect((await runJson(r, ['show', p.id], as('a3', at(6)))).task).toMatchObject({ready: false, waiting: false})
    await refused(r, ['next'], 3, 'nothing_ready', as('a3', at(6)))
    const e = await refused(r, ['claim', p.id], 4, 'open_subitems', as('a3', at(6)))
    expect(e.subitems.map((x: any) => x.id).sort()).toEqual([s1.id, s2.id].sort())
    // Once the sub-items are finished the parent is ready work again.
    await runJson(r, ['done', s1.id], as('a1', at(7)))
    await runJson(r, ['done', s2.id], as('a2', at(8)))
    expect((await runJson(r, ['show', p.id], as('a3', at(9)))).task.ready).toBe(true)
    expect((await runJson(r, ['next'], as('a3', at(9)))).task.id).toBe(p.id)
  })

  it('a sub-item waits for its parent’s dependencies (blocked_by names them via the parent)', async () => {
    const r = await newList()
    const b = await add(r, 'Blocker', ['-p', '3'], as('alice', at(1)))
    const p = await add(r, 'Parent', ['-p', '0', '--depends-on', b.id], as('alice', at(2)))
    const s = await add(r, 'Sub', ['-p', '0', '--parent', p.id], as('alice', at(3)))
    const shown = (await runJson(r, ['show', s.id], as('bob', at(4)))).task
    expect(shown).toMatchObject({ready: false, waiting: true, blocked_by: [{id: b.id, status: 'todo', via: p.id}]})
    const waiting = await runJson(r, ['list', '--status', 'waiting'], as('bob', at(4)))
    expect(waiting.tasks.map((t: any) => t.id).sort()).toEqual([p.id, s.id].sort())
    expect((await runJson(r, ['list', '--ready'], as('bob', at(4)))).tasks.map((t: any) => t.id)).toEqual([b.id])
    const e = await refused(r, ['claim', s.id], 4, 'waiting', as('bob', at(4)))
    expect(e.message).toContain(`a dependency of its parent ${p.id}`)
    await refused(r, ['done', s.id], 4, 'waiting', as('bob', at(4)))
    // next hands out the blocker, not the sub-item, though the sub-item has the higher priority.
    expect((await runJson(r, ['next'], as('bob', at(5)))).task.id).toBe(b.id)
    await runJson(r, ['done', b.id], as('bob', at(6)))
    expect((await runJson(r, ['next'], as('carol', at(7)))).task.id).toBe(s.id)
    const human = await run(r, ['list'], as('carol', at(8)))
    expect(human.code).toBe(0)
  })
})

// ---------------------------------------------------------------- done, block, reopen, release, heartbeat, cancel

describe('done', () => {
  let repo: string
  beforeAll(async () => {
    repo = await newList()
  })

  it('finishes the actor’s claim: done, closed_at, lease cleared, owner kept', async () => {
    const t = await add(repo, 'Finish me', [], as('alice', at(0)))
    await runJson(repo, ['claim', t.id], as('alice', at(1)))
    const r = await runJson(repo, ['done', t.id], as('alice', at(2)))
    expect(r.changed).toBe(true)
    expect(r.task).toMatchObject({status: 'done', owner: 'alice', epoch: 1, closed_at: at(2), lease_expires: null, claim_live: false})
    expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['done'], Task: [t.id]})
    const again = await runJson(repo, ['done', t.id], as('alice', at(3)))
    expect(again).toMatchObject({changed: false, commit: null})
  })

  it('a ready todo item is claimed and finished in one step', async () => {
    const t = await add(repo, 'One step', [], as('alice', at(4)))
    const r = await runJson(repo, ['done', t.id], as('bob', at(5)))
    expect(r.task).toMatchObject({status: 'done', owner: 'bob', epoch: 1})
  })

  it('is refused while sub-items are open (exit 4), and allowed once they are finished', async () => {
    const p = await add(repo, 'Parent', [], as('alice', at(6)))
    const s1 = await add(repo, 'Sub one', ['--parent', p.id], as('alice', at(7)))
    const s2 = await add(repo, 'Sub two', ['--parent', p.id], as('alice', at(8)))
    const e = await refused(repo, ['done', p.id], 4, 'open_subitems', as('alice', at(9)))
    expect(e.subitems.map((s: any) => s.id).sort()).toEqual([s1.id, s2.id].sort())
    await runJson(repo, ['done', s1.id], as('alice', at(10)))
    await runJson(repo, ['cancel', s2.id, '--reason', 'not needed'], as('alice', at(11)))
    expect((await runJson(repo, ['done', p.id], as('alice', at(12)))).task.status).toBe('done')
  })

  it('is refused while dependencies are unfinished (exit 4), for a todo and for a claimed item', async () => {
    const d = await add(repo, 'Dependency', [], as('alice', at(13)))
    const w = await add(repo, 'Waiter', ['-d', d.id], as('alice', at(14)))
    const e = await refused(repo, ['done', w.id], 4, 'waiting', as('alice', at(15)))
    expect(e.blocked_by).toEqual([{id: d.id, status: 'todo', via: null}])
    await runJson(repo, ['claim', w.id, '--force', '--reason', 'starting early'], as('alice', at(16)))
    await refused(repo, ['done', w.id], 4, 'waiting', as('alice', at(17)))
    await runJson(repo, ['done', d.id], as('alice', at(18)))
    expect((await runJson(repo, ['done', w.id], as('alice', at(19)))).task.status).toBe('done')
  })

  it('someone else’s claim: refused (exit 6) unless --force --reason, which history records', async () => {
    const t = await add(repo, 'Held by carol', [], as('alice', at(20)))
    await runJson(repo, ['claim', t.id], as('carol', at(21)))
    const e = await refused(repo, ['done', t.id], 6, 'not_owner', as('bob', at(22)))
    expect(e.message).toContain('carol')
    const r = await runJson(repo, ['done', t.id, '--force', '--reason', 'carol is on leave'], as('bob', at(23)))
    expect(r.task.status).toBe('done')
    expect(trailersOf(lastMessage(repo))['Tasks-Override']).toEqual(['carol is on leave'])
  })
})

describe('block, reopen, release, heartbeat', () => {
  let repo: string
  let t: any
  beforeAll(async () => {
    repo = await newList()
    t = await add(repo, 'Lifecycle', [], as('alice', at(0)))
  })

  it('block ID REASON: blocked with the note; the owner resumes it with claim', async () => {
    await runJson(repo, ['claim', t.id], as('alice', at(1)))
    const b = await runJson(repo, ['block', t.id, 'waiting on API review'], as('alice', at(2)))
    expect(b.task).toMatchObject({status: 'blocked', block_note: 'waiting on API review', owner: 'alice', epoch: 1})
    await refused(repo, ['claim', t.id], 4, 'blocked', as('bob', at(3)))
    await refused(repo, ['block', t.id, 'mine now'], 6, 'not_owner', as('bob', at(3)))
    const r = await runJson(repo, ['claim', t.id], as('alice', at(4)))
    expect(r.already_owned).toBe(true)
    expect(r.task).toMatchObject({status: 'in_progress', block_note: null, epoch: 1})
  })

  it('block on a todo item claims it for the actor in the same commit', async () => {
    const u = await add(repo, 'Block from todo', [], as('alice', at(5)))
    const b = await runJson(repo, ['block', u.id, 'needs a decision'], as('bob', at(6)))
    expect(b.task).toMatchObject({status: 'blocked', owner: 'bob', epoch: 1, block_note: 'needs a decision'})
  })

  it('heartbeat extends the lease of the holder; others are refused (exit 6)', async () => {
    const claimed = await runJson(repo, ['show', t.id])
    expect(claimed.task.lease_expires).toBe(at(64))
    const h = await runJson(repo, ['heartbeat', t.id], as('alice', at(30)))
    expect(h.task).toMatchObject({lease_expires: at(90), epoch: 1, revision: claimed.task.revision + 1})
    expect(trailersOf(lastMessage(repo))['Tasks-Op']).toEqual(['heartbeat'])
    // Issue 32: a shorter --lease keeps the longer live lease, and says so; a longer one is granted.
    const h2 = await runJson(repo, ['heartbeat', t.id, '--lease', '300'], as('alice', at(31)))
    expect(h2).toMatchObject({lease_kept: true, lease_asked: at(36), task: {lease_expires: at(90)}})
    const h3 = await runJson(repo, ['heartbeat', t.id, '--lease', '2h'], as('alice', at(31)))
    expect(h3).toMatchObject({lease_kept: false, task: {lease_expires: at(151)}})
    await refused(repo, ['heartbeat', t.id], 6, 'not_owner', as('bob', at(32)))
    await refused(repo, ['heartbeat', t.id, '--epoch', '7'], 6, 'stale_epoch', as('alice', at(32)))
  })

  it('release ID: back to todo, owner cleared, epoch kept', async () => {
    await refused(repo, ['release', t.id], 6, 'not_owner', as('bob', at(33)))
    const r = await runJson(repo, ['release', t.id], as('alice', at(33)))
    expect(r.released).toHaveLength(1)
    expect(r.released[0]).toMatchObject({id: t.id, status: 'todo', owner: null, lease_expires: null, claimed_at: null, epoch: 1})
    await refused(repo, ['release', t.id], 4, 'not_claimed', as('alice', at(34)))
  })

  it('release --all releases every item the actor holds, in one commit, and only theirs', async () => {
    const mine = [await add(repo, 'Mine 1', [], as('alice', at(40))), await add(repo, 'Mine 2', [], as('alice', at(41)))]
    const theirs = await add(repo, 'Theirs', [], as('alice', at(42)))
    for (const m of mine) await runJson(repo, ['claim', m.id], as('dave', at(43)))
    await runJson(repo, ['claim', theirs.id], as('erin', at(43)))
    const before = tip(repo)
    const r = await runJson(repo, ['release', '--all'], as('dave', at(44)))
    expect(r.released.map((x: any) => x.id).sort()).toEqual(mine.map((m) => m.id).sort())
    expect(gitSync(repo, ['rev-parse', `${tip(repo)}^`]).trim()).toBe(before)
    expect(trailersOf(lastMessage(repo)).Task!.sort()).toEqual(mine.map((m) => m.id).sort())
    expect((await runJson(repo, ['show', theirs.id])).task.owner).toBe('erin')
    const none = await runJson(repo, ['release', '--all'], as('dave', at(45)))
    expect(none).toEqual({released: [], commit: null, published: false})
  })

  it('reopen: a done item goes back to todo with no owner; todo and cancelled items are refused (exit 4)', async () => {
    const u = await add(repo, 'Reopen me', [], as('alice', at(50)))
    await runJson(repo, ['done', u.id], as('alice', at(51)))
    const r = await runJson(repo, ['reopen', u.id], as('bob', at(52)))
    expect(r.task).toMatchObject({status: 'todo', owner: null, closed_at: null, ready: true})
    expect(trailersOf(lastMessage(repo))['Tasks-Op']).toEqual(['reopen'])
    await refused(repo, ['reopen', u.id], 4, 'already_open', as('bob', at(53)))
    await runJson(repo, ['cancel', u.id, '--reason', 'obsolete'], as('bob', at(54)))
    await refused(repo, ['reopen', u.id], 4, 'terminal', as('bob', at(55)))
  })
})

describe('cancel', () => {
  it('--reason cancels the item and cascades to its open sub-items; finished ones stay', async () => {
    const repo = await newList()
    const p = await add(repo, 'Epic', [], as('alice', at(0)))
    const s1 = await add(repo, 'Open sub', ['--parent', p.id], as('alice', at(1)))
    const s2 = await add(repo, 'Claimed sub', ['--parent', p.id], as('alice', at(2)))
    const s3 = await add(repo, 'Done sub', ['--parent', p.id], as('alice', at(3)))
    await runJson(repo, ['claim', s2.id], as('alice', at(4)))
    await runJson(repo, ['done', s3.id], as('alice', at(5)))
    const r = await runJson(repo, ['cancel', p.id, '--reason', 'descoped'], as('alice', at(6)))
    expect(r.task).toMatchObject({id: p.id, status: 'cancelled', cancel_reason: 'descoped', closed_at: at(6)})
    expect(r.subitems.map((s: any) => s.id).sort()).toEqual([s1.id, s2.id].sort())
    for (const s of r.subitems) expect(s).toMatchObject({status: 'cancelled', cancel_reason: `parent ${p.id} cancelled: descoped`})
    expect((await runJson(repo, ['show', s3.id])).task.status).toBe('done')
    expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['cancel'], 'Tasks-Reason': ['descoped']})
    await refused(repo, ['cancel', p.id, '--reason', 'again'], 4, 'not_open')
    const noReason = await run(repo, ['cancel', s3.id, '--json'], as('alice'))
    expect(noReason.code).toBe(2)
  })
})

// ---------------------------------------------------------------- edit, assign, deps, comment, rm, log

describe('edit', () => {
  it('changes title, body, priority and tags, reporting the fields; unchanged input writes nothing', async () => {
    const repo = await newList()
    const t = await add(repo, 'Before', ['--tag', 'a,b', '--body', 'old body'])
    const r = await runJson(repo, ['edit', t.id, '--title', 'After', '--priority', '0', '--tag', 'c', '--untag', 'a'], as('bob'))
    expect(r.fields.sort()).toEqual(['priority', 'tags', 'title'])
    expect(r.task).toMatchObject({title: 'After', priority: 0, tags: ['b', 'c'], revision: 2, updated_by: 'bob'})
    expect(trailersOf(lastMessage(repo))['Tasks-Fields']).toEqual(['title, priority, tags'])
    expect((await runJson(repo, ['show', t.id])).body).toBe('old body\n') // body kept when not given
    const b = await runJson(repo, ['edit', t.id, '--body-file', '-'], as('bob', undefined, {input: 'new body\n'}))
    expect(b.fields).toEqual(['body'])
    expect((await runJson(repo, ['show', t.id])).body).toBe('new body\n')
    const before = tip(repo)
    const same = await runJson(repo, ['edit', t.id, '--title', 'After', '-p', '0'], as('bob'))
    expect(same).toMatchObject({fields: [], commit: null})
    expect(tip(repo)).toBe(before)
    await refused(repo, ['edit', t.id], 2, 'usage')
  })
})

describe('assign', () => {
  it('reserves an item: someone else’s claim exits 4 (reserved), the assignee may claim; --none clears', async () => {
    const repo = await newList()
    const t = await add(repo, 'For bob')
    const a = await runJson(repo, ['assign', t.id, 'bob'], as('alice'))
    expect(a.task.assignee).toBe('bob')
    expect(trailersOf(lastMessage(repo))['Tasks-Assignee']).toEqual(['bob'])
    const e = await refused(repo, ['claim', t.id], 4, 'reserved', as('carol'))
    expect(e.message).toContain('bob')
    await refused(repo, ['done', t.id], 4, 'reserved', as('carol'))
    const l = await runJson(repo, ['list', '--ready'], as('carol'))
    expect(l.tasks).toEqual([])
    const cleared = await runJson(repo, ['assign', t.id, '--none'], as('alice'))
    expect(cleared.task.assignee).toBeNull()
    expect((await runJson(repo, ['claim', t.id], as('carol'))).task.owner).toBe('carol')
    const again = await runJson(repo, ['assign', t.id, '--none'], as('alice'))
    expect(again.commit).toBeNull()
    const u = await add(repo, 'For dave', ['--assignee', 'dave'])
    expect((await runJson(repo, ['claim', u.id], as('dave'))).task.owner).toBe('dave')
  })
})

describe('deps', () => {
  let repo: string
  const t: Record<string, any> = {}
  beforeAll(async () => {
    repo = await newList()
    for (const k of ['a', 'b', 'c', 'd']) t[k] = await add(repo, `Task ${k.toUpperCase()}`)
  })

  it('replaces the set (sorted, duplicates folded); no ids clears it', async () => {
    const r = await runJson(repo, ['deps', t.a.id, t.c.short_id, t.b.id, t.b.short_id])
    expect(r.task.depends_on).toEqual([t.b.id, t.c.id].sort())
    expect(r.task.waiting).toBe(true)
    const replaced = await runJson(repo, ['deps', t.a.id, t.d.id])
    expect(replaced.task.depends_on).toEqual([t.d.id])
    const cleared = await runJson(repo, ['deps', t.a.id])
    expect(cleared.task).toMatchObject({depends_on: [], waiting: false, blocked_by: []})
    expect(trailersOf(lastMessage(repo))['Tasks-Depends-On']).toEqual(['(none)'])
  })

  it('a cycle exits 5 (dependency_cycle, naming the loop); a self-edge exits 5; an unknown id exits 3', async () => {
    await runJson(repo, ['deps', t.a.id, t.b.id])
    await runJson(repo, ['deps', t.b.id, t.c.id])
    const e = await refused(repo, ['deps', t.c.id, t.a.id], 5, 'dependency_cycle')
    expect(e.cycle).toEqual([t.c.id, t.a.id, t.b.id, t.c.id])
    await refused(repo, ['deps', t.c.id, t.c.id], 5, 'self_dependency')
    await refused(repo, ['deps', t.c.id, 'tsk-zzzzzzzzzz'], 3, 'task_not_found')
    await refused(repo, ['deps', 'tsk-zzzzzzzzzz', t.c.id], 3, 'task_not_found')
  })
})

describe('comment', () => {
  let repo: string
  let t: any
  beforeAll(async () => {
    repo = await newList()
    t = await add(repo, 'Discussed')
  })

  it('every kind, in order, from TEXT or --file PATH; a bad kind exits 2', async () => {
    const kinds = ['note', 'decision', 'problem', 'lesson', 'knowledge']
    for (const [i, kind] of kinds.entries()) {
      const c = await runJson(repo, ['comment', t.id, `about ${kind}`, '--kind', kind], as('bob', at(i)))
      expect(c.comment).toMatchObject({task: t.id, kind, author: 'bob', created_at: at(i), body: `about ${kind}`})
      expect(c.comment.id).toMatch(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}$/)
      expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['comment'], 'Tasks-Comment-Kind': [kind]})
    }
    const file = join(tempDir('comment-'), 'c.md')
    writeFileSync(file, 'from a file\nline two\n\n')
    const def = await runJson(repo, ['comment', t.id, '--file', file], as('bob', at(9)))
    expect(def.comment).toMatchObject({kind: 'note', body: 'from a file\nline two'})
    const s = await runJson(repo, ['show', t.id])
    expect(s.comments.map((c: any) => c.kind)).toEqual([...kinds, 'note'])
    // One file per comment on the ref.
    const files = gitSync(repo, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').filter((f) => f.includes('/comments/'))
    expect(files).toHaveLength(6)
    const e = await refused(repo, ['comment', t.id, 'x', '--kind', 'rant'], 2, 'usage')
    expect(e.message).toMatch(/note, decision, problem, lesson, knowledge/)
    await refused(repo, ['comment', t.id, 'text', '--file', file], 2, 'usage')
  })

  // Regression: `comment ID --file -` (documented: "- for stdin") fails with exit 2 "pass the comment TEXT
  // or --file, not both" whenever stdin has data: oclif reads piped stdin into a missing optional
  // positional argument (the `text` arg has no `ignoreStdin: true`), so TEXT and --file are both set.
  // Repro: echo hi | tasks comment tsk-xxxx --file -   → exit 2.
  it('--file - reads the comment from stdin', async () => {
    const r = await runJson(repo, ['comment', t.id, '--file', '-'], as('bob', at(20), {input: 'from stdin\nline two\n'}))
    expect(r.comment).toMatchObject({kind: 'note', body: 'from stdin\nline two'})
  })
})

describe('rm', () => {
  it('removes the item and its sub-items (history keeps them); refused with exit 4 while another task depends on it', async () => {
    const repo = await newList()
    const p = await add(repo, 'Parent')
    const s = await add(repo, 'Sub', ['--parent', p.id])
    const d = await add(repo, 'Depended on')
    await add(repo, 'Depends', ['-d', d.id])
    const e = await refused(repo, ['rm', d.id, '--confirm', d.id, '--reason', 'r'], 4, 'has_dependents')
    expect(e.message).toContain(d.id)
    const r = await runJson(repo, ['rm', p.short_id, '--confirm', p.short_id, '--reason', 'r', '--with-subitems'])
    expect(r.removed).toEqual([
      {id: p.id, title: 'Parent'},
      {id: s.id, title: 'Sub'},
    ])
    expect(trailersOf(lastMessage(repo))).toMatchObject({'Tasks-Op': ['rm'], Task: [p.id, s.id]})
    await refused(repo, ['show', p.id], 3, 'task_not_found')
    await refused(repo, ['show', s.id], 3, 'task_not_found')
    const files = gitSync(repo, ['ls-tree', '-r', '--name-only', 'refs/tasks/main'])
    expect(files).not.toContain(p.id)
    expect(files).not.toContain(s.id)
    expect(gitSync(repo, ['log', '--format=%s', 'refs/tasks/main'])).toContain(`add ${p.id}: Parent`)
  })
})

describe('log', () => {
  it('lists events newest first with op and trailers; log ID only that task’s; -n limits', async () => {
    const repo = await newList()
    const a = await add(repo, 'Logged A', [], as('alice', at(1)))
    const b = await add(repo, 'Logged B', [], as('bob', at(2)))
    await runJson(repo, ['claim', a.id], as('alice', at(3)))
    await runJson(repo, ['comment', b.id, 'hi'], as('bob', at(4)))
    await runJson(repo, ['done', a.id], as('alice', at(5)))
    const all = await runJson(repo, ['log'])
    expect(all).toMatchObject({list: 'main', task: null})
    expect(all.events.map((e: any) => e.op)).toEqual(['done', 'comment', 'claim', 'add', 'add', 'init'])
    expect(all.events[0]).toMatchObject({author: 'alice', tasks: [a.id], subject: `done ${a.id}: Logged A`, commit: tip(repo)})
    expect(all.events[0].trailers).toEqual(expect.arrayContaining([['Tasks-Op', 'done'], ['Task', a.id], ['Actor', 'alice']]))
    expect(all.events[0].date).toBe('2030-01-01T00:05:00+00:00')
    expect(all.events.at(-1)).toMatchObject({op: 'init', author: 'git-tasks', tasks: []})
    const one = await runJson(repo, ['log', a.short_id])
    expect(one.task).toBe(a.id)
    expect(one.events.map((e: any) => e.op)).toEqual(['done', 'claim', 'add'])
    expect(one.events.every((e: any) => e.tasks.includes(a.id))).toBe(true)
    const limited = await runJson(repo, ['log', '-n', '2'])
    expect(limited.events.map((e: any) => e.op)).toEqual(['done', 'comment'])
    const human = await run(repo, ['log'])
    expect(human.stdout.split('\n')[0]).toMatch(/^COMMIT\s+DATE\s+ACTOR\s+EVENT/)
    expect(human.stdout).toContain(`done ${a.id}: Logged A`)
  })
})

// ---------------------------------------------------------------- actor, git tasks, text round-trip

describe('actor resolution', () => {
  it('--as, then TASKS_ACTOR, then git config tasks.actor, then user.email', async () => {
    const repo = await newList()
    const noActor = {env: {TASKS_ACTOR: undefined}}
    const who = async (flags: string[], options: RunOptions) => (await runJson(repo, ['add', 'who', ...flags], options)).task.created_by
    expect(await who([], noActor)).toBe('test@example.com') // user.email from the test git config
    gitSync(repo, ['config', 'tasks.actor', 'robot-7'])
    expect(await who([], noActor)).toBe('robot-7')
    expect(await who([], {env: {TASKS_ACTOR: 'env-agent'}})).toBe('env-agent')
    expect(await who(['--as', 'flag-agent'], {env: {TASKS_ACTOR: 'env-agent'}})).toBe('flag-agent')
    // The commit is authored by the actor too.
    expect(gitSync(repo, ['log', '-1', '--format=%an', 'refs/tasks/main']).trim()).toBe('flag-agent')
  })
})

describe('git tasks', () => {
  it('works through bin/git-tasks on PATH', async () => {
    const repo = await newList()
    await add(repo, 'Seen through git')
    const env = {...TEST_ENV, PATH: [join(ROOT, 'bin'), dirname(process.execPath), TEST_ENV.PATH].join(':'), TASKS_ACTOR: 'alice'}
    const out = execFileSync('git', ['tasks', 'list', '--json'], {cwd: repo, env, encoding: 'utf8'})
    expect(JSON.parse(out).tasks.map((t: any) => t.title)).toEqual(['Seen through git'])
    const human = execFileSync('git', ['tasks', 'list'], {cwd: repo, env, encoding: 'utf8'})
    expect(human).toContain('Seen through git')
    // Also from a subdirectory of the work tree.
    const sub = join(repo, 'deep')
    mkdirSync(sub)
    expect(JSON.parse(execFileSync('git', ['tasks', 'list', '--json'], {cwd: sub, env, encoding: 'utf8'})).tasks).toHaveLength(1)
  })
})

describe('text round-trip', () => {
  it('a body with --- and YAML-looking lines round-trips exactly as text and changes no field', async () => {
    const repo = await newList()
    const body = [
      '---',
      'id: "tsk-0000000000"',
      'status: done',
      'title: injected',
      '---',
      '',
      'Real text, then a fake frontmatter again:',
      '---',
      'priority: 0',
      'owner: mallory',
      '...',
      '  indented: [1, 2]',
      '# heading: with colon',
      '',
    ].join('\n')
    const file = join(tempDir('body-'), 'tricky.md')
    writeFileSync(file, body)
    const title = 'status: done # not: yaml --- "quoted" \'single\''
    const t = await add(repo, title, ['--body-file', file])
    expect(t).toMatchObject({title, status: 'todo', priority: 2, owner: null})
    const s = await runJson(repo, ['show', t.id])
    expect(s.body).toBe(body)
    expect(s.task).toMatchObject({id: t.id, title, status: 'todo', priority: 2, owner: null})
    const l = await runJson(repo, ['list'])
    expect(l.broken).toEqual([])
    expect(l.tasks).toHaveLength(1)
    // The stored file ends with the body verbatim.
    const path = gitSync(repo, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').find((p) => p.endsWith('/task.md'))!
    expect(gitSync(repo, ['show', `refs/tasks/main:${path}`]).endsWith(`\n---\n${body}`)).toBe(true)
    // Editing another field keeps the body byte for byte.
    await runJson(repo, ['claim', t.id])
    expect((await runJson(repo, ['show', t.id])).body).toBe(body)
    // Comments too.
    const c = await runJson(repo, ['comment', t.id, '--file', file])
    expect(c.comment.body).toBe(body.trimEnd())
    expect((await runJson(repo, ['show', t.id])).comments[0].body).toBe(body.trimEnd())
  })
})

describe('a sha256 repository', () => {
  it('works the same: objects git accepts, dependencies, sub-items, and a cache equal to a cold rebuild', async () => {
    const repo = tempDir('sha256-')
    gitSync(repo, ['init', '-q', '--object-format=sha256'])
    await runJson(repo, ['init'])
    const a = (await runJson(repo, ['add', 'parent A'])).task
    const b = (await runJson(repo, ['add', 'waits on A', '--depends-on', a.id])).task
    const c = (await runJson(repo, ['add', 'sub-item of A', '--parent', a.id])).task
    // next skips A (its sub-item is open) and B (waiting): C.
    const n = await runJson(repo, ['next'])
    expect(n.task.id).toBe(c.id)
    await runJson(repo, ['done', c.id])
    await runJson(repo, ['done', a.id])
    const shown = await runJson(repo, ['show', b.id])
    expect(shown.task).toMatchObject({ready: true, blocked_by: []})
    expect(shown.dependencies.map((d: {id: string}) => d.id)).toEqual([a.id])
    await runJson(repo, ['comment', b.id, 'sha256 note', '--kind', 'note'])
    expect(gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()).toMatch(/^[0-9a-f]{64}$/)
    gitSync(repo, ['fsck', '--strict', '--no-dangling'])
    const warm = await runJson(repo, ['list', '--all'])
    rmSync(join(repo, '.git', 'git-tasks'), {recursive: true, force: true})
    expect(await runJson(repo, ['list', '--all'])).toEqual(warm)
    expect((await runJson(repo, ['show', a.id])).dependents.map((d: {id: string}) => d.id)).toEqual([b.id])
  })
})

// ---------------------------------------------------------------- untrusted text, the table, filters

describe('untrusted text cannot drive the terminal', () => {
  const ESC = '\u001b'
  it('control characters are refused in titles and actor names (exit 5 / 2), nothing written', async () => {
    const repo = await newList()
    const e = await refused(repo, ['add', `${ESC}[31mRED${ESC}[0m`], 5, 'control_character')
    expect(e).toMatchObject({field: 'title', character: 'U+001B'})
    await refused(repo, ['add', 'bidi \u202egnp.exe'], 5, 'control_character')
    await refused(repo, ['add', 'tab\tin title'], 5, 'control_character')
    await refused(repo, ['add', 'fine'], 2, 'bad_actor', as(`agent${ESC}]0;pwned\u0007`))
  })

  it('descriptions, comments and notes keep their exact text in JSON and are neutralized in human output', async () => {
    const repo = await newList()
    const hostile = `line one\n${ESC}]0;owned title\u0007${ESC}[2J cleared \u009b31m c1 \u202eevil`
    const t = await add(repo, 'Plain title', ['--body', hostile])
    await runJson(repo, ['comment', t.id, `note ${ESC}[31mred${ESC}[0m`])
    await runJson(repo, ['block', t.id, `waiting ${ESC}[5mblink`], as('alice'))
    const json = await runJson(repo, ['show', t.id])
    expect(json.body).toBe(`${hostile}\n`)
    expect(json.comments[0].body).toBe(`note ${ESC}[31mred${ESC}[0m`)
    for (const args of [['show', t.id], ['list'], ['log', t.id]]) {
      const human = await run(repo, args, as('alice'))
      expect(human.code, human.stderr).toBe(0)
      expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    }
    const shown = (await run(repo, ['show', t.id], as('alice'))).stdout
    expect(shown).toContain('^[]0;owned title^G^[[2J cleared <U+009B>31m c1 <U+202E>evil')
    expect(shown).toContain('note ^[[31mred^[[0m')
    // An error message quoting untrusted text is neutralized too.
    const err = await run(repo, ['show', `tsk-${ESC}[31m`], as('alice'))
    expect(err.stderr).not.toContain(ESC)
  })
})

describe('list: a table that keeps the title, filters that agree, a summary, pages', () => {
  let repo: string
  const t: Record<string, any> = {}
  const list = (args: string[] = [], actor = 'alice@example.com', now = at(30)) => runJson(repo, ['list', ...args], as(actor, now))
  const ids = (r: any) => r.tasks.map((x: any) => x.id)
  beforeAll(async () => {
    repo = await newList()
    const me = as('alice@example.com', at(1))
    t.dep = await add(repo, 'A dependency with a long enough title to matter', ['-p', '1'], me)
    t.dep2 = await add(repo, 'Second dependency', ['-p', '1'], me)
    t.waiter = await add(repo, 'The title a person needs to read in full, please', ['-p', '0', '-t', 'a,b', '-d', t.dep.id, '-d', t.dep2.id], me)
    t.bug = await add(repo, 'A bug', ['-p', '3', '-t', '#bug'], me)
    t.reserved = await add(repo, 'Reserved for bob', ['--assignee', 'bob@example.com'], me)
    t.stale = await add(repo, 'Will go stale', ['-p', '4'], me)
    await runJson(repo, ['claim', t.stale.id, '--lease', '60'], as('a-very-long-agent-name@agents.example.com', at(2)))
    t.done = await add(repo, 'Finished', [], me)
    await runJson(repo, ['done', t.done.id], as('alice@example.com', at(3)))
    t.parent = await add(repo, 'Parent', [], me)
    t.sub = await add(repo, 'Sub of parent', ['--parent', t.parent.id, '-p', '1'], me)
  })

  it('one parser for list-valued flags: -t a,b is both tags, #bug is bug, --status takes every displayed state', async () => {
    expect(t.waiter.tags).toEqual(['a', 'b'])
    expect(t.bug.tags).toEqual(['bug'])
    expect(ids(await list(['--tag', 'a,b']))).toEqual([t.waiter.id])
    expect(ids(await list(['-t', '#bug']))).toEqual([t.bug.id])
    expect(ids(await list(['--status', 'stale']))).toEqual([t.stale.id])
    expect(ids(await list(['--status', 'reserved']))).toEqual([t.reserved.id])
    expect(ids(await list(['--status', 'waiting,done'])).sort()).toEqual([t.waiter.id, t.done.id].sort())
    const all = await list()
    for (const row of all.tasks) expect(['ready', 'waiting', 'reserved', 'todo', 'stale', 'in_progress', 'blocked']).toContain(row.state)
    expect(all.tasks.find((x: any) => x.id === t.stale.id).state).toBe('stale')
    await refused(repo, ['list', '--status', 'sleeping'], 2, 'bad_status')
    await refused(repo, ['list', '--sort', 'colour'], 2, 'bad_sort')
  })

  it('--parent, --priority, @me, --sort, and --limit/--offset pages that cover every row once', async () => {
    expect(ids(await list(['--parent', t.parent.id.slice(0, 8)]))).toEqual([t.sub.id])
    expect(ids(await list(['--priority', '0,3'])).sort()).toEqual([t.waiter.id, t.bug.id].sort())
    expect(ids(await list(['--assignee', '@me'], 'bob@example.com'))).toEqual([t.reserved.id])
    const byTitle = (await list(['--sort', 'title'])).tasks.filter((x: any) => x.depth === 0).map((x: any) => x.title)
    expect(byTitle).toEqual([...byTitle].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())))
    const full = await list()
    expect(full.total).toBe(full.tasks.length)
    const seen: string[] = []
    for (let offset = 0; offset < full.total; offset += 3) {
      const page = await list(['--limit', '3', '--offset', String(offset)])
      expect(page).toMatchObject({total: full.total, offset, limit: 3})
      seen.push(...ids(page))
    }
    expect(seen).toEqual(ids(full))
  })

  it('the summary counts what is shown and what the open view hides', async () => {
    const r = await list()
    expect(r.summary).toMatchObject({total: r.tasks.length, hidden_finished: 1})
    expect(r.summary.by_state).toMatchObject({waiting: 1, reserved: 1, stale: 1})
    const human = await run(repo, ['list'], as('alice@example.com', at(30), {env: {COLUMNS: '100'}}))
    expect(human.stdout).toMatch(new RegExp(`\\n${r.total} open: .*1 waiting.*; 1 finished hidden, --all to show\\n$`))
    const page = await run(repo, ['list', '--limit', '2'], as('alice@example.com', at(30)))
    expect(page.stdout).toMatch(/rows 1–2 of \d+, --offset 2 for more/)
  })

  it('at 80 columns the title keeps its room: owners show their local part, WHY BLOCKED shrinks first, no line wraps', async () => {
    for (const columns of [80, 160]) {
      const human = await run(repo, ['list'], as('alice@example.com', at(30), {env: {COLUMNS: String(columns)}}))
      const lines = human.stdout.trimEnd().split('\n')
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
      const waiterLine = lines.find((l) => l.includes(t.waiter.short_id))!
      // The other columns gave up their width first: 30+ columns of title at 80, all of it at 100.
      expect(waiterLine).toContain(columns === 80 ? 'The title a person needs to r' : 'The title a person needs to read in full, please #a #b')
      const staleLine = lines.find((l) => l.includes(t.stale.short_id))!
      expect(staleLine).not.toContain('@agents')
      if (columns === 160) {
        expect(waiterLine).toMatch(/\+1 more/)
        expect(staleLine).toContain('a-very-long-agent-name')
      }
    }
  })
})
