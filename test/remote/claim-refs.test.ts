/**
 * Pending per-item changes on the remote (`refs/tasks-claims/<list>/<id>`,
 * docs/scale.md "Many agents on one remote"). Under contention a one-item
 * change waits there until a command folds it into the list's ref. What
 * makes that safe is the check at folding time: a pending change is folded
 * only when its item on the list is still what the change was computed on.
 *
 * Here the pending refs are made by hand (an offline commit pushed with
 * plain git), as a process that died after pushing one would leave it, so
 * the order of events is exact:
 * - a stale claim (computed before someone else's claim of the item landed)
 *   is dropped, never folded: the item keeps its owner, the ref goes;
 * - a valid one left behind is folded by the next writer as one commit with
 *   the original message, author and date;
 * - the inbox records and last_seen a change writes fold with it, file by
 *   file, and a change whose such file moved on the list since is dropped.
 */
import {execFileSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {TEST_ENV, cleanupAll, gitSync, makeRepo, runJson} from '../helpers/cli'
import {claimTrackingPrefix, pendingChanges, recentLine, refsUnder} from '../../src/refstore/claim-refs'
import {ObjectReader} from '../../src/refstore/object-reader'
import {expectLinearHistory, history, trailer} from '../race/support'
import {cloneOf, shared, tipOf} from './support'

afterAll(() => cleanupAll())

function pendingRefs(bare: string): string[] {
  return gitSync(bare, ['for-each-ref', '--format=%(refname)', 'refs/tasks-claims/']).split('\n').filter(Boolean)
}

/** A claim of `id` as `actor` committed offline in `clone` (on the tip it has), pushed by hand as the item's pending change. */
async function handMadePending(clone: string, id: string, actor: string): Promise<string> {
  const out = await runJson(clone, ['claim', id, '--offline', '--as', actor])
  gitSync(clone, ['push', '-q', 'origin', `${out.commit}:refs/tasks-claims/main/${id}`])
  return out.commit
}

async function freshShow(bare: string, id: string): Promise<any> {
  const fresh = cloneOf(bare)
  await runJson(fresh, ['remote', 'set', 'origin'])
  await runJson(fresh, ['sync'])
  return (await runJson(fresh, ['show', id])).task
}

describe('pending per-item changes on the remote', {timeout: 120_000}, () => {
  it('a stale pending claim is dropped by the next writer, never folded: the item keeps its owner', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'contested', '--as', 'lead'])).task.id
    const y = (await runJson(a, ['add', 'other', '--as', 'lead'])).task.id
    await runJson(b, ['sync'])
    // Mallory computes a claim of x on the current tip, but bob's claim lands first.
    const stale = (await runJson(a, ['claim', x, '--offline', '--as', 'mallory'])).commit
    const won = await runJson(b, ['claim', x, '--as', 'bob'])
    expect(won.task).toMatchObject({owner: 'bob', epoch: 1})
    // Mallory's claim now reaches the remote as a pending change (as a process that died after pushing it would leave it).
    gitSync(a, ['push', '-q', 'origin', `${stale}:refs/tasks-claims/main/${x}`])
    const before = history(bare).length

    const commented = await runJson(b, ['comment', y, 'next writer', '--as', 'bob'])
    expect(commented.published).toBe(true)
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    expect(commits.length).toBe(before + 1)
    expect(commits[0]!.oid).toBe(commented.commit)
    expect(trailer(commits[0]!, 'Tasks-Op')).toBe('comment')
    expect(commits.filter((c) => trailer(c, 'Actor') === 'mallory')).toEqual([])
    expect(await freshShow(bare, x)).toMatchObject({owner: 'bob', epoch: 1, status: 'in_progress'})
  })

  it('a valid pending change left behind is folded by the next writer: one commit, same message, author and date', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'left behind', '--as', 'lead'])).task.id
    const y = (await runJson(a, ['add', 'other', '--as', 'lead'])).task.id
    await runJson(b, ['sync'])
    const pending = await handMadePending(a, x, 'dave')
    const before = history(bare).length

    const commented = await runJson(b, ['comment', y, 'next writer', '--as', 'bob'])
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    expect(commits.length).toBe(before + 2)
    const claims = commits.filter((c) => trailer(c, 'Tasks-Op') === 'claim' && trailer(c, 'Task') === x)
    expect(claims).toHaveLength(1)
    expect(trailer(claims[0]!, 'Actor')).toBe('dave')
    expect(commits.map((c) => c.oid)).toContain(commented.commit)
    // The folded commit is the pending one copied: same author, dates and message (the very same commit when
    // it lands first on the tip it was made on, as here when it sorts before the comment; else a new parent and tree).
    const show = (oid: string) => gitSync(bare, ['show', '-s', '--format=%an <%ae> %at%n%cn <%ce> %ct%n%B', oid])
    expect(show(claims[0]!.oid)).toBe(gitSync(a, ['show', '-s', '--format=%an <%ae> %at%n%cn <%ce> %ct%n%B', pending]))
    expect(await freshShow(bare, x)).toMatchObject({owner: 'dave', epoch: 1, status: 'in_progress'})
    expect(tipOf(bare)).toBe(commits[0]!.oid)
  })

  it('a pending done fold carries its inbox record; a change whose last_seen moved on the list since is dropped', async () => {
    const {bare, clones} = await shared(3)
    const [a, b, c] = clones as [string, string, string]
    const x = (await runJson(a, ['add', 'watched', '--as', 'lead'])).task.id
    const y = (await runJson(a, ['add', 'other', '--as', 'lead'])).task.id
    const z = (await runJson(a, ['add', 'third', '--as', 'lead'])).task.id
    await runJson(a, ['claim', x, '--as', 'dave'])
    await runJson(b, ['sync'])
    // dave's done notifies the creator (lead): a record under inbox/lead/ in the same commit.
    const done = (await runJson(a, ['done', x, '--offline', '--as', 'dave'])).commit
    const records = (oid: string) => gitSync(bare, ['ls-tree', '-r', oid, 'inbox/lead/']).split('\n').filter(Boolean)
    gitSync(a, ['push', '-q', 'origin', `${done}:refs/tasks-claims/main/${x}`, `${done}:refs/heads/keep`])
    expect(records(done)).toHaveLength(1)

    await runJson(b, ['comment', y, 'next writer', '--as', 'bob'])
    expect(pendingRefs(bare)).toEqual([])
    const tip = tipOf(bare)!
    expectLinearHistory(history(bare))
    // The record is on the list, byte for byte the one the done wrote.
    expect(records(tip)).toEqual(records(done))
    expect(await freshShow(bare, x)).toMatchObject({status: 'done'})

    // erin's claim of z is computed first (it writes her first last_seen), then her comment on y lands
    // with a last_seen of its own: the pending claim's registry file is no longer what it was computed on.
    await runJson(c, ['sync'])
    const stale = (await runJson(c, ['claim', z, '--offline', '--as', 'erin'])).commit
    expect(gitSync(bare, ['ls-tree', '-r', '--name-only', `${tip}`, 'actors/'])).not.toContain('erin')
    await runJson(b, ['comment', y, 'erin was here', '--as', 'erin'])
    gitSync(c, ['push', '-q', 'origin', `${stale}:refs/tasks-claims/main/${z}`])
    await runJson(b, ['comment', y, 'third writer', '--as', 'bob'])
    expect(pendingRefs(bare)).toEqual([])
    expect(history(bare).filter((c) => trailer(c, 'Tasks-Op') === 'claim' && trailer(c, 'Task') === z)).toEqual([])
    expect(await freshShow(bare, z)).not.toMatchObject({owner: 'erin'})
  })
})

