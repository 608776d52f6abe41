/**
 * A card field's value on one line, as `diff`, `blame` and `revert` print
 * it (one spelling, so `tags: docs, guide` reads the same in all three):
 * unset or an empty list as `(none)`; a list joined by ", "; a description
 * as its line count; text with a line break as a JSON string; anything else
 * as JSON. Control characters are made visible (untrusted text). Cut to
 * `max` characters when given.
 */
import {visible} from './terminal'

export function fieldValueText(field: string, v: unknown, max?: number): string {
  let text: string
  if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) text = '(none)'
  else if (field === 'description' && typeof v === 'string') {
    const lines = v.replace(/\n$/, '').split('\n').length
    text = `(text, ${lines} line${lines === 1 ? '' : 's'})`
  } else if (Array.isArray(v)) text = v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')
  else if (typeof v === 'string') text = v.includes('\n') ? JSON.stringify(v) : v
  else text = JSON.stringify(v)
  text = visible(text)
  return max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text
}
