/**
 * The open rows of an overlay whose base keeps them as columns (the index
 * cache file) are read through to those columns (MergedOpenRows): every
 * field of every row, the parent positions included, and the rows as
 * tuples, and the cache file's line written from them, are what the tuple
 * path (a base without columns) and a scan of the same tasks give, whatever was added, removed, closed, reopened,
 * moved under another parent, made to depend on something or retitled.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MergedOpenRows} from '../../src/core/merged-open-rows'
import {overlaySnapshot} from '../../src/core/overlay'
import {type OpenRowColumns, type OpenRows, ScannedTables, type Snapshot, type TaskEntry, entryOf, openRowColumns, tablesOf} from '../../src/core/snapshot'
import {DEFAULT_CONFIG, type Status, type TaskMeta} from '../../src/core/task'
import {taskFilePath} from '../../src/core/store-layout'
import {ColumnOpenRows, encodeOpenRows} from '../../src/refstore/task-index'
import {applied, task} from '../helpers/snapshot'

const POOL = Array.from({length: 24}, (_, i) => `tsk-${(i * 7919).toString(36).padStart(10, '0')}`)
const STATUSES: Status[] = ['todo', 'todo', 'in_progress', 'blocked', 'done', 'cancelled']
// Few creation times and priorities, so that rows tie on them and the id decides.
const TIMES = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '2026-02-01T00:00:00.000Z']
// Titles that are canonically the same or not: the rows' title hashes must follow a retitle.
const TITLES = ['Fix the login', 'fix  THE login', 'Ship it', 'Write tests']

const fieldsArb = fc.record({
  status: fc.constantFrom(...STATUSES),
  priority: fc.integer({min: 0, max: 2}),
  created: fc.constantFrom(...TIMES),
  parent: fc.option(fc.constantFrom(...POOL), {nil: undefined, freq: 2}),
  deps: fc.subarray(POOL, {maxLength: 3}),
  owner: fc.option(fc.constantFrom('bob', 'carol'), {nil: undefined}),
  assignee: fc.option(fc.constantFrom('bob', 'carol'), {nil: undefined}),
  lease: fc.option(fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-03-01T12:00:00.000Z', 'soon'), {nil: undefined}),
  title: fc.constantFrom(...TITLES),
})
type Fields = typeof fieldsArb extends fc.Arbitrary<infer F> ? F : never

function entry(id: string, f: Fields): TaskEntry {
  return entryOf(task({id, title: f.title, status: f.status, priority: f.priority, created_at: f.created, parent: f.parent === id ? undefined : f.parent, depends_on: f.deps.filter((d) => d !== id), owner: f.owner, assignee: f.assignee, lease_expires: f.lease}), taskFilePath(id))
}

const entryArb = (id: string): fc.Arbitrary<TaskEntry> =>
  fc.oneof({weight: 12, arbitrary: fieldsArb.map((f) => entry(id, f))}, {weight: 1, arbitrary: fc.constant<TaskEntry>({id, path: taskFilePath(id), error: 'broken'})})

const baseArb = fc.subarray(POOL, {minLength: 1}).chain((ids) => fc.tuple(...ids.map(entryArb)).map((es) => new Map(es.map((e) => [e.id, e]))))

/** One change to `id`: gone, a new entry, or the base's entry with its status, parent, dependencies or priority changed. */
function changeArb(base: ReadonlyMap<string, TaskEntry>, id: string): fc.Arbitrary<TaskEntry | null> {
  const meta = base.get(id)?.meta
  const fresh = entryArb(id)
  if (!meta) return fc.oneof(fresh, fc.constant(null))
  const tweak = (patch: fc.Arbitrary<Partial<TaskMeta>>) => patch.map((p) => entryOf({...meta, ...p, id}, taskFilePath(id)))
  return fc.oneof(
    fc.constant(null),
    fresh,
    tweak(fc.record({status: fc.constantFrom(...STATUSES)})),
    tweak(fc.record({parent: fc.option(fc.constantFrom(...POOL.filter((p) => p !== id)), {nil: undefined})})),
    tweak(fc.record({depends_on: fc.subarray(POOL.filter((p) => p !== id), {maxLength: 3})})),
    tweak(fc.record({priority: fc.integer({min: 0, max: 2}), created_at: fc.constantFrom(...TIMES)})),
    tweak(fc.record({title: fc.constantFrom(...TITLES)})),
  )
}

