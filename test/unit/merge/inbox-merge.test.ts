/**
 * Property tests of the merge rules of the inbox's files: registry entries
 * and reminder latches merge per key (sets for mute/watch, the greater value
 * for scalars such as last_seen), seen markers and records as separate
 * files. Deterministic, symmetric (swapping the sides together with
 * `published` gives the same bytes), and nothing either side added is lost:
 * every mute/watch added on a side is in the result, last_seen is the max.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {type ActorEntry, parseActor, serialiseActor} from '../../../src/core/inbox'
import {mergeFiles} from '../../../src/merge/index'

const EVENTS = ['comment', 'done', 'claim', 'assign', 'heartbeat', '*']
const time = fc.integer({min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z')}).map((n) => new Date(n).toISOString())
const events = fc.uniqueArray(fc.constantFrom(...EVENTS), {maxLength: 4})
const entry: fc.Arbitrary<ActorEntry> = fc.record({id: fc.constant('bob'), mute: events, watch: events, last_seen: fc.option(time, {nil: undefined})})
const NOW = '2026-11-29T12:00:00.000Z'

function merged(base: ActorEntry, ours: ActorEntry, theirs: ActorEntry, published: 'ours' | 'theirs'): string {
  const r = mergeFiles([{path: 'actors/bob.yaml', base: serialiseActor(base), ours: serialiseActor(ours), theirs: serialiseActor(theirs)}], {now: NOW, published})
  return r.files.find((f) => f.path === 'actors/bob.yaml')!.content!
}

describe('registry entries merge per key', () => {
  it('deterministic and symmetric; adds survive; last_seen is the later time', () => {
    fc.assert(
      fc.property(entry, entry, entry, (b, o, t) => {
        const one = merged(b, o, t, 'theirs')
        expect(merged(b, t, o, 'ours')).toBe(one)
        const parsed = parseActor(one)
        expect(parsed.ok).toBe(true)
        if (!parsed.ok) return
        const m = parsed.value
        for (const side of [o, t]) {
          for (const e of side.mute ?? []) if (!(b.mute ?? []).includes(e)) expect(m.mute).toContain(e)
          for (const e of side.watch ?? []) if (!(b.watch ?? []).includes(e)) expect(m.watch).toContain(e)
        }
        const seen = [b.last_seen, o.last_seen, t.last_seen]
        const changed = [o.last_seen, t.last_seen].filter((x) => x !== b.last_seen && x !== undefined) as string[]
        if (changed.length > 0) expect(m.last_seen).toBe(changed.sort().pop())
        else expect(seen).toContain(m.last_seen)
      }),
      {numRuns: 200},
    )
  })

  it('records and seen markers added on both sides all survive, whatever the order', () => {
    const stem = fc.integer({min: 0, max: 0xffffffff}).map((n) => `20261129T120000.000Z-${n.toString(16).padStart(8, '0')}`)
    fc.assert(
      fc.property(fc.uniqueArray(stem, {maxLength: 6}), fc.uniqueArray(stem, {maxLength: 6}), (a, b) => {
        const paths = new Map<string, {ours: string | null; theirs: string | null}>()
        for (const s of a) paths.set(`inbox/sue/${s}.seen`, {ours: '', theirs: paths.get(`inbox/sue/${s}.seen`)?.theirs ?? null})
        for (const s of b) paths.set(`inbox/sue/${s}.seen`, {ours: paths.get(`inbox/sue/${s}.seen`)?.ours ?? null, theirs: ''})
        const input = [...paths].map(([path, v]) => ({path, base: null, ...v}))
        const r = mergeFiles(input, {now: NOW, published: 'theirs'})
        const out = r.files.filter((f) => f.content !== null).map((f) => f.path).sort()
        expect(out).toEqual([...new Set([...a, ...b])].map((s) => `inbox/sue/${s}.seen`).sort())
        expect(r.notes).toEqual([])
      }),
      {numRuns: 100},
    )
  })
})
