/**
 * What a commit on the tasks ref meant, read from its trailers (the ops
 * write them; src/core/plan.ts commitMessage). Pure: trailers in, a
 * structured record out. `tasks log` shows these; nothing here reads git.
 */
import {durationSeconds} from './duration-flag'

export interface EventDetails {
  /** Tasks-Epoch: the claim's fencing token after (claim) or during (heartbeat, done, release) the event. */
  epoch?: number
  /** Tasks-Takeover: the previous holder whose claim this one took over. */
  took_over_from?: string
  /** Tasks-Override: the reason given with --force. */
  override_reason?: string
  /** Tasks-Renewed: a claim by its own holder that only renewed the lease. */
  renewed?: boolean
  /** Tasks-Via: how the claim was made (`next`). */
  via?: string
  /** Tasks-Note: the note of a block. */
  note?: string
  /** Tasks-Reason: why (a cancel, a takeover, a spec change given --reason). */
  reason?: string
  /** Tasks-Assignee: who the item was reserved for; null when the reservation was lifted. */
  assignee?: string | null
  /** Tasks-Fields: the fields an edit changed. */
  fields?: string[]
  /** Tasks-Depends-On: the dependencies after a deps change. */
  depends_on?: string[]
  /** Tasks-Comment-Kind. */
  comment_kind?: string
  /** Tasks-Restored-From: the commit that had removed what a restore brought back. */
  restored_from?: string
  /** Tasks-Config: the keys a config change set, as `key=value` (or `key` unset). */
  config?: string[]
  /** Tasks-Merge: what a sync merge decided (`kind id-or-path`). */
  merge?: string[]
  /** Tasks-Repair: what the reconciler or doctor repaired (`kind id`). */
  repairs?: string[]
  /** Tasks-Blocked-On: who a block made the card wait on (`block --on`). */
  blocked_on?: string
  /** Tasks-Unblocked: the items whose last open dependency the commit finished (core/unblock.ts). */
  unblocked?: string[]
  /** Reverts-Actor: whose writes a `revert` took back. */
  reverts_actor?: string
}

const list = (v: string) => v.split(/[\s,]+/).filter(Boolean)

/** The structured meaning of an event's trailers. Unknown trailers are left to the raw `trailers` list. */
export function detailsOf(_op: string, trailers: ReadonlyArray<readonly [string, string]>): EventDetails {
  const d: EventDetails = {}
  const push = (key: 'merge' | 'repairs' | 'config' | 'unblocked', value: string) => (d[key] ??= []).push(value)
  for (const [k, v] of trailers) {
    switch (k) {
      case 'Tasks-Epoch': {
        const n = Number(v)
        if (Number.isSafeInteger(n)) d.epoch = n
        break
      }
      case 'Tasks-Takeover':
        d.took_over_from = v
        break
      case 'Tasks-Override':
        d.override_reason = v
        break
      case 'Tasks-Renewed':
        d.renewed = true
        break
      case 'Tasks-Via':
        d.via = v
        break
      case 'Tasks-Note':
        d.note = v
        break
      case 'Tasks-Reason':
        d.reason = v
        break
      case 'Tasks-Assignee':
        d.assignee = v === '(none)' ? null : v
        break
      case 'Tasks-Fields':
        d.fields = list(v)
        break
      case 'Tasks-Depends-On':
        d.depends_on = v === '(none)' ? [] : list(v)
        break
      case 'Tasks-Comment-Kind':
        d.comment_kind = v
        break
      case 'Tasks-Restored-From':
        d.restored_from = v
        break
      case 'Tasks-Config':
        push('config', v)
        break
      case 'Tasks-Merge':
        push('merge', v)
        break
      case 'Tasks-Repair':
        push('repairs', v)
        break
      case 'Tasks-Blocked-On':
        d.blocked_on = v
        break
      case 'Tasks-Unblocked':
        push('unblocked', v)
        break
      case 'Reverts-Actor':
        d.reverts_actor = v
        break
    }
  }
  return d
}

/** What a person reads after the subject: "took over from bob at epoch 3; forced: stuck for a day". */
export function describeDetails(d: EventDetails): string {
  const parts: string[] = []
  if (d.renewed) parts.push(`renewed the lease${d.epoch !== undefined ? ` at epoch ${d.epoch}` : ''}`)
  else if (d.took_over_from) parts.push(`took over from ${d.took_over_from}${d.epoch !== undefined ? ` at epoch ${d.epoch}` : ''}`)
  else if (d.epoch !== undefined) parts.push(`epoch ${d.epoch}`)
  if (d.via) parts.push(`via ${d.via}`)
  if (d.override_reason) parts.push(`forced: ${d.override_reason}`)
  if (d.note) parts.push(`note: ${d.note}`)
  if (d.blocked_on) parts.push(`waits on ${d.blocked_on}`)
  if (d.reason) parts.push(`reason: ${d.reason}`)
  if (d.assignee !== undefined) parts.push(d.assignee === null ? 'unassigned' : `assigned to ${d.assignee}`)
  if (d.fields) parts.push(`changed ${d.fields.join(', ')}`)
  if (d.depends_on) parts.push(d.depends_on.length ? `depends on ${d.depends_on.join(', ')}` : 'no dependencies')
  if (d.comment_kind) parts.push(`[${d.comment_kind}]`)
  if (d.restored_from) parts.push(`removed in ${d.restored_from.slice(0, 10)}`)
  if (d.config) parts.push(d.config.join(', '))
  if (d.merge) parts.push(`merge: ${d.merge.join(', ')}`)
  if (d.repairs) parts.push(`repaired: ${d.repairs.join(', ')}`)
  if (d.unblocked) parts.push(`unblocked ${d.unblocked.join(', ')}`)
  if (d.reverts_actor) parts.push(`took back ${d.reverts_actor}'s writes`)
  return parts.join('; ')
}

/**
 * A point in time typed for `--since`/`--until`: a duration back from
 * `now` (`2h`, `3d`, `1w`, `1d12h`), a date (`2026-11-30`: midnight in the
 * local time zone) or a time (`2026-11-30 14:00`, local unless it carries a
 * zone; ISO-8601). Milliseconds, or null when it is none of these.
 */
export function parseTimePoint(text: string, nowMs: number): number | null {
  const input = text.trim().toLowerCase()
  const back = durationSeconds(input, false)
  if (back !== null) return nowMs - back * 1000
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input)
  if (day) {
    const t = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime()
    return Number.isNaN(t) ? null : t
  }
  if (!/^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}/.test(input)) return null
  const t = Date.parse(text.trim().replace(' ', 'T'))
  return Number.isNaN(t) ? null : t
}
