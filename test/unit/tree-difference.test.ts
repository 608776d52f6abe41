import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {TREE_MODE, type TreeEntry, decodeTree, encodeTree, treeDifference} from '../../src/refstore/git-objects'

/** The plain answer: entries of one version with no identical entry (name, mode, oid) in the other. */
function naive(old: TreeEntry[], now: TreeEntry[]): {before: TreeEntry[]; after: TreeEntry[]} {
  const key = (e: TreeEntry) => `${e.mode} ${e.name} ${e.oid}`
  const o = new Set(old.map(key))
  const n = new Set(now.map(key))
  return {before: old.filter((e) => !n.has(key(e))), after: now.filter((e) => !o.has(key(e)))}
}

const byName = (a: TreeEntry, b: TreeEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.mode < b.mode ? -1 : 1)
const oidArb = fc.constantFrom('0'.repeat(40), '1'.repeat(40), 'ab'.repeat(20))
// Names that are prefixes of each other, with files and trees, exercise git's order ("a" as a tree sorts as "a/").
const entryArb = fc.record({name: fc.constantFrom('a', 'a.b', 'a-c', 'ab', 'b', 'tsk-0001', 'tsk-00011', 'é'), mode: fc.constantFrom(TREE_MODE, '100644', '100755'), oid: oidArb})
const treeArb = fc.uniqueArray(entryArb, {selector: (e) => e.name, maxLength: 8})

describe('treeDifference', () => {
  it('finds exactly the entries that differ, decoding only those', () => {
    fc.assert(
      fc.property(treeArb, treeArb, (old, now) => {
        const got = treeDifference(encodeTree(old), encodeTree(now), 'sha1')
        const want = naive(old, now)
        expect(got.before.sort(byName)).toEqual(want.before.sort(byName))
        expect(got.after.sort(byName)).toEqual(want.after.sort(byName))
      }),
      {numRuns: 2000},
    )
  })

  it('on trees out of git order, may list an unchanged entry on both sides, never skips a change', () => {
    const raw = (entries: TreeEntry[]) => Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')])))
    fc.assert(
      fc.property(treeArb, treeArb, (old, now) => {
        const got = treeDifference(raw(old), raw([...now].reverse()), 'sha1')
        // What a caller pairing by name does: an entry listed identically on both sides is unchanged.
        const paired = naive(got.before, got.after)
        const want = naive(old, now)
        expect(paired.before.sort(byName)).toEqual(want.before.sort(byName))
        expect(paired.after.sort(byName)).toEqual(want.after.sort(byName))
      }),
      {numRuns: 500},
    )
  })

  it('refuses a malformed tree like decodeTree', () => {
    expect(() => treeDifference(Buffer.from('40000 a'), Buffer.alloc(0), 'sha1')).toThrow(/malformed/)
  })
})

describe('encodeTree', () => {
  it("writes entries in git's order (a tree's name compared as if it ended in '/'), whatever order they come in", () => {
    const gitKey = (e: TreeEntry) => Buffer.from(e.mode === TREE_MODE ? `${e.name}/` : e.name)
    fc.assert(
      fc.property(treeArb, fc.boolean(), (entries, reverse) => {
        const given = reverse ? [...entries].reverse() : entries
        const want = [...entries].sort((a, b) => Buffer.compare(gitKey(a), gitKey(b)))
        const bytes = encodeTree(given)
        expect(decodeTree(bytes, 'sha1')).toEqual(want)
        expect(bytes.length).toBe(want.reduce((n, e) => n + e.mode.length + 2 + Buffer.byteLength(e.name) + 20, 0))
      }),
      {numRuns: 1000},
    )
  })
})
