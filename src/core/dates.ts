/**
 * Dates on cards (issue 33): `due`, `scheduled`, `defer_until`, and the
 * repeat interval `every`. Pure: every function takes the time as a value.
 *
 * A stored date is either a day, `YYYY-MM-DD` (UTC), or a timestamp in the
 * stored ISO form. A day as a due date means "by the end of that day"; as a
 * start (`scheduled`, `defer_until`), "from the start of that day".
 * docs/model.md, "Dates and repeats".
 */
import {UsageError} from './errors'
import {FINISHED, MAX_TIME_MS, MIN_TIME_MS, type Status, type TaskMeta} from './task'

const DAY_RE = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
const RELATIVE_RE = /^\+?([1-9]\d{0,3})([hdwmy])$/
const EVERY_RE = /^\+?([1-9]\d{0,2})([dwmy])$/
const DAY_MS = 86_400_000

/** True when `value` is a stored day (`YYYY-MM-DD`), not a timestamp. */
export function isDay(value: string): boolean {
  return DAY_RE.test(value)
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * True when `text` is a day of the calendar written `YYYY-MM-DD`, years
 * 0000 to 9999 (`2026-02-30` is not; `2024-02-29` is): the one check of a
 * typed or stored day (`--due` and the like, a custom field of type `date`).
 */
export function isCalendarDay(text: string): boolean {
  return DAY_RE.test(text) && dayOf(Date.parse(`${text}T00:00:00Z`)) === text
}

/**
 * What a person typed for a date (`--due`, `--scheduled`, `--until`), as
 * stored: `YYYY-MM-DD` stays a day; `today`, `tomorrow` are days; `+3d`,
 * `+2w`, `+1m`, `+1y`, `+4h` are that long from `now` (a timestamp); any
 * other text must be a timestamp with a zone (`2026-12-05T09:00:00Z`),
 * stored in UTC. Anything else is `bad_date` (exit 2).
 */
export function parseDateInput(text: string, now: string, what: string): string {
  const t = text.trim()
  const nowMs = Date.parse(now)
  if (isCalendarDay(t)) return t
  if (t === 'today') return dayOf(nowMs)
  if (t === 'tomorrow') return dayOf(nowMs + DAY_MS)
  const rel = RELATIVE_RE.exec(t)
  if (rel) {
    const n = Number(rel[1])
    const ms = rel[2] === 'h' ? nowMs + n * 3_600_000 : shiftMs(nowMs, n, rel[2] as 'd' | 'w' | 'm' | 'y')
    return inRange(ms, text, what)
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(t) && /(Z|[+-]\d{2}:?\d{2})$/.test(t)) {
    const ms = Date.parse(t)
    if (Number.isFinite(ms)) return inRange(ms, text, what)
  }
  throw badDate(text, what)
}

function inRange(ms: number, text: string, what: string): string {
  if (!(ms >= MIN_TIME_MS && ms <= MAX_TIME_MS)) throw badDate(text, what)
  return new Date(ms).toISOString()
}

function badDate(text: string, what: string): UsageError {
  return new UsageError(`${what} "${text}" is not a date: use YYYY-MM-DD, a timestamp with a zone (2026-12-05T09:00:00Z), today, tomorrow, or +N with h, d, w, m or y (+3d)`, {[what.replace(/^--/, '')]: text}, 'bad_date')
}

/** `--every`: `1d`, `2w`, `1m`, `1y` (a leading `+` is allowed, as in scitex's `+1w`); else `bad_every` (exit 2). */
export function parseEvery(text: string): string {
  const m = EVERY_RE.exec(text.trim())
  if (!m) throw new UsageError(`--every "${text}" is not a repeat interval: use N followed by d, w, m or y (1d, 1w, 1m, 1y)`, {every: text}, 'bad_every')
  return `${m[1]}${m[2]}`
}

/** The start of a stored date in milliseconds (a day: 00:00 UTC). */
export function startMs(value: string): number {
  return isDay(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value)
}

/** When a due date is missed: the end of a day (00:00 UTC the day after), or the timestamp itself. */
export function dueEndMs(value: string): number {
  return isDay(value) ? Date.parse(`${value}T00:00:00Z`) + DAY_MS : Date.parse(value)
}

/** `ms` moved on by `n` units; months and years keep the day of the month, clamped to the month's last day. */
function shiftMs(ms: number, n: number, unit: 'd' | 'w' | 'm' | 'y'): number {
  if (unit === 'd') return ms + n * DAY_MS
  if (unit === 'w') return ms + n * 7 * DAY_MS
  const d = new Date(ms)
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth() + (unit === 'm' ? n : n * 12)
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds())
}

