/**
 * The driver of the online write path: performs each action the step
 * function asks for through an OnlineRemote and feeds the outcome back,
 * until the step says done (the result) or fail (the error it throws).
 * Errors the remote itself throws (an unreachable remote, a timeout, a
 * held lock) end the loop as they are.
 */
import {begin, step} from './step'
import type {Action, Event, Finished, OnlineRemote} from './types'

export async function driveOnline<C>(remote: OnlineRemote<C>, remoteName: string): Promise<Finished<C>> {
  let next = begin<C>(remoteName, remote.now(), {pendingRefused: remote.pendingRefused()})
  for (;;) {
    const {action} = next
    if (action.kind === 'done') return action.finished
    if (action.kind === 'fail') throw action.error
    next = step(next.state, await perform(remote, action))
  }
}

/** Do one action; the event carries its outcome and the clock after it. */
async function perform<C>(remote: OnlineRemote<C>, action: Exclude<Action<C>, {kind: 'done' | 'fail'}>): Promise<Event<C>> {
  const stamp = <E>(outcome: E): E & {at: number} => ({...outcome, at: remote.now()})
  switch (action.kind) {
    case 'check-fetch-note':
      return stamp({kind: 'fetch-note', busy: remote.fetchedBusy(action.withinMs, action.pending)})
    case 'assume-tip':
      return stamp({kind: 'assumed', tip: await remote.assumedTip()})
    case 'fetch':
      return stamp({kind: 'fetched', ...(await remote.fetch(action.how, action.claims))})
    case 'look':
      return stamp({kind: 'looked', look: await remote.look()})
    case 'read-local-tip':
      return stamp({kind: 'local-tip', tip: await remote.localTip()})
    case 'relate':
      return stamp({kind: 'related', ...(await remote.relate(action.remoteTip, action.localTip, action.recentSince))})
    case 'merge-local':
      return stamp({kind: 'merged', ...(await remote.mergeLocal(action.remoteTip, action.localTip, action.mergeBase))})
    case 'run-op':
      return stamp({kind: 'op-ran', outcome: await remote.runOp(action.base, action.contention)})
    case 'fold':
      return stamp({kind: 'folded', ...(await remote.fold(action.tip, action.pending, action.own))})
    case 'push-pending':
      return stamp({kind: 'pushed', ...(await remote.pushPending(action.id, action.change))})
    case 'push-list':
      return stamp({kind: 'pushed', ...(await remote.pushList(action.change, action.expected))})
    case 'withdraw':
      return stamp({kind: 'withdrawn', ok: await remote.withdraw(action.parked)})
    case 'learn-fate':
      return stamp({kind: 'fate', ...(await remote.learnFate(action.parked, action.seen))})
    case 'find-landed':
      return stamp({kind: 'landed', landed: await remote.findLanded(action.tip, action.parked)})
    case 'forget-assumed-tip':
      remote.forgetAssumedTip()
      return stamp({kind: 'forgot'})
    case 'note-pending-refused':
      remote.notePendingRefused(action.detail)
      return stamp({kind: 'noted'})
    case 'wait':
      await remote.sleep(action.minMs + remote.random() * (action.maxMs - action.minMs))
      return stamp({kind: 'waited'})
  }
}