/**
 * What the remote received, as a server hook sees it: one "<old> <new> <ref>" line a ref, in order.
 * Here it shows what a pending change was computed on (its commit's parent), which a fold hides.
 */
function recordPushes(bare: string): () => Array<{old: string; new: string; ref: string}> {
  const log = join(bare, 'pushes.log')
  const hook = join(bare, 'hooks', 'post-receive')
  writeFileSync(hook, `#!/bin/sh\ncat >> '${log}'\n`, {mode: 0o755})
  return () => {
    let text = ''
    try {
      text = readFileSync(log, 'utf8')
    } catch {}
    return text.split('\n').filter(Boolean).map((l) => {
      const [o, n, ref] = l.split(' ') as [string, string, string]
      return {old: o, new: n, ref}
    })
  }
}

/** Make the clone's last fetch look moments old and busy (`<git-dir>/git-tasks/fetched-main`, docs/scale.md). */
function noteBusyFetch(clone: string, pending = 2): void {
  writeFileSync(join(clone, '.git', 'git-tasks', 'fetched-main'), `${JSON.stringify({remote: 'origin', at: new Date().toISOString(), pending})}\n`)
}

describe('a change of a held item on the last busy fetch\'s tip', {timeout: 120_000}, () => {
  it('goes pending on that tip without fetching first, and lands after what others pushed since', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'mine', '--as', 'lead'])).task.id
    const y = (await runJson(a, ['add', 'other', '--as', 'lead'])).task.id
    await runJson(a, ['claim', x, '--as', 'alice'])
    const seen = tipOf(a, 'refs/tasks-remote/origin/main')!
    await runJson(b, ['sync'])
    const other = await runJson(b, ['comment', y, 'meanwhile', '--as', 'bob'])
    const pushes = recordPushes(bare)
    noteBusyFetch(a)

    const done = await runJson(a, ['done', x, '--as', 'alice'])
    expect(done.published).toBe(true)
    // The change was pushed as x's pending ref, computed on the tip clone a had last fetched (no fetch first).
    const pendingPush = pushes().find((p) => p.ref === `refs/tasks-claims/main/${x}` && !/^0+$/.test(p.new))
    expect(pendingPush).toBeDefined()
    expect(gitSync(bare, ['rev-parse', `${pendingPush!.new}^`]).trim()).toBe(seen)
    // ...and folded onto the list after bob's comment: one commit, linear, nothing left pending.
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    expect(commits[0]!.oid).toBe(done.commit)
    expect(commits[0]!.parents).toEqual([other.commit])
    expect(trailer(commits[0]!, 'Tasks-Op')).toBe('done')
    expect(await freshShow(bare, x)).toMatchObject({status: 'done'})
    expect(gitSync(bare, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').filter((p) => p.includes(`/${y}/comments/`))).toHaveLength(1)
  })

  it('when the item itself moved since that fetch, the change is dropped at the fold and run again on the new tip', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'mine', '--as', 'lead'])).task.id
    await runJson(a, ['claim', x, '--as', 'alice'])
    await runJson(b, ['sync'])
    // bob comments on x itself: x's directory on the list is no longer what clone a last saw.
    await runJson(b, ['comment', x, 'look at this first', '--as', 'bob'])
    const pushes = recordPushes(bare)
    noteBusyFetch(a)

    const done = await runJson(a, ['done', x, '--as', 'alice'])
    expect(done.published).toBe(true)
    const created = pushes().filter((p) => p.ref === `refs/tasks-claims/main/${x}` && /^0+$/.test(p.old))
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    expect(commits.filter((c) => trailer(c, 'Tasks-Op') === 'done')).toHaveLength(1)
    expect(commits[0]!.oid).toBe(done.commit)
    // Nothing lost: bob's comment is on the card, and the card is done.
    const files = gitSync(bare, ['ls-tree', '-r', '--name-only', 'refs/tasks/main']).split('\n').filter((p) => p.includes(`/${x}/comments/`))
    expect(files).toHaveLength(1)
    expect(await freshShow(bare, x)).toMatchObject({status: 'done'})
  })

  it('is not used for an item the actor does not hold: that change fetches first, as always', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'free', '--as', 'lead'])).task.id
    await runJson(b, ['sync'])
    const other = await runJson(b, ['add', 'meanwhile', '--as', 'bob'])
    const pushes = recordPushes(bare)
    noteBusyFetch(a)

    const claimed = await runJson(a, ['claim', x, '--as', 'alice'])
    expect(claimed.published).toBe(true)
    // Computed on the remote's own tip (bob's add), whichever way it was pushed.
    const landed = history(bare)[0]!
    expect(landed.oid).toBe(claimed.commit)
    expect(landed.parents).toEqual([other.commit])
    for (const p of pushes().filter((p) => p.ref === `refs/tasks-claims/main/${x}` && !/^0+$/.test(p.new))) {
      expect(gitSync(bare, ['rev-parse', `${p.new}^`]).trim()).toBe(other.commit)
    }
  })
})

