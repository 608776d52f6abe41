/**
 * The title hash of the open rows (core/title.ts, `OpenRow`): the same-title
 * check of `add` (`openItemsTitled`) compares hashes first and reads the
 * frontmatter only of the rows whose hash matches, confirming the title
 * itself (two titles can share a hash); and a retitle reaches the rows'
 * hash through the overlay (the incremental path over the cache file's
 * packed columns) as through a scan of the tasks (a full rebuild).
 */
import {describe, expect, it} from 'vitest'
import {addTask, openItemsTitled} from '../../src/core/ops/add'
import {editTask} from '../../src/core/ops/edit'
import {MergedOpenRows} from '../../src/core/merged-open-rows'
import {overlaySnapshot} from '../../src/core/overlay'
import {LiveOverlay} from '../../src/core/live-overlay'
import {type OpenRows, ScannedTables, type Snapshot, type TaskEntry, entryOf, openRowColumns, tablesOf} from '../../src/core/snapshot'
import {taskFilePath} from '../../src/core/store-layout'
import {DEFAULT_CONFIG, type TaskMeta} from '../../src/core/task'
import {canonicalTitle, hashOfCanonical, titleHash} from '../../src/core/title'
import {ColumnOpenRows, encodeOpenRows} from '../../src/refstore/task-index'
import {applied, ctx, snapshot, task} from '../helpers/snapshot'

// Two canonical titles with one FNV-1a hash (found by a birthday search; checked below).
const COLLIDING = ['fix the login 6pf8', 'fix the login nrj6'] as const

/** Tables whose open rows come back from the cache file's packing, as an IndexFile's do. */
class PackedTables extends ScannedTables {
  private packed: ColumnOpenRows | undefined
  override openRows(): OpenRows {
    this.packed ??= new ColumnOpenRows(JSON.parse(JSON.stringify(encodeOpenRows(super.openRows()))))
    return this.packed
  }
}

/** Entries by id whose reads of a task (get) are counted. */
class CountingMap extends Map<string, TaskEntry> {
  reads = 0
  override get(id: string): TaskEntry | undefined {
    this.reads++
    return super.get(id)
  }
}

function entries(metas: TaskMeta[]): Map<string, TaskEntry> {
  return new Map(metas.map((m) => [m.id, entryOf(m, taskFilePath(m.id))]))
}

const packedSnap = (tasks: ReadonlyMap<string, TaskEntry>): Snapshot => ({list: 'main', commit: 'c', config: DEFAULT_CONFIG, tasks, tables: new PackedTables(tasks)})

