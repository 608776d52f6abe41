/**
 * Checks on what users type: titles, bodies, notes, tags, priorities, actor
 * names, leases and times. Over-limit or malformed input is an InvalidError
 * (exit 5) or a UsageError (exit 2) and nothing is written. The bounds are
 * the reader's (src/core/task.ts), so anything accepted here reads back.
 */
import {InvalidError, UsageError} from './errors'
import {conflictMarkerLine} from './frontmatter'
import {DEFAULT_TASK_TYPE, ENGINE_ACTOR, type ListConfig, MAX_LEASE_SECONDS, MAX_PRIORITY, MAX_TIME_MS, MIN_PRIORITY, MIN_TIME_MS, TASK_TYPES, allowedTypes} from './task'
import {dangerousCharacter} from './untrusted-text'

const TAG_RE = /^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,63}$/
const ACTOR_RE = /^[^\u0000-\u001f\u007f<>]{1,200}$/

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** A lone UTF-16 surrogate cannot be written as UTF-8 (it would become U+FFFD): refuse text that has one. */
function checkEncodable(what: string, text: string): void {
  if (/\p{Surrogate}/u.test(text)) throw new InvalidError('bad_utf8', `the ${what} is not valid Unicode text (a lone surrogate)`, {})
}

export function checkTitle(title: string, config: ListConfig): string {
  const t = title.trim()
  checkEncodable('title', t)
  if (t.length === 0) throw new InvalidError('empty_title', 'the title is empty')
  if (/[\n\r]/.test(t)) throw new InvalidError('multiline_title', 'a title is one line; put the rest in the body (--body)')
  const control = /\t/.test(t) ? 'U+0009' : dangerousCharacter(t)
  if (control) {
    throw new InvalidError('control_character', `the title contains the control character ${control}; a title is plain text (descriptions and comments may hold any text)`, {field: 'title', character: control})
  }
  const bytes = byteLength(t)
  if (bytes > config.max_title_bytes) {
    throw new InvalidError('title_too_long', `the title is ${bytes} bytes; the limit is ${config.max_title_bytes}`, {
      bytes,
      limit: config.max_title_bytes,
    })
  }
  return t
}

/** The codes of checkText per kind of text, written out so the registry test (test/unit/error-codes.test.ts) sees them. */
const TEXT_CODES = {
  body: {empty: 'empty_body', long: 'body_too_long'},
  comment: {empty: 'empty_comment', long: 'comment_too_long'},
  note: {empty: 'empty_note', long: 'note_too_long'},
  reason: {empty: 'empty_reason', long: 'reason_too_long'},
  summary: {empty: 'empty_summary', long: 'summary_too_long'},
  next: {empty: 'empty_next', long: 'next_too_long'},
  check: {empty: 'empty_check', long: 'check_too_long'},
  evidence: {empty: 'empty_evidence', long: 'evidence_too_long'},
} as const

export function checkText(what: keyof typeof TEXT_CODES, text: string, limit: number, required: boolean): string {
  checkEncodable(what, text)
  const bytes = byteLength(text)
  if (required && text.trim().length === 0) throw new InvalidError(TEXT_CODES[what].empty, `the ${what} is empty`)
  if (bytes > limit) {
    throw new InvalidError(TEXT_CODES[what].long, `the ${what} is ${bytes} bytes; the limit is ${limit}`, {bytes, limit})
  }
  return text
}

/**
 * A description may not hold a complete git conflict block (`<<<<<<<`,
 * `=======`, `>>>>>>>` at line starts): a task file with one reads as an
 * unresolved merge, so the tool would write what it then reports as broken.
 */
export function checkBody(body: string, config: ListConfig): string {
  const text = checkText('body', body, config.max_body_bytes, false)
  const line = conflictMarkerLine(text)
  if (line !== null) {
    throw new InvalidError('conflict_markers', `the body holds git conflict markers (line ${line}); resolve them, or indent the marker lines to quote them`, {line})
  }
  return text
}

/** Notes (block notes, cancel reasons, override reasons) share the comment limit. */
export function checkNote(what: 'note' | 'reason', text: string, config: ListConfig): string {
  return checkText(what, text, config.max_comment_bytes, true).trim()
}

