/** Canonical JSON of a value: object keys sorted, `undefined` as the empty string. Two values are the same when their canon is. */
export function canon(value: unknown): string {
  if (value === undefined) return ''
  // Scalars and lists of scalars (most field values) have no keys to sort.
  if (value === null || typeof value !== 'object' || (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))) return JSON.stringify(value)
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {}
      for (const k of Object.keys(v as Record<string, unknown>).sort()) sorted[k] = (v as Record<string, unknown>)[k]
      return sorted
    }
    return v
  })
}
