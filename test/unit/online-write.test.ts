/**
 * The online write path without git: the step function fed outcomes by
 * hand, and the driver run against an in-memory remote (a list tip, its
 * pending refs, a clock that moves only when the loop sleeps). The same
 * rules run against real remotes in test/race and test/remote.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {PENDING_REFUSED_TTL_MS, notePendingRefused, pendingRefused, refusedByHost} from '../../src/refstore/claim-refs'
import {ConflictError, TasksError} from '../../src/core/errors'
import {driveOnline} from '../../src/app/online-write/drive'
import {MAX_PACE_MS, MAX_STALLED_TRIES, ONLINE_BUDGET_MS, PENDING_AT_ONCE} from '../../src/app/online-write/rules'
import {type Next, begin, step} from '../../src/app/online-write/step'
import type {Action, Event, Fetched, Finished, OnlineRemote, OpOutcome, PushResult} from '../../src/app/online-write/types'

/** The change an op computed in these tests: which try made it, on which base. */
interface Change {
  run: number
  base: string | null
}

const STALE: PushResult = {ok: false, reason: 'stale', detail: 'stale info'}
const DECLINED: PushResult = {ok: false, reason: 'declined', detail: 'hook declined'}

/**
 * An honest remote in memory: the list's tip, the pending refs, a local tip;
 * pushes with a lease land only on the tip they name. Tests replace any
 * method to make the remote misbehave, and read `log` for what was done.
 */
function fakeRemote() {
  const world = {
    tip: 'c0' as string | null,
    pending: new Map<string, string>(),
    local: 'c0' as string | null,
    clock: 1_000_000,
    commits: 0,
    runs: 0,
    /** Pending commit → where someone else's fold put it on the list. */
    landed: new Map<string, string>(),
    /** The clone remembers that this remote refuses pending refs (the note of an earlier command). */
    refused: false,
  }
  const log: string[] = []
  const newCommit = () => `c${++world.commits}`
  /** What the op returns; by default a change to several items (it can only go to the list's ref). */
  let opResult = (change: Change): OpOutcome<Change> => ({kind: 'changed', change, item: null, holdsItem: false})
  const remote: OnlineRemote<Change> = {
    now: () => world.clock,
    sleep: async (ms) => {
      log.push('sleep')
      world.clock += ms
    },
    random: () => 0.5,
    fetchedBusy: () => false,
    assumedTip: async () => null,
    fetch: async (how, claims): Promise<Fetched> => {
      log.push(`fetch ${how}${how === 'list' && claims ? ' +pending' : ''}`)
      return {tip: world.tip, pending: claims ? new Map(world.pending) : new Map(), pendingHere: how !== 'list-and-look'}
    },
    look: async () => {
      log.push('look')
      return {tip: world.tip, pending: new Map(world.pending)}
    },
    localTip: async () => world.local,
    relate: async () => ({relation: 'behind', mergeBase: null, othersLanded: 0}),
    mergeLocal: async () => ({commit: 'merged', warnings: []}),
    runOp: async (base) => {
      log.push(`op on ${base}`)
      return opResult({run: ++world.runs, base})
    },
    fold: async (tip, pending, own) => {
      log.push(`fold${own ? ' own' : ''}`)
      if (tip !== world.tip) return {pushed: STALE, tip, folded: new Map()}
      const folded = new Map<string, string>()
      for (const id of [...pending.keys()].filter((id) => world.pending.get(id) === pending.get(id))) {
        world.tip = newCommit()
        folded.set(id, world.tip)
        world.pending.delete(id)
      }
      if (own) {
        world.tip = newCommit()
        folded.set(own.id, world.tip)
      }
      return {pushed: {ok: true}, tip: world.tip!, folded}
    },
    pushPending: async (id) => {
      log.push(`push-pending ${id}`)
      const commit = newCommit()
      if (world.pending.has(id)) return {pushed: STALE, commit}
      world.pending.set(id, commit)
      return {pushed: {ok: true}, commit}
    },
    pushList: async (_change, expected) => {
      log.push('push-list')
      const commit = newCommit()
      if (expected !== world.tip) return {pushed: STALE, commit}
      world.tip = commit
      return {pushed: {ok: true}, commit}
    },
    withdraw: async (parked) => {
      log.push('withdraw')
      if (world.pending.get(parked.id) !== parked.commit) return false
      world.pending.delete(parked.id)
      return true
    },
    learnFate: async (parked) => {
      log.push('learn-fate')
      return {tip: world.tip, landed: world.landed.get(parked.commit) ?? null, localTip: world.local}
    },
    findLanded: async (_tip, parked) => world.landed.get(parked.commit) ?? null,
    forgetAssumedTip: () => void log.push('forget-assumed-tip'),
    pendingRefused: () => world.refused,
    notePendingRefused: () => {
      log.push('note-refused')
      world.refused = true
    },
  }
  return {
    remote,
    world,
    log,
    /** The op's answer from now on. */
    op(answer: (change: Change) => OpOutcome<Change>) {
      opResult = answer
    },
  }
}