describe('a waiting change that someone else folds', {timeout: 120_000}, () => {
  it('finds where it landed by fetching the list alone, and forgets its copies of pending refs that are gone', async () => {
    const {bare, clones} = await shared(3)
    const [a, b, c] = clones as [string, string, string]
    const p = (await runJson(a, ['add', 'one', '--as', 'lead'])).task.id
    const q = (await runJson(a, ['add', 'two', '--as', 'lead'])).task.id
    // x: alice's item; y (the smaller id) a pending claim nobody is folding, so alice's change waits behind it.
    const [y, x] = p < q ? [p, q] : [q, p]
    await runJson(a, ['claim', x, '--as', 'alice'])
    await runJson(b, ['sync'])
    await runJson(c, ['sync'])
    await handMadePending(c, y, 'dave')
    // Clone a holds a copy of y's pending ref, as a fetch made while it was pending leaves it.
    gitSync(a, ['fetch', '-q', 'origin', `+refs/tasks-claims/main/*:${claimTrackingPrefix('origin', 'main')}*`])
    expect([...(await pendingChanges(a, 'origin', 'main')).keys()]).toEqual([y])
    noteBusyFetch(a)
    const trace = join(a, '..', `git-trace-${process.pid}.log`)
    const done = runJson(a, ['done', x, '--as', 'alice'], {env: {GIT_TRACE: trace}})
    for (let i = 0; i < 600 && !pendingRefs(bare).includes(`refs/tasks-claims/main/${x}`); i++) await new Promise((r) => setTimeout(r, 25))
    expect(pendingRefs(bare)).toContain(`refs/tasks-claims/main/${x}`)

    // bob adds an item: a change that is not one item's, so it folds everything pending first.
    await runJson(b, ['add', 'three', '--as', 'bob'])
    const out = await done
    expect(out.published).toBe(true)
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    const dones = commits.filter((c) => trailer(c, 'Tasks-Op') === 'done')
    expect(dones.map((c) => c.oid)).toEqual([out.commit])
    expect(trailer(dones[0]!, 'Actor')).toBe('alice')
    expect(commits.filter((c) => trailer(c, 'Tasks-Op') === 'claim' && trailer(c, 'Task') === y).map((c) => trailer(c, 'Actor'))).toEqual(['dave'])
    // Clone a's own refs follow the list (up to the fold, or bob's add after it), and it keeps no copy of a
    // pending ref the remote no longer has.
    const tracking = tipOf(a, 'refs/tasks-remote/origin/main')!
    expect([commits[0]!.oid, commits[1]!.oid]).toContain(tracking)
    gitSync(bare, ['merge-base', '--is-ancestor', out.commit, tracking])
    expect(refsUnder(join(a, '.git'), claimTrackingPrefix('origin', 'main'))).toEqual(new Map())
    expect((await runJson(a, ['show', x, '--offline'])).task).toMatchObject({status: 'done'})
    // The command fetched once, after its look found the change gone, and only the list (no pending refs' objects).
    const fetches = readFileSync(trace, 'utf8').split('\n').filter((l) => / built-in: git fetch /.test(l))
    expect(fetches).toHaveLength(1)
    expect(fetches[0]).not.toContain('tasks-claims')
  })
})

