/**
 * What changed on one card between two versions of it, field by field: the
 * one comparison behind `diff`, `blame`, `revert --actor` and `plan diff`.
 * Pure: two versions in (null for "no card"), changes out.
 *
 * A field is a frontmatter key of TASK_KEYS, except the bookkeeping every
 * write moves (`revision`, `updated_at`, `updated_by`) and the id; a custom
 * field is its own field, `fields.<name>`; the description is the field
 * `description`. Values are compared by canonical JSON, so tag order or key
 * order inside a value is a change only when the stored value differs.
 */
import {canon} from './canon'
import {TASK_KEYS, type TaskMeta} from './task'

/** One version of a card: its frontmatter and description. */
export interface CardVersion {
  meta: TaskMeta
  body: string
}

export interface FieldChange {
  /** A TaskMeta key, `fields.<name>`, or `description`. */
  field: string
  /** Absent (undefined) when the field was unset or the card did not exist. */
  before?: unknown
  after?: unknown
}

/** Keys every write moves; a change of only these is no change a person asked for. */
export const BOOKKEEPING_KEYS: ReadonlySet<string> = new Set(['id', 'revision', 'updated_at', 'updated_by'])

/** The fields of a card in a stable order: TASK_KEYS order, custom fields by name, then the description. */
export function cardFields(card: CardVersion | null): Map<string, unknown> {
  const out = new Map<string, unknown>()
  if (!card) return out
  const meta = card.meta as unknown as Record<string, unknown>
  for (const key of TASK_KEYS) {
    if (BOOKKEEPING_KEYS.has(key) || key === 'fields') continue
    if (meta[key] !== undefined && meta[key] !== null) out.set(key, meta[key])
  }
  for (const name of Object.keys(card.meta.fields ?? {}).sort()) out.set(`fields.${name}`, card.meta.fields![name])
  if (card.body !== '') out.set('description', card.body)
  return out
}

/** Field-by-field changes from `before` to `after`, in field order; empty when they are the same. */
export function cardChanges(before: CardVersion | null, after: CardVersion | null): FieldChange[] {
  const a = cardFields(before)
  const b = cardFields(after)
  const names = [...a.keys()]
  for (const k of b.keys()) if (!a.has(k)) names.push(k)
  const order = fieldOrder(names)
  const changes: FieldChange[] = []
  for (const field of order) {
    const x = a.get(field)
    const y = b.get(field)
    if (canon(x) === canon(y)) continue
    changes.push({field, ...(x !== undefined ? {before: x} : {}), ...(y !== undefined ? {after: y} : {})})
  }
  return changes
}

const POSITION = new Map<string, number>(TASK_KEYS.map((k, i) => [k, i]))

/** Sort field names: TASK_KEYS order, then `fields.*` by name, then `description`. */
export function fieldOrder(names: readonly string[]): string[] {
  // Each name's rank worked out once, not at every comparison.
  const rank = (f: string): [number, string] => (f === 'description' ? [2, ''] : f.startsWith('fields.') ? [1, f] : [0, String(POSITION.get(f) ?? 999).padStart(4, '0')])
  const ranked = [...new Set(names)].map((f) => ({f, r: rank(f)}))
  ranked.sort(({r: [rx, kx]}, {r: [ry, ky]}) => rx - ry || (kx < ky ? -1 : kx > ky ? 1 : 0))
  return ranked.map((x) => x.f)
}
