/**
 * Leases that activity renews (docs/model.md, "Claims, leases, epochs"): a
 * heartbeat, a checkpoint, a comment or a check update by the holder of a
 * live claim moves its lease to now + the lease length in effect (--lease,
 * else the list's lease_seconds), and nothing shortens a longer live lease:
 * `heartbeat --lease 1m` on a two-hour lease keeps the two hours and says so.
 * The fencing the owner mutations share (`--epoch`, and require_epoch for
 * agents) is ops/permission.ts, `assertFence`.
 */
import type {Change, OpContext} from '../plan'
import {claimIsLive} from '../readiness'
import type {ListConfig, TaskMeta} from '../task'
import {leaseUntil, revise} from './revision'

export interface Renewal {
  /** The lease's end after the renewal (undefined: a claim without a lease, which never runs out). */
  until: string | undefined
  /** What was asked for: now + the lease length in effect. */
  asked: string
  /** True when a longer live lease was kept instead of what was asked. */
  kept: boolean
}

/** The later of a lease already held and one asked for (compared as times, whatever their text): a renewal never shortens. */
export function longerLease(held: string | undefined, asked: string): string {
  return held !== undefined && Date.parse(held) > Date.parse(asked) ? held : asked
}

/** The lease `meta`'s holder gets at `now` for `seconds` (default lease_seconds): never earlier than a live lease already runs. */
export function renewedLease(meta: TaskMeta, now: string, config: ListConfig, seconds?: number): Renewal {
  const asked = leaseUntil(now, seconds ?? config.lease_seconds)
  if (claimIsLive(meta, now, config) && (meta.lease_expires === undefined || Date.parse(meta.lease_expires) > Date.parse(asked))) {
    return {until: meta.lease_expires, asked, kept: true}
  }
  return {until: asked, asked, kept: false}
}

/**
 * The renewal a comment or a check update by the holder brings: the card
 * with its lease moved on (one put-task, revision + 1), or null when the
 * actor does not hold a live claim on it or the lease would not move. An
 * expired claim is not brought back by a comment: heartbeat or claim it.
 */
export function activityRenewal(meta: TaskMeta, ctx: OpContext, config: ListConfig): {change: Change; task: TaskMeta} | null {
  if (meta.owner !== ctx.actor || !claimIsLive(meta, ctx.now, config)) return null
  const r = renewedLease(meta, ctx.now, config)
  if (r.until === meta.lease_expires) return null
  const task = revise(meta, ctx, {lease_expires: r.until})
  return {change: {kind: 'put-task', meta: task}, task}
}