/**
 * The one parser of a tag flag's value, for `add`, `edit`, `list` and
 * `next` alike: comma-separated, trimmed, and a leading `#` (how tags are
 * printed) dropped. Empty pieces are kept (as '') for checkTags to refuse.
 */
export function splitTags(raw: string): string[] {
  return raw.split(',').map((t) => t.trim().replace(/^#/, ''))
}

/** Tags from repeated and comma-separated values; an empty one (`--tag ''`, `a,,b`) is refused. */
export function checkTags(tags: readonly string[]): string[] {
  const out = new Set<string>()
  for (const raw of tags) {
    for (const tag of splitTags(raw)) {
      if (tag === '') throw new InvalidError('bad_tag', 'a tag is empty: use letters, digits and . _ : / + - (at most 64)', {tag})
      if (!TAG_RE.test(tag)) {
        throw new InvalidError('bad_tag', `"${tag}" is not a tag: use letters, digits and . _ : / + - (at most 64)`, {tag})
      }
      out.add(tag)
    }
  }
  return [...out].sort()
}

/**
 * A task type (`--type`): one of TASK_TYPES that the list allows (`types`
 * in config.yaml, all of them when empty). Returns what task.md stores:
 * undefined for the default `task`, which is left out of the file.
 */
export function checkType(value: string, config: Pick<ListConfig, 'types'>): string | undefined {
  const type = value.trim().toLowerCase()
  const allowed = allowedTypes(config)
  if (!allowed.includes(type)) {
    const known = (TASK_TYPES as readonly string[]).includes(type)
    throw new InvalidError('bad_type', known ? `this list does not use the type "${type}": it allows ${allowed.join(', ')} (config types)` : `"${value}" is not a task type: use ${allowed.join(', ')}`, {
      type: value,
      allowed: [...allowed],
    })
  }
  return type === DEFAULT_TASK_TYPE ? undefined : type
}

export function checkPriority(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isInteger(n) || n < MIN_PRIORITY || n > MAX_PRIORITY) {
    throw new InvalidError('bad_priority', `priority must be a whole number from ${MIN_PRIORITY} (most urgent) to ${MAX_PRIORITY}`, {
      value,
    })
  }
  return n
}

/**
 * An actor id (`--as`, an assignee, the configured identity). U+FFFD is
 * refused: it is what an argument or variable that was not valid UTF-8
 * decodes to. The reconciler's own identity is reserved.
 */
export function checkActor(actor: string, what = 'actor'): string {
  const a = actor.trim()
  const control = dangerousCharacter(a.replace(/\n/g, ''))
  if (control) throw new UsageError(`"${actor}" is not a valid ${what}: it contains the control character ${control}`, {actor, character: control}, 'bad_actor')
  if (!ACTOR_RE.test(a) || a.includes('\uFFFD')) {
    throw new UsageError(`"${actor}" is not a valid ${what}: at most 200 characters, no < or >, no control characters, valid UTF-8`, {actor}, 'bad_actor')
  }
  if (a.toLowerCase() === ENGINE_ACTOR) {
    throw new UsageError(`"${a}" is the identity git-tasks records its own merges and repairs under; it cannot be used as an ${what}`, {actor}, 'reserved_actor')
  }
  return a
}

/** A lease length in seconds: a whole number from 1 to MAX_LEASE_SECONDS (365 days). */
export function checkLease(seconds: number): number {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_LEASE_SECONDS) {
    throw new InvalidError('bad_lease', `a lease is a whole number of seconds from 1 to ${MAX_LEASE_SECONDS} (365 days); got ${seconds}`, {
      value: seconds,
      max: MAX_LEASE_SECONDS,
    })
  }
  return seconds
}

/**
 * The stored form of a time (ms since the epoch): ISO-8601 UTC with a
 * four-digit year. A time outside year 0000…9999 cannot be stored or read
 * back, so it is refused (`time_out_of_range`, exit 5).
 */
export function timestampOf(ms: number, what = 'time'): string {
  if (!Number.isFinite(ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS) {
    throw new InvalidError('time_out_of_range', `the ${what} would fall outside the years 0000-9999, which the task files cannot store`, {what})
  }
  return new Date(ms).toISOString()
}

const strictUtf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

/** Decode bytes as UTF-8, or null when they are not valid UTF-8 (never replaced with U+FFFD). A BOM is kept. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return null
  }
}
