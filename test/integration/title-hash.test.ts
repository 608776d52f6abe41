/**
 * The title hash of the open rows through the real command and the cache on
 * disk: the cache file's open rows carry each open item's title hash; a
 * retitle lands in the delta beside the file, and the next `add` of the new
 * title (compared through the overlay, the file not rewritten) warns, of the
 * old title does not; once the file is rewritten from that overlay, its row
 * carries the new hash.
 */
import {describe, expect, it} from 'vitest'
import {existsSync} from 'node:fs'
import {openRowColumns, tablesOf} from '../../src/core/snapshot'
import {titleHash} from '../../src/core/title'
import {type IndexFile, deltaPath, readCachedIndex, snapshotOf} from '../../src/refstore/task-index'
import {makeRepo, runJson} from '../helpers/cli'

/** The title hash of `id`'s open row, read through some open rows' columns. */
function rowHash(open: ReturnType<IndexFile['openRows']>, id: string): number | undefined {
  const cols = openRowColumns(open)
  for (let i = 0; i < cols.length; i++) if (cols.id(i) === id) return cols.titleHash(i)
  return undefined
}

describe('title hash in the cache', () => {
  it('a retitle reaches the same-title check through the delta, and the rewritten file', async () => {
    const dir = makeRepo()
    const common = `${dir}/.git`
    await runJson(dir, ['init'])
    // Enough changes (more than 16) that the next read rewrites the cache file; its open rows carry the hash of each title.
    const filler = (from: number) => Array.from({length: 17}, (_, i) => ({op: 'create', title: `Filler ${from + i}`}))
    const made = await runJson(dir, ['batch', '-'], {input: JSON.stringify([{op: 'create', title: 'Alpha'}, {op: 'create', title: 'Other'}, ...filler(0)])})
    const a = made.results[0].id as string
    await runJson(dir, ['list'])
    const file = readCachedIndex(common, 'main')!
    expect(file.changes.size).toBe(0)
    expect(rowHash((file.base as IndexFile).openRows(), a)).toBe(titleHash('Alpha'))

    await runJson(dir, ['edit', a, '--title', 'Beta'])
    // The retitle is carried in the delta; the file itself still has the old row.
    expect(existsSync(deltaPath(common, 'main'))).toBe(true)
    const carried = readCachedIndex(common, 'main')!
    expect(carried.changes.has(a)).toBe(true)
    expect(rowHash((carried.base as IndexFile).openRows(), a)).toBe(titleHash('Alpha'))
    expect(rowHash(tablesOf(snapshotOf(carried)).openRows(), a)).toBe(titleHash('Beta'))

    const dup = await runJson(dir, ['add', 'BETA'])
    expect(dup.created).toBe(true)
    expect(dup.warnings).toEqual([expect.stringContaining(a)])
    const old = await runJson(dir, ['add', 'alpha'])
    expect(old.created).toBe(true)
    expect(old.warnings ?? []).toEqual([])

    // Enough changes that the next read rewrites the file from the overlay (more than 16 since it).
    await runJson(dir, ['batch', '-'], {input: JSON.stringify(filler(17))})
    await runJson(dir, ['list'])
    const rewritten = readCachedIndex(common, 'main')!
    expect(rewritten.changes.size).toBe(0)
    expect(rowHash((rewritten.base as IndexFile).openRows(), a)).toBe(titleHash('Beta'))
    const again = await runJson(dir, ['add', 'beta'])
    expect(again.warnings).toEqual([expect.stringContaining(a)])
    expect(again.warnings[0]).toContain(dup.task.id)
  }, 60_000)
})
