import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {idFromSeed, isStoredId, keyedSeed, normaliseIdInput, type PrefixSearch, idsWithPrefixIn, resolveId, shardOf, shortIdOf, shortIdsOf} from '../../src/core/ids'
import {freshId, keyedId} from '../../src/core/snapshot'
import {snapshot, task} from '../helpers/snapshot'

/** Prefix search over a sorted array, as the snapshot's tables answer it. */
const prefixSearchIn = (sortedIds: readonly string[]): PrefixSearch => ({idsWithPrefix: (prefix, limit) => idsWithPrefixIn(sortedIds, prefix, limit)})

describe('ids', () => {
  it('derives a 10-character base32 id from a seed, deterministically', () => {
    const a = idFromSeed('seed-1', () => false)
    expect(a).toMatch(/^tsk-[0-9a-hjkmnp-tv-z]{10}$/)
    expect(idFromSeed('seed-1', () => false)).toBe(a)
    expect(idFromSeed('seed-2', () => false)).not.toBe(a)
    expect(isStoredId(a)).toBe(true)
  })

  it('extends the id one character at a time on collision', () => {
    const first = idFromSeed('s', () => false)
    const second = idFromSeed('s', (id) => id === first)
    expect(second.length).toBe(first.length + 1)
    expect(second.startsWith(first)).toBe(true)
  })

  it('keyed seeds depend on list and key', () => {
    expect(keyedSeed('main', 'k')).not.toBe(keyedSeed('other', 'k'))
    expect(idFromSeed(keyedSeed('main', 'k'), () => false)).toBe(idFromSeed(keyedSeed('main', 'k'), () => false))
  })

  it('shards into 256 two-hex-digit directories', () => {
    const shards = new Set<string>()
    for (let i = 0; i < 5000; i++) shards.add(shardOf(idFromSeed(`x${i}`, () => false)))
    expect([...shards].every((s) => /^[0-9a-f]{2}$/.test(s))).toBe(true)
    expect(shards.size).toBe(256)
  })

  it('normalises typed ids and refuses paths and short prefixes', () => {
    expect(normaliseIdInput('TSK-ABCD')).toBe('tsk-abcd')
    expect(normaliseIdInput('abcd')).toBe('tsk-abcd')
    for (const bad of ['../x', 'tsk-ab/cd', '', 'tsk-', 'a b c d', 'tsk-abcdi']) {
      // Cannot be any task: not found (3), as an unknown id is.
      expect(() => normaliseIdInput(bad)).toThrowError(expect.objectContaining({code: 'bad_id', exitCode: 3}))
    }
    expect(() => normaliseIdInput('abc')).toThrowError(/at least 4/)
    expect(() => normaliseIdInput('abc')).toThrowError(expect.objectContaining({code: 'id_too_short', exitCode: 2}))
  })

  it('keeps the stored format: ids and shards of known seeds never change (they are on every ref)', () => {
    expect(idFromSeed(keyedSeed('main', 'deploy-42'), () => false)).toBe('tsk-m34yts22sa')
    expect(shardOf('tsk-0123456789')).toBe('71')
  })

  it('resolves unique prefixes, reports ambiguity and absence', () => {
    const ids = ['tsk-aaaa000000', 'tsk-aaab000000', 'tsk-bbbb000000'].sort()
    expect(resolveId('tsk-bbbb', prefixSearchIn(ids))).toBe('tsk-bbbb000000')
    expect(resolveId('aaab', prefixSearchIn(ids))).toBe('tsk-aaab000000')
    expect(() => resolveId('aaa0', prefixSearchIn(ids))).toThrowError(expect.objectContaining({code: 'task_not_found', exitCode: 3}))
    expect(() => resolveId('tsk-aaa', prefixSearchIn(ids))).toThrowError(/at least 4/)
    const amb = ['tsk-aaaa000000', 'tsk-aaaa100000']
    expect(() => resolveId('aaaa', prefixSearchIn(amb))).toThrowError(expect.objectContaining({code: 'ambiguous_id', exitCode: 2}))
    // A full id resolves even when a longer (extended) id starts with it.
    expect(resolveId('tsk-aaaa000000', prefixSearchIn(['tsk-aaaa000000', 'tsk-aaaa0000001']))).toBe('tsk-aaaa000000')
  })

  it('short ids are unique prefixes of at least 4 body characters', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({minLength: 1, maxLength: 8}), {minLength: 1, maxLength: 200}), (seeds) => {
        const ids = [...new Set(seeds.map((s) => idFromSeed(s, () => false)))].sort()
        for (const id of ids) {
          const search = prefixSearchIn(ids)
          const s = shortIdOf(search, id)
          expect(s.length).toBeGreaterThanOrEqual(8)
          expect(resolveId(s, search)).toBe(id)
          // Shortest: one character less is ambiguous (or below the minimum).
          if (s.length > 8) expect(search.idsWithPrefix(s.slice(0, -1), 2).length).toBe(2)
        }
      }),
    )
  })

  it('all short ids at once (one pass over the sorted ids) are the ones found one by one', () => {
    const idArb = fc.stringMatching(/^tsk-[ab0]{2,12}$/)
    fc.assert(
      fc.property(fc.uniqueArray(idArb, {minLength: 1, maxLength: 60}), (raw) => {
        const ids = [...raw].sort()
        const all = shortIdsOf(ids)
        const search = prefixSearchIn(ids)
        for (const id of ids) expect(all.get(id)).toBe(shortIdOf(search, id))
      }),
    )
  })
})

describe('keyedId and freshId: the one allocation of add --key, a repeat, a scenario seed and an import', () => {
  const K = 'tsk-m34yts22sa' // idFromSeed(keyedSeed('main', 'deploy-42')), pinned above

  it('gives the keyed seed\'s first id, which the item the key made keeps', () => {
    expect(keyedId(snapshot([]), 'deploy-42')).toBe(K)
    expect(keyedId(snapshot([task({id: K, key: 'deploy-42'})]), 'deploy-42')).toBe(K)
  })

  it('passes over an id another key or no key holds, a blocked shard, and ids the caller took', () => {
    const longer = idFromSeed(keyedSeed('main', 'deploy-42'), (c) => c === K)
    expect(longer).toBe(`${K}${longer.slice(K.length)}`)
    expect(longer.length).toBe(K.length + 1)
    expect(keyedId(snapshot([task({id: K, key: 'other'})]), 'deploy-42')).toBe(longer)
    expect(keyedId(snapshot([task({id: K})]), 'deploy-42')).toBe(longer)
    const unblocked = keyedId({...snapshot([]), blockedShards: new Set([shardOf(K)])}, 'deploy-42')
    expect(unblocked.startsWith(K)).toBe(true)
    expect(shardOf(unblocked)).not.toBe(shardOf(K))
    expect(keyedId(snapshot([task({id: K, key: 'deploy-42'})]), 'deploy-42', (c) => c === K)).toBe(longer)
  })

  it('freshId: the random seed\'s first id no item holds', () => {
    const first = idFromSeed('random\0e1', () => false)
    expect(freshId(snapshot([]), 'e1')).toBe(first)
    expect(freshId(snapshot([task({id: first})]), 'e1')).toBe(idFromSeed('random\0e1', (c) => c === first))
  })
})