async function failure(promise: Promise<unknown>): Promise<TasksError> {
  try {
    await promise
  } catch (e) {
    if (e instanceof TasksError) return e
    throw e
  }
  throw new Error('expected the loop to fail')
}

function published(finished: Finished<Change>) {
  if (finished.kind !== 'published') throw new Error(`expected a published result, got ${finished.kind}`)
  return finished
}

describe('the driver against an in-memory remote', () => {
  it('a change on a quiet list: one fetch, one op, one push, published by its own push', async () => {
    const f = fakeRemote()
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'push-list'])
    expect(done).toMatchObject({landed: 'c1', tip: 'c1', ownPush: true, tries: 1, localTip: 'c0'})
    expect(f.world.tip).toBe('c1')
  })

  it('an op that changes nothing writes nothing and reports the unchanged result', async () => {
    const f = fakeRemote()
    f.op((change) => ({kind: 'unchanged', change}))
    const done = await driveOnline(f.remote, 'origin')
    expect(done).toMatchObject({kind: 'unchanged', tries: 1})
    expect(f.log).toEqual(['fetch list +pending', 'op on c0'])
  })

  it('a lost push re-runs the op on a fresh fetch (the second run sees the winner)', async () => {
    const f = fakeRemote()
    const pushList = f.remote.pushList
    let first = true
    f.remote.pushList = async (change, expected) => {
      if (first) {
        first = false
        f.world.tip = 'winner' // someone else's push landed first
      }
      return pushList(change, expected)
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'push-list', 'sleep', 'fetch list +pending', 'op on winner', 'push-list'])
    expect(done.tries).toBe(2)
    expect(done.change).toEqual({run: 2, base: 'winner'})
  })

  it('an op refused on a fetched tip fails with its own error, at once', async () => {
    const f = fakeRemote()
    const refusal = new ConflictError('already_claimed', 'already claimed by bob')
    f.op(() => ({kind: 'refused', error: refusal}))
    await expect(driveOnline(f.remote, 'origin')).rejects.toBe(refusal)
    expect(f.log).toEqual(['fetch list +pending', 'op on c0'])
  })

  it(`after ${MAX_STALLED_TRIES} rejected pushes while the remote did not move, it gives up with cas_exhausted`, async () => {
    const f = fakeRemote()
    f.remote.pushList = async () => {
      f.log.push('push-list')
      return {pushed: STALE, commit: 'x'}
    }
    const error = await failure(driveOnline(f.remote, 'origin'))
    expect(error.code).toBe('cas_exhausted')
    expect(error.exitCode).toBe(4)
    expect(error.message).toMatch(/12 pushes in a row were rejected while the remote did not change \(last: stale info\); gave up after 12 tries/)
    expect(error.data).toMatchObject({tries: 12, remote: 'origin', last_rejection: 'stale info'})
    expect(f.log.filter((l) => l === 'push-list')).toHaveLength(12)
    expect(f.log.filter((l) => l.startsWith('fetch'))).toHaveLength(13)
  })

  it('keeps trying while the remote moves, and gives up when the time budget is spent', async () => {
    const f = fakeRemote()
    f.remote.pushList = async () => {
      f.world.tip = `moved${f.world.commits++}` // someone else always wins
      f.world.clock += 60_000
      return {pushed: STALE, commit: 'x'}
    }
    const error = await failure(driveOnline(f.remote, 'origin'))
    expect(error.code).toBe('cas_exhausted')
    expect(error.message).toMatch(/it kept losing races for 18\d\d s/)
    // Every try but the budget's last read lost a race: 30 one-minute races.
    expect(error.data.tries).toBe(Math.ceil(ONLINE_BUDGET_MS / 60_000))
  })

  it('a server that declines the update is asked five times, then push_declined', async () => {
    const f = fakeRemote()
    f.remote.pushList = async () => ({pushed: DECLINED, commit: 'x'})
    const error = await failure(driveOnline(f.remote, 'origin'))
    expect(error.code).toBe('push_declined')
    expect(error.data).toMatchObject({remote: 'origin', tries: 5, last_rejection: 'hook declined'})
  })

  it(`a one-item change on a busy list (${PENDING_AT_ONCE} others pending) waits as a pending ref; a fold by the leader publishes it`, async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.look = async () => {
      f.log.push('look')
      // The leader folds everything, this change included.
      const mine = f.world.pending.get('tsk-z')!
      f.world.pending.clear()
      f.world.tip = 'folded'
      f.world.landed.set(mine, 'landed-z')
      return {tip: f.world.tip, pending: new Map()}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'push-pending tsk-z', 'sleep', 'look', 'learn-fate'])
    expect(done).toMatchObject({landed: 'landed-z', tip: 'folded', ownPush: false, tries: 2})
  })

  it('a direct push that lost while another change waits goes pending, and folds after a look when it leads', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-m', 'pm') // one other change pending: not busy, and tsk-a would lead it
    f.op((change) => ({kind: 'changed', change, item: 'tsk-a', holdsItem: true}))
    const fold = f.remote.fold
    let lost = false
    f.remote.fold = async (tip, pending, own) => {
      if (own && !lost) {
        lost = true
        f.log.push('fold own')
        return {pushed: STALE, tip, folded: new Map()}
      }
      return fold(tip, pending, own)
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log.filter((l) => !l.startsWith('op'))).toEqual(['fetch list +pending', 'fold own', 'sleep', 'fetch list +pending', 'push-pending tsk-a', 'sleep', 'look', 'fetch list +pending', 'fold'])
    expect(done).toMatchObject({ownPush: false, tries: 3})
    expect(f.world.pending.size).toBe(0)
  })

  it('a leader parked on a stale base with one other change pending folds on its next try, without a look', async () => {
    const f = fakeRemote()
    f.remote.fetchedBusy = (withinMs) => withinMs === 5000
    f.world.pending.set('tsk-m', 'pm')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-a', holdsItem: true}))
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch tracking', 'op on c0', 'push-pending tsk-a', 'fetch list +pending', 'fold'])
    expect(done).toMatchObject({ownPush: false, tries: 2})
  })

  it('a host that refuses pending refs turns the command to the list\'s ref', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.pushPending = async (id) => {
      f.log.push(`push-pending ${id}`)
      return {pushed: DECLINED, commit: 'x'}
    }
    f.remote.pushList = async () => {
      f.log.push('push-list')
      f.world.tip = 'c9'
      return {pushed: {ok: true}, commit: 'c9'}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'push-pending tsk-z', 'sleep', 'fetch list', 'op on c0', 'push-list'])
    expect(done).toMatchObject({landed: 'c9', ownPush: true, tries: 2})
  })

  it('a host that refuses a pending ref as such: noted once, and the same change goes to the list\'s ref at once', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.pushPending = async (id) => {
      f.log.push(`push-pending ${id}`)
      return {pushed: {...DECLINED, hostRefused: true}, commit: 'x'}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    // No wait, no second fetch or op: the change was computed on the fetched tip, the list's lease checks it.
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'push-pending tsk-z', 'note-refused', 'push-list'])
    expect(done).toMatchObject({ownPush: true, tries: 1})
    expect(f.world.refused).toBe(true)
  })

  it('refused before (the clone\'s note): a one-item change on a busy list goes straight to the list\'s ref', async () => {
    const f = fakeRemote()
    f.world.refused = true
    // Everything that would send it to a pending ref: others pending, a busy last fetch, an item it holds.
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.remote.fetchedBusy = () => true
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.pushPending = async () => {
      throw new Error('a pending ref was pushed to a host known to refuse them')
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list', 'op on c0', 'push-list'])
    expect(done).toMatchObject({ownPush: true, tries: 1})
  })

  it('a parked change is withdrawn when the command gives up, so it never lands after the failure', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    // Nobody folds; the leader's pending refs stay; each look sees the list still and the clock runs on.
    f.remote.look = async () => {
      f.log.push('look')
      return {tip: f.world.tip, pending: new Map(f.world.pending)}
    }
    f.remote.fold = async (tip) => {
      f.log.push('fold')
      return {pushed: STALE, tip, folded: new Map()}
    }
    const error = await failure(driveOnline(f.remote, 'origin'))
    expect(error.code).toBe('cas_exhausted')
    expect(f.log).toContain('withdraw')
    expect(f.world.pending.has('tsk-z')).toBe(false)
  })

  it('a parked change that someone folds just as the command gives up is reported as published, not as a failure', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.fold = async (tip) => ({pushed: STALE, tip, folded: new Map()})
    f.remote.withdraw = async (parked) => {
      f.log.push('withdraw')
      f.world.pending.delete(parked.id)
      f.world.landed.set(parked.commit, 'late')
      return false
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log.slice(-2)).toEqual(['withdraw', 'learn-fate'])
    expect(done).toMatchObject({landed: 'late', ownPush: false})
  })

  it('a host that refuses atomic pushes: the parked change is withdrawn and goes to the list\'s ref in the same try', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-m', 'pm').set('tsk-n', 'pn')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-a', holdsItem: true}))
    f.remote.fold = async (tip) => {
      f.log.push('fold')
      return {pushed: DECLINED, tip, folded: new Map()}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    // It leads the line (tsk-a), so after one look it folds; the fold is declined.
    expect(f.log.slice(2)).toEqual(['push-pending tsk-a', 'sleep', 'look', 'fetch list +pending', 'fold', 'withdraw', 'op on c0', 'push-list'])
    expect(done).toMatchObject({ownPush: true, tries: 2})
    expect(f.world.pending.has('tsk-a')).toBe(false)
  })

  it('someone else\'s pending change of the same item on a busy list is watched until it settles, then the op runs again', async () => {
    const f = fakeRemote()
    f.world.pending.set('tsk-a', 'pa').set('tsk-z', 'pz')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.look = async () => {
      f.log.push('look')
      f.world.pending.delete('tsk-z') // the leader folded it
      f.world.tip = 'c-folded'
      return {tip: f.world.tip, pending: new Map(f.world.pending)}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['fetch list +pending', 'op on c0', 'sleep', 'look', 'fetch list +pending', 'op on c-folded', 'fold own'])
    expect(done).toMatchObject({ownPush: true, tries: 2})
  })

  it('a change of a held item on a busy last fetch runs on the tracking ref and goes straight to its pending ref', async () => {
    const f = fakeRemote()
    f.remote.fetchedBusy = (withinMs, pending) => withinMs === 5000 && pending === 2
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: true}))
    f.remote.look = async () => {
      f.log.push('look')
      f.world.landed.set(f.world.pending.get('tsk-z')!, 'landed-z')
      f.world.pending.clear()
      return {tip: 'folded', pending: new Map()}
    }
    published(await driveOnline(f.remote, 'origin'))
    expect(f.log.slice(0, 3)).toEqual(['fetch tracking', 'op on c0', 'push-pending tsk-z'])
  })

  it('a stale base is dropped for a change of an item the actor does not hold: it fetches first', async () => {
    const f = fakeRemote()
    f.remote.fetchedBusy = () => true
    f.world.pending.set('tsk-a', 'pa').set('tsk-b', 'pb')
    f.op((change) => ({kind: 'changed', change, item: 'tsk-z', holdsItem: change.run > 1}))
    f.remote.look = async () => {
      f.log.push('look')
      f.world.landed.set(f.world.pending.get('tsk-z')!, 'landed-z')
      f.world.pending.clear()
      return {tip: 'folded', pending: new Map()}
    }
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log.slice(0, 5)).toEqual(['fetch tracking', 'op on c0', 'fetch list-and-look', 'op on c0', 'push-pending tsk-z'])
    expect(done.tries).toBe(2)
  })

  it('an op that refuses on a tip no fetch confirmed (assumed) runs again on a fetch, and that try does not count', async () => {
    const f = fakeRemote()
    f.remote.assumedTip = async () => 'c0'
    f.op((change) => (change.run === 1 ? {kind: 'refused', error: new Error('no')} : {kind: 'changed', change, item: null, holdsItem: false}))
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['op on c0', 'fetch list +pending', 'op on c0', 'push-list'])
    expect(done.tries).toBe(1)
  })

  it('a push on an assumed tip that lost is forgotten and retried on a fetch', async () => {
    const f = fakeRemote()
    f.remote.assumedTip = async () => 'old'
    f.world.local = 'old' // a long-lived process assumes only the tip it left both refs at
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toEqual(['op on old', 'push-list', 'forget-assumed-tip', 'fetch list +pending', 'op on c0', 'push-list'])
    expect(done.tries).toBe(1)
  })

  it('unpublished local commits that diverged are merged first, and what the merge said comes with the result', async () => {
    const f = fakeRemote()
    f.world.local = 'mine'
    f.remote.relate = async () => ({relation: 'diverged', mergeBase: 'c0', othersLanded: 0})
    f.remote.mergeLocal = async () => ({commit: 'merge', warnings: [{kind: 'conflict', message: 'merged unpublished local changes: x'}]})
    const done = published(await driveOnline(f.remote, 'origin'))
    expect(f.log).toContain('op on merge')
    expect(done.warnings).toEqual([{kind: 'conflict', message: 'merged unpublished local changes: x'}])
    expect(done.localTip).toBe('mine')
  })
})

