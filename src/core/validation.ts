/**
 * Checks on what users type: titles, bodies, notes, tags, priorities and
 * actor names. Over-limit or malformed input is an InvalidError (exit 5) or a
 * UsageError (exit 2) and nothing is written.
 */
import {InvalidError, UsageError} from './errors'
import {conflictMarkerLine} from './frontmatter'
import {type ListConfig, MAX_PRIORITY, MIN_PRIORITY} from './task'
import {dangerousCharacter} from './untrusted-text'

const TAG_RE = /^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,63}$/
const ACTOR_RE = /^[^\n\r<>]{1,200}$/

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

export function checkTitle(title: string, config: ListConfig): string {
  const t = title.trim()
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

export function checkText(what: 'body' | 'comment' | 'note' | 'reason', text: string, limit: number, required: boolean): string {
  const bytes = byteLength(text)
  if (required && text.trim().length === 0) throw new InvalidError(`empty_${what}`, `the ${what} is empty`)
  if (bytes > limit) {
    throw new InvalidError(`${what}_too_long`, `the ${what} is ${bytes} bytes; the limit is ${limit}`, {bytes, limit})
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
 * printed) dropped.
 */
export function splitTags(raw: string): string[] {
  return raw
    .split(',')
    .map((t) => t.trim().replace(/^#/, ''))
    .filter(Boolean)
}

export function checkTags(tags: readonly string[]): string[] {
  const out = new Set<string>()
  for (const raw of tags) {
    for (const tag of splitTags(raw)) {
      if (!TAG_RE.test(tag)) {
        throw new InvalidError('bad_tag', `"${tag}" is not a tag: use letters, digits and . _ : / + - (at most 64)`, {tag})
      }
      out.add(tag)
    }
  }
  return [...out].sort()
}

export function checkPriority(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isInteger(n) || n < MIN_PRIORITY || n > MAX_PRIORITY) {
    throw new InvalidError('bad_priority', `priority must be a whole number from ${MIN_PRIORITY} (most urgent) to ${MAX_PRIORITY}`, {
      value,
    })
  }
  return n
}

export function checkActor(actor: string, what = 'actor'): string {
  const a = actor.trim()
  const control = dangerousCharacter(a.replace(/\n/g, ''))
  if (control) throw new UsageError(`"${actor}" is not a valid ${what}: it contains the control character ${control}`, {actor, character: control}, 'bad_actor')
  if (!ACTOR_RE.test(a)) {
    throw new UsageError(`"${actor}" is not a valid ${what}: one line, at most 200 characters, no < or >`, {actor}, 'bad_actor')
  }
  return a
}
