/**
 * A server that refuses an update itself (a hook, a protected ref), as
 * opposed to a lost race, is asked again a few times (a refusal may be
 * transient), then reported as `push_declined` (exit 4): retrying a hook's
 * refusal a hundred times helps nobody. Used by `sync` and by the online
 * write path.
 */
import {ConflictError} from '../core/errors'
import type {PushOutcome} from '../refstore/remote'

/** A server that refuses the update itself (a hook) is asked this many times, then reported. */
export const MAX_DECLINED = 5

/** The error of the MAX_DECLINED-th refusal (`tries`: the command's tries so far). */
export function pushDeclined(remote: string, declined: number, detail: string, tries: number): ConflictError {
  return new ConflictError('push_declined', `${remote} refused the update ${declined} times: ${detail}`, {remote, tries, last_rejection: detail})
}

/** Counts pushes the server declined and throws `push_declined` at the MAX_DECLINED-th. */
export function refusalCounter(remote: string): (pushed: PushOutcome, tries: number) => void {
  let declined = 0
  return (pushed, tries) => {
    if (!pushed.ok && pushed.reason === 'declined' && ++declined >= MAX_DECLINED) throw pushDeclined(remote, declined, pushed.detail, tries)
  }
}