/** Feed the step function the events of one scenario and keep each action it asked for. */
function walk(events: Array<(previous: Action<Change>) => Event<Change>>, known = {}): Array<Action<Change>> {
  let next: Next<Change> = begin<Change>('origin', 0, known)
  const actions = [next.action]
  for (const event of events) {
    next = step(next.state, event(next.action))
    actions.push(next.action)
  }
  return actions
}

const at = (t: number) => ({at: t})
const fetched = (t: number, pending: Array<[string, string]>, pendingHere = true) => () => ({kind: 'fetched' as const, tip: 'c0', pending: new Map(pending), pendingHere, ...at(t)})

describe('the step function, fed outcomes by hand', () => {
  it('a new change on a list the last fetch found busy fetches the list alone, with a look beside it', () => {
    const actions = walk([() => ({kind: 'fetch-note', busy: false, ...at(1)}), () => ({kind: 'assumed', tip: null, ...at(2)}), () => ({kind: 'fetch-note', busy: true, ...at(3)})])
    expect(actions.map((a) => a.kind)).toEqual(['check-fetch-note', 'assume-tip', 'check-fetch-note', 'fetch'])
    expect(actions[2]).toEqual({kind: 'check-fetch-note', withinMs: 60_000, pending: 1})
    expect(actions[3]).toEqual({kind: 'fetch', how: 'list-and-look', claims: true})
  })

  it('refused before: no stale base, no look, a fetch of the list alone, and the one-item change pushed to the list', () => {
    const actions = walk(
      [
        () => ({kind: 'fetch-note', busy: true, ...at(1)}),
        () => ({kind: 'assumed', tip: null, ...at(2)}),
        () => ({kind: 'fetched', tip: 'c0', pending: new Map(), pendingHere: true, ...at(3)}),
        () => ({kind: 'local-tip', tip: 'c0', ...at(4)}),
        () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c0'}, item: 'tsk-a', holdsItem: true}, ...at(5)}),
      ],
      {pendingRefused: true},
    )
    expect(actions.map((a) => a.kind)).toEqual(['check-fetch-note', 'assume-tip', 'fetch', 'read-local-tip', 'run-op', 'push-list'])
    expect(actions[2]).toEqual({kind: 'fetch', how: 'list', claims: false})
    expect(actions[4]).toEqual({kind: 'run-op', base: 'c0', contention: null})
    expect(actions[5]).toMatchObject({kind: 'push-list', expected: 'c0'})
  })

  it('a pending ref refused as such on a stale base: noted, then the op runs again on a fetch', () => {
    const actions = walk([
      () => ({kind: 'fetch-note', busy: true, ...at(1)}),
      () => ({kind: 'assumed', tip: null, ...at(1)}),
      () => ({kind: 'fetched', tip: 'c0', pending: new Map([['tsk-b', 'pb'], ['tsk-c', 'pc']]), pendingHere: true, ...at(2)}),
      () => ({kind: 'local-tip', tip: 'c0', ...at(3)}),
      () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c0'}, item: 'tsk-a', holdsItem: true}, ...at(4)}),
      () => ({kind: 'pushed', pushed: {ok: false, reason: 'declined', detail: 'hook declined', hostRefused: true}, commit: 'x', ...at(5)}),
      () => ({kind: 'noted', ...at(6)}),
    ])
    expect(actions.map((a) => a.kind)).toEqual(['check-fetch-note', 'assume-tip', 'fetch', 'read-local-tip', 'run-op', 'push-pending', 'note-pending-refused', 'fetch'])
    expect(actions[2]).toEqual({kind: 'fetch', how: 'tracking', claims: true})
    expect(actions[7]).toEqual({kind: 'fetch', how: 'list', claims: false})
  })

  it('a fold that turns out due without the pending objects here restarts with a fetch that brings them', () => {
    const actions = walk([
      () => ({kind: 'fetch-note', busy: false, ...at(1)}),
      () => ({kind: 'assumed', tip: null, ...at(2)}),
      () => ({kind: 'fetch-note', busy: true, ...at(3)}),
      fetched(4, [['tsk-a', 'pa']], false),
      () => ({kind: 'local-tip', tip: 'c0', ...at(5)}),
      // A change to several items cannot carry the pending one: settle it first, which needs its objects.
      () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c0'}, item: null, holdsItem: false}, ...at(6)}),
    ])
    expect(actions.at(-1)).toEqual({kind: 'fetch', how: 'list', claims: true})
  })

  it('a contended try passes the pending ids and a spread to the op', () => {
    const actions = walk([() => ({kind: 'fetch-note', busy: false, ...at(1)}), () => ({kind: 'assumed', tip: null, ...at(2)}), () => ({kind: 'fetch-note', busy: false, ...at(3)}), fetched(4, [['tsk-a', 'pa']]), () => ({kind: 'local-tip', tip: 'c0', ...at(5)})])
    const run = actions.at(-1)!
    expect(run.kind).toBe('run-op')
    if (run.kind !== 'run-op') return
    expect([...run.contention!.busy]).toEqual(['tsk-a'])
    expect(run.contention!.spread).toBe(2)
  })

  it('someone else\'s pending change of the item on a busy list is watched until it settles, not folded', () => {
    const pending: Array<[string, string]> = [
      ['tsk-a', 'pa'],
      ['tsk-z', 'pz'],
    ]
    const actions = walk([
      () => ({kind: 'fetch-note', busy: false, ...at(1)}),
      () => ({kind: 'assumed', tip: null, ...at(2)}),
      () => ({kind: 'fetch-note', busy: false, ...at(3)}),
      fetched(4, pending),
      () => ({kind: 'local-tip', tip: 'c0', ...at(5)}),
      () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c0'}, item: 'tsk-z', holdsItem: true}, ...at(6)}),
      () => ({kind: 'waited', ...at(500)}),
      // The list stood still past the fold patience: the next try settles it itself.
      () => ({kind: 'looked', look: {tip: 'c0', pending: new Map(pending)}, ...at(9000)}),
    ])
    expect(actions[6]).toEqual({kind: 'wait', minMs: 125, maxMs: 375})
    expect(actions[7]).toEqual({kind: 'look'})
    // Next try: no assumption, no note (not the first try), a full fetch.
    expect(actions[8]).toEqual({kind: 'check-fetch-note', withinMs: 60_000, pending: 1})
  })

  it('a lost direct push backs off in a window that starts at 50 ms', () => {
    const actions = walk([
      () => ({kind: 'fetch-note', busy: false, ...at(1)}),
      () => ({kind: 'assumed', tip: null, ...at(2)}),
      () => ({kind: 'fetch-note', busy: false, ...at(3)}),
      fetched(4, []),
      () => ({kind: 'local-tip', tip: 'c0', ...at(5)}),
      () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c0'}, item: 'tsk-z', holdsItem: true}, ...at(6)}),
      () => ({kind: 'folded', pushed: STALE, tip: 'c0', folded: new Map(), ...at(7)}),
    ])
    expect(actions[6]).toMatchObject({kind: 'fold', own: {id: 'tsk-z'}})
    const wait = actions[7]!
    if (wait.kind !== 'wait') throw new Error(wait.kind)
    expect(wait.minMs).toBe(0)
    expect(wait.maxMs).toBeGreaterThan(49.99)
    expect(wait.maxMs).toBeLessThanOrEqual(50)
  })

  it('refused before: a lost push of the list waits about one try per contender, so that about one of them tries per round', () => {
    // The try starts at 1000 ms (the assumed tip was gone); the push is rejected at 1400 ms: a try takes 400 ms here.
    const lose = (others: number) =>
      walk(
        [
          () => ({kind: 'fetch-note', busy: false, ...at(1000)}),
          () => ({kind: 'assumed', tip: null, ...at(1000)}),
          () => ({kind: 'fetched', tip: 'c1', pending: new Map(), pendingHere: true, ...at(1200)}),
          () => ({kind: 'local-tip', tip: 'c0', ...at(1201)}),
          () => ({kind: 'related', relation: 'behind', mergeBase: null, othersLanded: others, ...at(1202)}),
          () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c1'}, item: 'tsk-a', holdsItem: true}, ...at(1210)}),
          () => ({kind: 'pushed', pushed: STALE, commit: 'x', ...at(1400)}),
        ],
        {pendingRefused: true},
      )
    const actions = lose(3)
    expect(actions.map((a) => a.kind)).toEqual(['check-fetch-note', 'assume-tip', 'fetch', 'read-local-tip', 'relate', 'run-op', 'push-list', 'wait'])
    // Two tries' length per contender: 2 × 400 ms × 3 others, narrowed by the 1.4 s already spent (× (1 - 1400/150000)).
    expect(actions[7]).toEqual({kind: 'wait', minMs: 0, maxMs: 2400 * (1 - 1400 / 150_000)})
    // Nobody else seen landing yet: one contender at least (the push was lost to someone).
    expect(lose(0)[7]).toEqual({kind: 'wait', minMs: 0, maxMs: 800 * (1 - 1400 / 150_000)})
    // Many: at most MAX_PACE_MS.
    expect(lose(40)[7]).toEqual({kind: 'wait', minMs: 0, maxMs: MAX_PACE_MS * (1 - 1400 / 150_000)})
  })

  it('with pending refs in use, a lost push of the list still backs off from 50 ms (the pace is for hosts that refuse them)', () => {
    const actions = walk([
      () => ({kind: 'fetch-note', busy: false, ...at(1000)}),
      () => ({kind: 'assumed', tip: null, ...at(1000)}),
      () => ({kind: 'fetch-note', busy: false, ...at(1000)}),
      () => ({kind: 'fetched', tip: 'c1', pending: new Map(), pendingHere: true, ...at(1200)}),
      () => ({kind: 'local-tip', tip: 'c1', ...at(1201)}),
      // Not a one-item change (an add): it goes to the list's ref.
      () => ({kind: 'op-ran', outcome: {kind: 'changed', change: {run: 1, base: 'c1'}, item: null, holdsItem: false}, ...at(1210)}),
      () => ({kind: 'pushed', pushed: STALE, commit: 'x', ...at(1400)}),
    ])
    expect(actions.map((a) => a.kind).slice(-2)).toEqual(['push-list', 'wait'])
    expect(actions.at(-1)).toEqual({kind: 'wait', minMs: 0, maxMs: 50 * (1 - 1400 / 150_000)})
  })

  it('an event that does not answer the last action is a programming error', () => {
    const first = begin<Change>('origin', 0)
    expect(() => step(first.state, {kind: 'waited', at: 1})).toThrow(/a waited event where fetch-note was due/)
  })
})

