/**
 * The tree codec's fast paths against plain reference versions: encodeTree
 * (one buffer written in place for ASCII names), decodeTree (scanned byte by
 * byte) and diffTrees (only the entries that differ decoded) give exactly
 * what the straightforward code gives, on random trees with tree and file
 * modes, names out of order, names that are prefixes of others, non-ASCII
 * and non-UTF-8 names, and malformed content.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {type TreeEntry, decodeTree, diffTrees, encodeTree} from '../../src/refstore/git-objects'

/** What encodeTree did before its fast path: a sort key buffer per entry, compared as bytes. */
function referenceEncode(entries: readonly TreeEntry[]): Buffer {
  const bytes = (e: TreeEntry) => e.raw ?? Buffer.from(e.name)
  const keyed = entries.map((e) => ({e, key: e.mode === '40000' ? Buffer.concat([bytes(e), Buffer.from('/')]) : bytes(e)}))
  keyed.sort((a, b) => Buffer.compare(a.key, b.key))
  return Buffer.concat(keyed.flatMap(({e}) => [Buffer.from(`${e.mode} `), bytes(e), Buffer.from([0]), Buffer.from(e.oid, 'hex')]))
}

/** What decodeTree did before: indexOf for each field; throws on malformed content. */
function referenceDecode(content: Buffer): TreeEntry[] {
  const out: TreeEntry[] = []
  let i = 0
  while (i < content.length) {
    const space = content.indexOf(0x20, i)
    const nul = space === -1 ? -1 : content.indexOf(0, space)
    if (space === -1 || nul === -1 || nul + 21 > content.length) throw new Error('malformed')
    const bytes = content.subarray(space + 1, nul)
    const text = bytes.toString('utf8')
    const valid = Buffer.from(text).equals(bytes)
    const entry: TreeEntry = {mode: content.toString('latin1', i, space), name: text, oid: content.toString('hex', nul + 1, nul + 21)}
    out.push(valid ? entry : {...entry, raw: Buffer.from(bytes)})
    i = nul + 21
  }
  return out
}

/** What a catch-up did before diffTrees: both trees decoded, compared by name. */
function referenceDiff(old: Buffer, now: Buffer): {changed: Array<{entry: TreeEntry; was: TreeEntry | null}>; removed: TreeEntry[]} {
  const before = new Map(decodeTree(old, 'sha1').map((e) => [e.name, e]))
  const changed: Array<{entry: TreeEntry; was: TreeEntry | null}> = []
  for (const e of decodeTree(now, 'sha1')) {
    const o = before.get(e.name)
    if (!o || o.oid !== e.oid || o.mode !== e.mode) changed.push({entry: e, was: o ?? null})
    before.delete(e.name)
  }
  return {changed, removed: [...before.values()]}
}

const oid = fc.uint8Array({minLength: 20, maxLength: 20}).map((b) => Buffer.from(b).toString('hex'))
const name = fc.oneof(
  fc.constantFrom('a', 'a.b', 'a-b', 'ab', 'task.md', 'comments', 'tsk-00afgtwt1e', 'tsk-00e15z9ajy', 'tsk-00yw1hc0rg', 'é', 'z'),
  fc.stringMatching(/^[a-z0-9._-]{1,12}$/),
)
const entry = fc.record({mode: fc.constantFrom('40000', '100644', '100755', '120000', '160000'), name, oid})
/** Unique names, as in any tree git writes. */
const entries = fc.uniqueArray(entry, {selector: (e) => e.name, maxLength: 40})