describe('the title hash', () => {
  it('is the hash of the canonical title, a signed 32-bit integer', () => {
    expect(titleHash('  Fix\tthe   LOGIN ')).toBe(hashOfCanonical('fix the login'))
    expect(titleHash('Fix the login')).not.toBe(titleHash('Fix the logout'))
    for (const t of ['', 'a', 'Fix the login', 'é'.normalize('NFD'), '漢字 タスク']) {
      const h = titleHash(t)
      expect(h).toBe(h | 0)
    }
    // NFC: the same title typed with a combining accent is the same title.
    expect(titleHash('Café'.normalize('NFD'))).toBe(titleHash('café'))
  })

  it('a collision is only a candidate: the real titles are compared', () => {
    expect(canonicalTitle(COLLIDING[0])).not.toBe(canonicalTitle(COLLIDING[1]))
    expect(hashOfCanonical(COLLIDING[0])).toBe(hashOfCanonical(COLLIDING[1]))
    const a = task({id: 'tsk-cccc000001', title: 'Fix the login 6pf8'})
    const snap = packedSnap(entries([a]))
    // Through the packed columns, the row of `a` carries the colliding hash.
    expect(openRowColumns(tablesOf(snap).openRows()).titleHash(0)).toBe(hashOfCanonical(COLLIDING[1]))
    expect(openItemsTitled(snap, 'FIX the login nrj6', undefined)).toEqual([])
    const warned = addTask(snap, ctx('alice'), {title: 'fix the login nrj6', sameTitle: 'warn'})
    expect(warned.result.created).toBe(true)
    expect(warned.result.warnings).toBeUndefined()
    expect(addTask(snap, ctx('agent'), {title: 'fix the login nrj6', sameTitle: 'reuse'}).result.created).toBe(true)
    // With both open, each title finds its own item only.
    const b = task({id: 'tsk-cccc000002', title: 'Fix  the login NRJ6'})
    const both = packedSnap(entries([a, b]))
    expect(openItemsTitled(both, 'fix the login nrj6', undefined).map((t) => t.id)).toEqual([b.id])
    expect(openItemsTitled(both, 'fix the login 6pf8', undefined).map((t) => t.id)).toEqual([a.id])
  })

  it('only rows whose hash matches have their frontmatter read', () => {
    const metas = Array.from({length: 300}, (_, i) => task({id: `tsk-dddd${String(i).padStart(6, '0')}`, title: `Item number ${i}`}))
    metas.push(task({id: 'tsk-dddd999998', title: 'Deploy the site'}), task({id: 'tsk-dddd999999', title: 'deploy  THE site', status: 'in_progress', owner: 'bob'}))
    const tasks = new CountingMap(entries(metas))
    const snap: Snapshot = {list: 'main', commit: 'c', config: DEFAULT_CONFIG, tasks, tables: new PackedTables(tasks)}
    expect(openRowColumns(tablesOf(snap).openRows()).length).toBe(302)
    tasks.reads = 0
    expect(openItemsTitled(snap, 'Deploy the Site', undefined).map((t) => t.id)).toEqual(['tsk-dddd999998', 'tsk-dddd999999'])
    expect(tasks.reads).toBe(2)
    tasks.reads = 0
    expect(openItemsTitled(snap, 'Nothing like it', undefined)).toEqual([])
    expect(tasks.reads).toBe(0)
  })

  it('a retitle carries the new hash through the overlay over packed columns, as through a full rebuild', () => {
    const a = task({id: 'tsk-eeee000001', title: 'Alpha'})
    const other = task({id: 'tsk-eeee000002', title: 'Gamma'})
    const parent = task({id: 'tsk-eeee000003', title: 'Parent'})
    const child = task({id: 'tsk-eeee000004', title: 'Child', parent: parent.id})
    const base = entries([a, other, parent, child])
    const baseSnap = packedSnap(base)
    // Edits as the command makes them: the plan's changes over the snapshot read from the cache file.
    const retitle = editTask(baseSnap, ctx('alice'), {id: a.id, title: 'Beta'})
    const retitleChild = editTask(baseSnap, ctx('alice'), {id: child.id, title: 'Kid'})
    const changes = new Map<string, TaskEntry | null>()
    for (const plan of [retitle, retitleChild]) for (const c of plan.changes) if (c.kind === 'put-task') changes.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
    expect(changes.size).toBe(2)
    const over = overlaySnapshot(baseSnap, changes, 'c2')
    const open = tablesOf(over).openRows()
    expect(open).toBeInstanceOf(MergedOpenRows)
    const cols = openRowColumns(open)
    const hashOf = (id: string) => {
      for (let i = 0; i < cols.length; i++) if (cols.id(i) === id) return cols.titleHash(i)
      throw new Error(`no row for ${id}`)
    }
    expect(hashOf(a.id)).toBe(titleHash('Beta'))
    expect(hashOf(child.id)).toBe(titleHash('Kid'))
    expect(hashOf(other.id)).toBe(titleHash('Gamma'))
    expect(openItemsTitled(over, 'BETA', undefined).map((t) => t.id)).toEqual([a.id])
    expect(openItemsTitled(over, 'alpha', undefined)).toEqual([])
    expect(openItemsTitled(over, 'kid', parent.id).map((t) => t.id)).toEqual([child.id])
    expect(openItemsTitled(over, 'child', parent.id)).toEqual([])
    // The cache file written from the overlay's rows is the one a full rebuild of the same tasks writes.
    const rebuilt = new ScannedTables(applied(base, changes)).openRows()
    expect(JSON.stringify(encodeOpenRows(open))).toBe(JSON.stringify(encodeOpenRows(rebuilt)))
    expect(openRowColumns(rebuilt).titleHash(rebuilt.rows.findIndex((r) => r[0] === a.id))).toBe(titleHash('Beta'))
    // And an overlay on an overlay (a batch's later step) still sees the newest title.
    const again = editTask(over, ctx('alice'), {id: a.id, title: 'Delta'})
    const c2 = new Map<string, TaskEntry | null>()
    for (const c of again.changes) if (c.kind === 'put-task') c2.set(c.meta.id, entryOf(c.meta, taskFilePath(c.meta.id)))
    const over2 = overlaySnapshot(over, c2, 'c3')
    expect(openItemsTitled(over2, 'delta', undefined).map((t) => t.id)).toEqual([a.id])
    expect(openItemsTitled(over2, 'beta', undefined)).toEqual([])
  })

  it('in a batch (LiveOverlay), a create finds the items made or retitled by earlier steps, and its rows are a scan\'s', () => {
    const base = entries([task({id: 'tsk-abab000001', title: 'Alpha'}), task({id: 'tsk-abab000002', title: 'Done one', status: 'done'})])
    const live = new LiveOverlay(packedSnap(base))
    const step = (plan: {changes: Parameters<LiveOverlay['apply']>[0]}) => live.apply(plan.changes)
    const first = addTask(live.snapshot, ctx('agent'), {title: 'Make the thing', sameTitle: 'reuse'})
    expect(first.result.created).toBe(true)
    step(first)
    const again = addTask(live.snapshot, ctx('agent'), {title: 'make  THE thing', sameTitle: 'reuse'})
    expect(again.result).toMatchObject({created: false, task: {id: first.result.task.id}})
    step(editTask(live.snapshot, ctx('agent'), {id: 'tsk-abab000001', title: 'Beta'}))
    expect(addTask(live.snapshot, ctx('agent'), {title: 'beta', sameTitle: 'reuse'}).result).toMatchObject({created: false, task: {id: 'tsk-abab000001'}})
    expect(addTask(live.snapshot, ctx('agent'), {title: 'alpha', sameTitle: 'reuse'}).result.created).toBe(true)
    // The rows, read through the base's packed columns, are those of a scan of the same tasks.
    const scanned = new ScannedTables(new Map(live.entries())).openRows()
    const open = live.openRows()
    expect(JSON.stringify(encodeOpenRows(open))).toBe(JSON.stringify(encodeOpenRows(scanned)))
    expect([...open.rows]).toEqual([...scanned.rows])
  })

  it('a plain snapshot (no stored tables) finds titles the same way', () => {
    const snap = snapshot([task({id: 'tsk-ffff000001', title: 'Write docs'}), task({id: 'tsk-ffff000002', title: 'write DOCS', status: 'done'})])
    expect(openItemsTitled(snap, 'write docs', undefined).map((t) => t.id)).toEqual(['tsk-ffff000001'])
  })
})