describe('what a clone remembers of a host that refuses pending refs', () => {
  const line = (ref: string, why: string) => `!\tabc:${ref}\tabc\t[remote rejected] (${why})`

  it('a refusal of a pending ref by the host is told from the guard\'s and from other failures', () => {
    const ref = 'refs/tasks-claims/main/tsk-a'
    expect(refusedByHost([line(ref, 'pre-receive hook declined')], 'remote: FATAL: W refs/tasks-claims/main/tsk-a agent DENIED by fallthru')).toBe(true)
    expect(refusedByHost([line(ref, 'hook declined')], '')).toBe(true)
    expect(refusedByHost([line(ref, 'deny updating a hidden ref')], '')).toBe(true)
    // The guard names its rule: the change is refused, not the namespace.
    expect(refusedByHost([line(ref, 'pre-receive hook declined')], `remote: git-tasks refused the update of ${ref}:\nremote:   commit 0123: [not_owner] x`)).toBe(false)
    expect(refusedByHost([line(ref, 'pre-receive hook declined')], 'remote:   commit 0123 tasks/x/task.md: [clock_skew] dated ahead')).toBe(false)
    // Not a refusal (the server failed), or not a pending ref.
    expect(refusedByHost([line(ref, 'unpacker error')], '')).toBe(false)
    expect(refusedByHost([line('refs/tasks/main', 'hook declined')], '')).toBe(false)
    expect(refusedByHost([], 'fatal: the remote end hung up')).toBe(false)
  })

  it('the note is honoured for an hour, per remote, and not when dated ahead', () => {
    const dir = mkdtempSync(join(tmpdir(), 'refused-note-'))
    try {
      const t = Date.parse('2026-01-01T12:00:00Z')
      expect(pendingRefused(dir, 'origin', t)).toBeNull()
      expect(notePendingRefused(dir, 'origin', 'hook declined', t)).toBe(true)
      // News only once: a second refusal while the note holds is not said again.
      expect(notePendingRefused(dir, 'origin', 'hook declined', t + 1000)).toBe(false)
      expect(pendingRefused(dir, 'origin', t + 2000)).toEqual({since: new Date(t + 1000).toISOString(), until: new Date(t + 1000 + PENDING_REFUSED_TTL_MS).toISOString(), detail: 'hook declined'})
      expect(pendingRefused(dir, 'origin', t + 1000 + PENDING_REFUSED_TTL_MS)).toBeNull()
      expect(pendingRefused(dir, 'upstream', t + 2000)).toBeNull()
      // A remote's name with a slash is one file too.
      notePendingRefused(dir, 'team/shared', 'denied', t)
      expect(pendingRefused(dir, 'team/shared', t)).not.toBeNull()
      // A clock set back: a note from well ahead of now is not believed.
      expect(pendingRefused(dir, 'origin', t - 10 * 60_000)).toBeNull()
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