describe('a new change on a busy list', {timeout: 120_000}, () => {
  it('fetches the list alone and looks at the pending refs; their objects come only for the fold', async () => {
    const {bare, clones} = await shared(3)
    const [a, , c] = clones as [string, string, string]
    const ids: string[] = []
    for (const title of ['one', 'two', 'three']) ids.push((await runJson(a, ['add', title, '--as', 'lead'])).task.id)
    // x, the smallest id: alice's claim. The two others: claims pending on the remote that nobody is folding.
    const [x, y, z] = ids.sort() as [string, string, string]
    await runJson(c, ['sync'])
    await handMadePending(c, y, 'dave')
    await handMadePending(c, z, 'erin')
    noteBusyFetch(a, 1)
    const trace = join(a, '..', `git-trace-look-${process.pid}.log`)
    const claimed = await runJson(a, ['claim', x, '--as', 'alice'], {env: {GIT_TRACE: trace}})
    expect(claimed.published).toBe(true)
    // Two pending: the list is busy, so alice's claim waited in line (it leads: the smallest id) and then folded all three.
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    const claims = commits.filter((k) => trailer(k, 'Tasks-Op') === 'claim')
    expect(claims.map((k) => `${trailer(k, 'Task')} ${trailer(k, 'Actor')}`).sort()).toEqual([`${x} alice`, `${y} dave`, `${z} erin`].sort())
    expect(claims.map((k) => k.oid)).toContain(claimed.commit)
    // The first fetch brought the list alone, with a look at the pending refs beside it; the fold's fetch brought their objects.
    const lines = readFileSync(trace, 'utf8').split('\n')
    const fetches = lines.filter((l) => / built-in: git fetch /.test(l))
    expect(fetches.length).toBeGreaterThanOrEqual(2)
    expect(fetches[0]).not.toContain('tasks-claims')
    expect(fetches.slice(1).some((l) => l.includes('tasks-claims'))).toBe(true)
    expect(lines.some((l) => / built-in: git ls-remote /.test(l))).toBe(true)
  })

  it('with one change pending and a quiet list, fetches its objects and carries it in a direct push', async () => {
    const {bare, clones} = await shared(3)
    const [a, , c] = clones as [string, string, string]
    const p = (await runJson(a, ['add', 'one', '--as', 'lead'])).task.id
    const q = (await runJson(a, ['add', 'two', '--as', 'lead'])).task.id
    await runJson(c, ['sync'])
    await handMadePending(c, q, 'dave')
    noteBusyFetch(a, 1)
    const claimed = await runJson(a, ['claim', p, '--as', 'alice'])
    expect(claimed.published).toBe(true)
    expect(pendingRefs(bare)).toEqual([])
    const commits = history(bare)
    expectLinearHistory(commits)
    // dave's pending claim and alice's, folded together (oldest first, ties by id).
    expect(commits.slice(0, 2).map((k) => `${trailer(k, 'Task')} ${trailer(k, 'Actor')}`).sort()).toEqual([`${p} alice`, `${q} dave`].sort())
    expect(commits.slice(0, 2).map((k) => k.oid)).toContain(claimed.commit)
  })
})

