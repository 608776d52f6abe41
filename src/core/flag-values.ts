/**
 * Flag values that name several things: one parser for every repeatable,
 * comma-separated flag (`--priority p0,p1 --priority p2`), and `@me`, the
 * word for the acting identity in a flag that names actors. Pure, and
 * light: `tasks list` reads its filters through it.
 */

/** Every value of a repeatable flag, each also split at commas, trimmed, empty ones dropped; in the order given. */
export function splitValues(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
}

/** What an actor-valued flag says for the acting identity. */
export const ME = '@me'

/**
 * The actors a repeatable, comma-separated flag names, `@me` as the acting
 * identity (`actor` is asked only when `@me` is named, and once).
 */
export async function actorsNamed(values: readonly string[] | undefined, actor: () => Promise<string>): Promise<Set<string>> {
  const out = new Set<string>()
  let me: Promise<string> | undefined
  for (const a of splitValues(values)) out.add(a === ME ? await (me ??= actor()) : a)
  return out
}
