/**
 * The batch reader's kept trees and prefetches (src/refstore/object-reader.ts):
 * an object asked for ahead by path is what a read by id gets, with the
 * read's own size limit; and a prefetch that walks into a tree git cannot
 * parse (git then stops) costs the reads nothing: they are answered by a new
 * process, as if nothing had been prefetched.
 */
import {describe, expect, it} from 'vitest'
import {ObjectReader} from '../../src/refstore/object-reader'
import {gitSync, makeRepo} from '../helpers/cli'

function store(dir: string): {blob: string; big: string; tree: string; bad: string} {
  const blob = gitSync(dir, ['hash-object', '-w', '--stdin'], 'hello\n').trim()
  const big = gitSync(dir, ['hash-object', '-w', '--stdin'], 'x'.repeat(100)).trim()
  const tree = gitSync(dir, ['mktree'], `100644 blob ${blob}\ttask.md\n100644 blob ${big}\tbig.md\n`).trim()
  // A tree git cannot parse (an entry cut short): reading a path through it makes git stop.
  const bad = gitSync(dir, ['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'], '100644 task.md').trim()
  return {blob, big, tree, bad}
}

describe('object reader', () => {
  it('a prefetched object is what a read by id gets, with the read’s own limit', async () => {
    const dir = makeRepo()
    const {blob, big, tree} = store(dir)
    const reader = new ObjectReader(dir)
    try {
      reader.prefetch(`${tree}:task.md`, 1000)
      reader.prefetch(`${tree}:big.md`, 10)
      reader.prefetch(`${tree}:nothing-here.md`)
      const t = await reader.read(tree)
      expect(t?.type).toBe('tree')
      expect((await reader.read(blob))?.content.toString()).toBe('hello\n')
      // Kept without content (over the prefetch's limit): a read that wants it whole gets it whole.
      expect((await reader.read(big))?.content.toString()).toBe('x'.repeat(100))
      const limited = await reader.read(big, 10)
      expect(limited).toMatchObject({oid: big, size: 100, oversized: true})
      expect(limited?.content.length).toBe(0)
      // Trees are kept: the same tree again, the same content.
      expect((await reader.read(tree))?.content.equals(t!.content)).toBe(true)
      expect(await reader.read('0'.repeat(40))).toBeNull()
    } finally {
      reader.close()
    }
  })

  it('a prefetch through a tree git cannot parse does not fail the reads around it', async () => {
    const dir = makeRepo()
    const {blob, tree, bad} = store(dir)
    const reader = new ObjectReader(dir)
    try {
      const before = reader.read(blob)
      reader.prefetch(`${bad}:task.md`)
      const after = reader.read(tree)
      const afterBlob = reader.read(blob, 3)
      expect((await before)?.content.toString()).toBe('hello\n')
      expect((await after)?.type).toBe('tree')
      expect(await afterBlob).toMatchObject({oid: blob, oversized: true})
      // Later reads work, and prefetching is off for this reader: git is not made to stop again.
      reader.prefetch(`${bad}:task.md`)
      expect((await reader.read(blob))?.content.toString()).toBe('hello\n')
    } finally {
      reader.close()
    }
  })

  it('a read by path through a tree git cannot parse still fails as it always did', async () => {
    const dir = makeRepo()
    const {bad} = store(dir)
    const reader = new ObjectReader(dir)
    try {
      await expect(reader.read(`${bad}:task.md`)).rejects.toThrow(/cat-file stopped/)
    } finally {
      reader.close()
    }
  })
})