describe('reading the pending refs without a process', () => {
  it('reads loose and packed refs as git does, and asks git when it cannot', async () => {
    const repo = makeRepo()
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'root'])
    const head = gitSync(repo, ['rev-parse', 'HEAD']).trim()
    gitSync(repo, ['commit', '-q', '--allow-empty', '-m', 'second'])
    const second = gitSync(repo, ['rev-parse', 'HEAD']).trim()
    const git = join(repo, '.git')
    const prefix = claimTrackingPrefix('origin', 'main')
    /** What git itself lists under the prefix. */
    const listed = () => {
      const out = new Map<string, string>()
      for (const line of gitSync(repo, ['for-each-ref', '--format=%(refname) %(objectname)', prefix]).split('\n').filter(Boolean)) {
        const [ref, oid] = line.split(' ')
        out.set(ref!, oid!)
      }
      return out
    }
    const agrees = async () => {
      expect(refsUnder(git, prefix)).toEqual(listed())
      expect(await pendingChanges(repo, 'origin', 'main', git)).toEqual(new Map([...listed()].map(([ref, oid]) => [ref.slice(prefix.length), oid])))
    }
    await agrees()
    // An empty directory left behind by a pruned ref is still nothing.
    mkdirSync(join(git, 'refs', 'tasks-claims-remote', 'origin', 'main'), {recursive: true})
    await agrees()
    // Loose refs, and a lock file of one being written, which is not a ref.
    gitSync(repo, ['update-ref', `${prefix}tsk-aaaa`, head])
    gitSync(repo, ['update-ref', `${prefix}tsk-bbbb`, second])
    writeFileSync(join(git, ...`${prefix}tsk-cccc.lock`.split('/')), `${head}\n`)
    await agrees()
    expect(refsUnder(git, prefix)!.size).toBe(2)
    // Packed, then a loose value over a packed one (the loose one wins), and a ref of another list that shares the prefix's start.
    gitSync(repo, ['pack-refs', '--all'])
    await agrees()
    gitSync(repo, ['update-ref', `${prefix}tsk-aaaa`, second])
    gitSync(repo, ['update-ref', `${claimTrackingPrefix('origin', 'main2')}tsk-dddd`, head])
    gitSync(repo, ['pack-refs', '--all'])
    gitSync(repo, ['update-ref', `${prefix}tsk-bbbb`, head])
    await agrees()
    expect(refsUnder(git, prefix)).toEqual(new Map([[`${prefix}tsk-aaaa`, second], [`${prefix}tsk-bbbb`, head]]))
    // Deleted (from the packed file and the loose one alike).
    gitSync(repo, ['update-ref', '-d', `${prefix}tsk-aaaa`])
    await agrees()
    // A symbolic ref under the prefix: not read by hand, git is asked.
    gitSync(repo, ['symbolic-ref', `${prefix}tsk-eeee`, `${prefix}tsk-bbbb`])
    expect(refsUnder(git, prefix)).toBeNull()
    expect(await pendingChanges(repo, 'origin', 'main', git)).toEqual(new Map([['tsk-bbbb', head], ['tsk-eeee', head]]))
    gitSync(repo, ['symbolic-ref', '--delete', `${prefix}tsk-eeee`])
    await agrees()
    // Another ref storage (reftable): always asks git.
    mkdirSync(join(git, 'reftable'))
    writeFileSync(join(git, 'reftable', 'tables.list'), '')
    expect(refsUnder(git, prefix)).toBeNull()
  })
})