const caseArb = baseArb.chain((base) =>
  fc
    .subarray(POOL, {minLength: 1, maxLength: 6})
    .chain((ids) => fc.tuple(...ids.map((id) => changeArb(base, id).map((e) => [id, e] as const))))
    .map((pairs) => ({base, changes: new Map(pairs)})),
)

/** Tables over `tasks` whose open rows come back from the cache file's packing, as an IndexFile's do. */
class PackedTables extends ScannedTables {
  private packed: ColumnOpenRows | undefined
  override openRows(): OpenRows {
    this.packed ??= new ColumnOpenRows(JSON.parse(JSON.stringify(encodeOpenRows(super.openRows()))))
    return this.packed
  }
}

const snap = (tasks: ReadonlyMap<string, TaskEntry>, tables: ScannedTables): Snapshot => ({list: 'main', commit: 'c', config: DEFAULT_CONFIG, tasks, tables})

function columnsOf(c: OpenRowColumns) {
  return Array.from({length: c.length}, (_, i) => [c.id(i), c.status(i), c.priority(i), c.created(i), c.owner(i), c.assignee(i), c.leaseEnd(i), c.flags(i), c.parentRow(i), c.parent(i), c.leaseText(i), c.titleHash(i)])
}

describe('open rows of an overlay over columns', () => {
  it('read field by field, and as rows, as the tuple path and a scan give them', () => {
    fc.assert(
      fc.property(caseArb, ({base, changes}) => {
        const merged = tablesOf(overlaySnapshot(snap(base, new PackedTables(base)), changes, 'c')).openRows()
        const tuples = tablesOf(overlaySnapshot(snap(base, new ScannedTables(base)), changes, 'c')).openRows()
        const scanned = new ScannedTables(applied(base, changes)).openRows()
        expect(merged).toBeInstanceOf(MergedOpenRows)
        // Columns first: they must not need the rows.
        const got = columnsOf(openRowColumns(merged))
        expect(got).toEqual(columnsOf(openRowColumns(tuples)))
        expect(got).toEqual(columnsOf(openRowColumns(scanned)))
        // The cache file written from it (through the columns too) is the one written from the scan.
        expect(JSON.stringify(encodeOpenRows(merged))).toBe(JSON.stringify(encodeOpenRows(scanned)))
        expect([...merged.rows]).toEqual([...tuples.rows])
        expect([...merged.rows]).toEqual([...scanned.rows])
        expect(merged.finished).toBe(scanned.finished)
        expect([...merged.broken]).toEqual([...scanned.broken])
        expect(JSON.stringify(encodeOpenRows(merged))).toBe(JSON.stringify(encodeOpenRows(tuples)))
      }),
      {numRuns: 1500},
    )
  })

  it('make no tuple per row for a listing or for writing the cache file, only when rows are asked for', () => {
    const base = new Map(POOL.map((id, i) => [id, entry(id, {status: 'todo', priority: i % 3, created: TIMES[i % 3]!, parent: i > 3 ? POOL[i % 4] : undefined, deps: [], owner: undefined, assignee: undefined, lease: undefined, title: TITLES[i % 4]!})]))
    const tables = new PackedTables(base)
    const packed = tables.openRows() as ColumnOpenRows
    let asked = 0
    const rows = Object.getOwnPropertyDescriptor(ColumnOpenRows.prototype, 'rows')!.get!
    Object.defineProperty(packed, 'rows', {get: () => (asked++, rows.call(packed))})
    const changes = new Map([[POOL[5]!, entry(POOL[5]!, {status: 'done', priority: 0, created: TIMES[0]!, parent: POOL[1], deps: [], owner: undefined, assignee: undefined, lease: undefined, title: TITLES[0]!})]])
    const merged = tablesOf(overlaySnapshot(snap(base, tables), changes, 'c')).openRows()
    columnsOf(openRowColumns(merged))
    const written = JSON.stringify(encodeOpenRows(merged))
    expect(asked).toBe(0)
    expect((merged as unknown as {tuples?: unknown}).tuples).toBeUndefined()
    expect(written).toBe(JSON.stringify(encodeOpenRows(new ScannedTables(applied(base, changes)).openRows())))
    expect(merged.rows.map((r) => r[0])).toEqual(new ScannedTables(applied(base, changes)).openRows().rows.map((r) => r[0]))
    expect(asked).toBe(1)
  })
})