describe('tree codec', () => {
  it('encodeTree writes what the reference writes, and decodeTree reads it back like the reference', () => {
    fc.assert(
      fc.property(entries, (es) => {
        const encoded = encodeTree(es)
        expect(encoded.equals(referenceEncode(es))).toBe(true)
        expect(decodeTree(encoded, 'sha1')).toEqual(referenceDecode(encoded))
      }),
      {numRuns: 300},
    )
  })

  it('names that are not UTF-8 keep their bytes through encode and decode', () => {
    const raw = Buffer.from([0x61, 0xff, 0x62])
    const es: TreeEntry[] = [
      {mode: '100644', name: raw.toString('utf8'), oid: '11'.repeat(20), raw},
      {mode: '100644', name: 'a', oid: '22'.repeat(20)},
    ]
    const encoded = encodeTree(es)
    expect(encoded.equals(referenceEncode(es))).toBe(true)
    expect(decodeTree(encoded, 'sha1')).toEqual(referenceDecode(encoded))
    expect(decodeTree(encoded, 'sha1')[1]!.raw).toEqual(raw)
  })

  it('decodeTree refuses malformed content where the reference does', () => {
    fc.assert(
      fc.property(entries, fc.nat(), fc.uint8Array({maxLength: 30}), (es, cut, junk) => {
        const encoded = encodeTree(es)
        const broken = Buffer.concat([encoded.subarray(0, cut % (encoded.length + 1)), Buffer.from(junk)])
        let expected: TreeEntry[] | 'throws'
        try {
          expected = referenceDecode(broken)
        } catch {
          expected = 'throws'
        }
        if (expected === 'throws') expect(() => decodeTree(broken, 'sha1')).toThrow(/malformed/)
        else expect(decodeTree(broken, 'sha1')).toEqual(expected)
      }),
      {numRuns: 300},
    )
  })

  it('diffTrees gives what decoding both trees and comparing by name gives, or declines', () => {
    const edits = fc.array(fc.record({kind: fc.constantFrom('drop', 'change', 'mode', 'add'), at: fc.nat(), e: entry}), {maxLength: 6})
    let declined = 0
    let diffed = 0
    fc.assert(
      fc.property(entries, edits, (es, ops) => {
        const next = [...es]
        for (const op of ops) {
          const k = next.length ? op.at % next.length : 0
          if (op.kind === 'drop' && next.length) next.splice(k, 1)
          else if (op.kind === 'change' && next.length) next[k] = {...next[k]!, oid: op.e.oid}
          else if (op.kind === 'mode' && next.length) next[k] = {...next[k]!, mode: op.e.mode}
          else if (!next.some((e) => e.name === op.e.name)) next.push(op.e)
        }
        const old = encodeTree(es)
        const now = encodeTree(next)
        const diff = diffTrees(old, now, 'sha1')
        if (diff === null) {
          declined++
          return
        }
        diffed++
        expect(diff).toEqual(referenceDiff(old, now))
      }),
      {numRuns: 500},
    )
    // Both outcomes happen: trees with names out of byte order (a name before a longer one it starts) are declined.
    expect(diffed).toBeGreaterThan(100)
    expect(declined).toBeGreaterThan(0)
  })

  it('diffTrees declines malformed trees and names out of byte order', () => {
    const a = encodeTree([{mode: '100644', name: 'a', oid: '11'.repeat(20)}])
    expect(diffTrees(a, Buffer.concat([a, Buffer.from('100644 b')]), 'sha1')).toBeNull()
    // Git's order puts the file "a.b" before the directory "a" ("a/"): not byte order of names.
    const prefix = encodeTree([
      {mode: '40000', name: 'a', oid: '11'.repeat(20)},
      {mode: '100644', name: 'a.b', oid: '22'.repeat(20)},
    ])
    expect(decodeTree(prefix, 'sha1').map((e) => e.name)).toEqual(['a.b', 'a'])
    expect(diffTrees(prefix, prefix, 'sha1')).toBeNull()
    // A repeated name is out of order too (git's reading by name would pair them differently).
    const twice = Buffer.concat([a, a])
    expect(decodeTree(twice, 'sha1')).toHaveLength(2)
    expect(diffTrees(twice, twice, 'sha1')).toBeNull()
    // A NUL inside the mode: decodeTree reads past it, diffTrees declines.
    expect(diffTrees(a, Buffer.concat([Buffer.from('1\x00'), a]), 'sha1')).toBeNull()
    expect(diffTrees(Buffer.alloc(0), a, 'sha1')).toEqual({changed: [{entry: {mode: '100644', name: 'a', oid: '11'.repeat(20)}, was: null}], removed: []})
  })
})