describe('who else is at work: the walk down the list', () => {
  it('counts other actors with changes since a time, and how far the tip is ahead of a commit', async () => {
    const repo = makeRepo()
    const now = 1_800_000_000
    const oids: string[] = []
    // Oldest first: alice long ago, then (within the last minute) bob, carol, bob again, the reader's own change, dave.
    const commits: Array<[string, number]> = [['alice', now - 600], ['bob', now - 50], ['carol', now - 40], ['bob', now - 30], ['me', now - 20], ['dave', now - 10]]
    for (const [actor, time] of commits) {
      const date = `${time} +0000`
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', `claim tsk-x: a title\n\nTasks-Op: claim\nTask: tsk-x\nActor: ${actor}`], {
        cwd: repo,
        env: {...TEST_ENV, GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date},
      })
      oids.push(gitSync(repo, ['rev-parse', 'HEAD']).trim())
    }
    const tip = oids.at(-1)!
    const reader = new ObjectReader(repo)
    try {
      // Since a minute ago: bob, carol and dave (the reader's own change and alice's old one do not count); me is 1 behind.
      expect(await recentLine(reader, tip, oids[4]!, 'me', now - 60)).toEqual({distance: 1, others: 3})
      // The ancestor found beyond the window: the walk goes on for the distance alone.
      expect(await recentLine(reader, tip, oids[0]!, 'me', now - 15)).toEqual({distance: 5, others: 1})
      // Not on the line within the limit: no distance, and only what the walk read is counted (dave, me, bob).
      expect(await recentLine(reader, tip, oids[0]!, 'me', now - 60, 3)).toEqual({distance: null, others: 2})
      // At most maxOthers are counted.
      expect(await recentLine(reader, tip, oids[1]!, 'nobody', now - 60, 128, 2)).toEqual({distance: 4, others: 2})
      // Everything is someone else's and recent.
      expect(await recentLine(reader, tip, null, 'nobody', now - 1000)).toEqual({distance: null, others: 5})
    } finally {
      reader.close()
    }
  })

  it('walks a long line in runs read at once, with the same answers as one commit at a time', async () => {
    const repo = makeRepo()
    const now = 1_800_000_000
    // 100 commits, one a second, by ten actors in turn (a0 ... a9); the newest at now - 1.
    const oids: string[] = []
    for (let k = 0; k < 100; k++) {
      const date = `${now - 100 + k} +0000`
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', `claim tsk-x: a title\n\nTasks-Op: claim\nTask: tsk-x\nActor: a${k % 10}`], {
        cwd: repo,
        env: {...TEST_ENV, GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date},
      })
      oids.push(gitSync(repo, ['rev-parse', 'HEAD']).trim())
    }
    const tip = oids.at(-1)!
    /** The answer worked out from the list above: the walk's distance to oids[at], and the actors other than `self` it counts. */
    const expected = (at: number | null, self: string, since: number, limit = 128) => {
      const distance = at !== null && 99 - at < limit ? 99 - at : null
      const others = new Set<string>()
      for (let i = 0; i < Math.min(limit, 100); i++) {
        const k = 99 - i
        if (now - 100 + k < since) break
        if (`a${k % 10}` !== self) others.add(`a${k % 10}`)
      }
      return {distance, others: others.size}
    }
    const reader = new ObjectReader(repo)
    try {
      // Ancestors at the end of a run, at the start of the next and deep in later runs (runs of 8, 16, 32, 64).
      for (const back of [0, 7, 8, 9, 23, 24, 25, 56, 57, 99]) {
        expect(await recentLine(reader, tip, oids[99 - back]!, 'a3', now - 5), `${back} behind`).toEqual(expected(99 - back, 'a3', now - 5))
      }
      // Counting past the ancestor, through several runs, until the commits are older than `since`.
      expect(await recentLine(reader, tip, oids[97]!, 'nobody', now - 40)).toEqual(expected(97, 'nobody', now - 40))
      // A limit that ends inside a run: the ancestor beyond it is not found, and only what was read is counted.
      expect(await recentLine(reader, tip, oids[50]!, 'nobody', now - 1000, 13)).toEqual({distance: null, others: 10})
      expect(await recentLine(reader, tip, oids[90]!, 'a9', now - 1000, 13)).toEqual({distance: 9, others: 9})
      // The line ends (the repository's first commit) before the limit: nothing is read past it.
      expect(await recentLine(reader, tip, null, 'nobody', 0, 500)).toEqual({distance: null, others: 10})
      expect(await recentLine(reader, tip, oids[0]!, 'a0', 0, 500, 3)).toEqual({distance: 99, others: 3})
      // An answer by name that is not the parent of the one before (as a replaced object could give): the walk goes
      // on from the parent it read, by id, with the same answers.
      const askedById: string[] = []
      const skewed = {
        read: (name: string) => {
          if (!name.includes('~')) askedById.push(name)
          return reader.read(name.endsWith('~3') ? `${name.slice(0, -2)}~5` : name)
        },
      } as unknown as ObjectReader
      expect(await recentLine(skewed, tip, oids[60]!, 'a3', now - 30)).toEqual(expected(60, 'a3', now - 30))
      // Every run goes wrong at its fourth answer: the walk down to oids[60] starts a run by id every three commits.
      expect(askedById).toEqual(Array.from({length: 14}, (_, r) => oids[99 - 3 * r]))
    } finally {
      reader.close()
    }
  })
})