/** A stored date moved on by a repeat interval (`every`), in the same form (a day stays a day). */
export function shiftDate(value: string, every: string): string {
  const m = EVERY_RE.exec(every)!
  const ms = shiftMs(startMs(value), Number(m[1]), m[2] as 'd' | 'w' | 'm' | 'y')
  const clamped = Math.min(MAX_TIME_MS, ms)
  return isDay(value) ? dayOf(clamped) : new Date(clamped).toISOString()
}

/**
 * When an open item may be handed out again, in milliseconds: a deferred
 * one when its `defer_until` has come and it is not scheduled later
 * (+Infinity without `defer_until`: deferred until reopened by hand); any
 * other, when its `scheduled` date has come (-Infinity: no date). The one
 * number the readiness predicates, the index's open rows and the guard use.
 */
export function wakeMsOf(meta: Pick<TaskMeta, 'status' | 'defer_until' | 'scheduled'>): number {
  const scheduled = meta.scheduled !== undefined ? startMs(meta.scheduled) : Number.NEGATIVE_INFINITY
  if (meta.status === 'deferred') return meta.defer_until !== undefined ? Math.max(startMs(meta.defer_until), scheduled) : Number.POSITIVE_INFINITY
  return scheduled
}

/**
 * The status an item has at `nowMs`, deferrals woken: a deferred item whose
 * wake time (`wakeMsOf`) has come is todo again. Derived at read time, like
 * lease expiry, so nothing has to run for it to happen; the stored status
 * stays `deferred` until the next write of the card, which writes `todo`
 * (the ops take `wokenMeta`). The readiness predicates, the ops and the
 * guard all judge by this status.
 */
export function wokenStatus(meta: Pick<TaskMeta, 'status' | 'defer_until' | 'scheduled'>, nowMs: number): Status {
  return meta.status === 'deferred' && wakeMsOf(meta) <= nowMs ? 'todo' : meta.status
}

/** The card as the ops see it at `now`: a deferral that has run out is woken (status todo, deferral fields cleared). */
export function wokenMeta(meta: TaskMeta, now: string): TaskMeta {
  if (wokenStatus(meta, Date.parse(now)) === meta.status) return meta
  const out = {...meta, status: 'todo' as const}
  delete out.defer_until
  delete out.defer_reason
  return out
}

/** True when a `scheduled` date (or a deferral) keeps the item from being handed out at `nowMs`. */
export function notYetScheduled(meta: Pick<TaskMeta, 'status' | 'defer_until' | 'scheduled'>, nowMs: number): boolean {
  return wakeMsOf(meta) > nowMs
}

/** Overdue: an item still open whose due date has passed at `nowMs`. */
export function isOverdue(meta: Pick<TaskMeta, 'status' | 'due'>, nowMs: number): boolean {
  return meta.due !== undefined && !FINISHED.has(meta.status) && nowMs >= dueEndMs(meta.due)
}

/** Due before `limitMs` (`list --due-before`): the due date's end at or before the limit's start. */
export function dueBefore(meta: Pick<TaskMeta, 'due'>, limitMs: number): boolean {
  return meta.due !== undefined && dueEndMs(meta.due) <= limitMs
}
