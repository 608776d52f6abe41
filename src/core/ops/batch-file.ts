/**
 * `tasks batch FILE|-`: a JSON list of operations of different kinds, run
 * in order, each on the list as the previous ones left it (a LiveOverlay,
 * so a 10,000-operation batch costs what its operations read, not the
 * square of their number), through the same op functions as the single
 * commands. Items created earlier in the batch are named locally
 * (`"name": "a"` on create or a check add) and referred to as `"$a"`
 * wherever an id is expected.
 *
 * Atomic (default): the first refused operation aborts the batch: nothing
 * is written, and the error keeps that operation's own code, with its
 * `index`, `op` and the per-operation `results` so far. `each`: a refused
 * operation is reported and skipped (nothing of it is written), the others
 * go on and are written together in one commit.
 */
import {TasksError, UsageError} from '../errors'
import {LiveOverlay} from '../live-overlay'
import {collapseChanges} from '../apply'
import {type Param, ParamError, type Params, readParams, snake, takes, unknownFields} from '../params'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {assertRevision} from '../revision-guard'
import type {TaskMeta} from '../task'
import * as coreOps from './index'

export type CoreOps = typeof coreOps

export interface BatchItemResult {
  index: number
  op: string
  /** The task the operation acted on or created; null when it failed before one was known. */
  id: string | null
  /** The local name given on create (or check add), if any. */
  name: string | null
  ok: boolean
  /** For ok items: the task's status and epoch after the operation (null after rm). */
  status: string | null
  epoch: number | null
  /** Check operations: the check's id. */
  check: string | null
  /** For refused items: the code and message the single command gives, and its exit code. */
  error: {code: string; message: string; exit_code: number; data: Record<string, unknown>} | null
}

export interface BatchFileResult {
  results: BatchItemResult[]
  applied: number
  failed: number
}

const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/

type Fields = Record<string, unknown>

function bad(index: number, message: string, data: Record<string, unknown> = {}): UsageError {
  return new UsageError(`operation ${index + 1}: ${message}`, {index, ...data}, 'bad_batch_op')
}

/** What one batch item came to: its plan, the task it acted on, the check it made or named. */
export interface BatchStepOutcome {
  plan: Plan<unknown>
  id: string | null
  check?: string
}

/**
 * How an operation of the operation table (src/operations) runs as a batch
 * item: declared on the operation's spec, beside its parameters, so a batch
 * item has exactly the operation's fields (in snake case).
 */
export interface BatchStep<A = any> {
  /** Older names of this operation in batch files (`create` for `add`). */
  readonly aliases?: readonly string[]
  /** The item may carry `"name"`: what it creates is `$name` to the items after it. */
  readonly named?: boolean
  /** Its op reads the checks of the task it names (the app reads them before each try). */
  readonly readsChecks?: boolean
  /** Takes claims: the batch sweeps expired leases once before its first item (as claim and next do). */
  readonly claims?: boolean
  /** The item's plan on the batch's view so far (`ops`: the pure ops, handed in). */
  readonly plan: (ops: CoreOps, snap: Snapshot, ctx: OpContext, args: A) => BatchStepOutcome
}

/** The keys a batch document given as an object may hold (Graphit's batch object). */
export const BATCH_DOCUMENT_KEYS = ['operations', 'lease'] as const

/**
 * The operations of a batch document: a JSON list, or an object with an
 * `operations` list and, optionally, a default `lease` (seconds or a
 * duration such as `30m`) for every operation that takes a lease (claim,
 * next, heartbeat, takeover, …) and gives none of its own. Any other key of
 * the object is refused (`bad_batch`, exit 2), never ignored. The operations
 * come back with the default folded in (copies; the input is not changed).
 */
export function readBatchDocument(parsed: unknown, table: BatchTable): unknown[] {
  if (Array.isArray(parsed)) return parsed
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray((parsed as Fields).operations)) {
    throw new UsageError('the batch must be a JSON list of operations (or an object with an "operations" list)', {}, 'bad_batch')
  }
  const doc = parsed as Fields
  const unknown = Object.keys(doc).filter((k) => !(BATCH_DOCUMENT_KEYS as readonly string[]).includes(k))
  if (unknown.length > 0) {
    throw new UsageError(`the batch document's key "${unknown[0]}" is not one a batch takes (keys: ${BATCH_DOCUMENT_KEYS.join(', ')})`, {field: unknown[0], allowed: [...BATCH_DOCUMENT_KEYS]}, 'bad_batch')
  }
  const ops = doc.operations as unknown[]
  if (doc.lease === undefined) return ops
  // Read as the operations read their own `lease`: the same parameter, the same limits.
  const leaseParam = table.names.map((n) => table.get(n)!.params.lease).find((p) => p !== undefined && takes(p, 'batch'))
  let lease: unknown = doc.lease
  if (leaseParam) {
    try {
      lease = readParams({lease: leaseParam}, {lease: doc.lease}, 'batch').lease
    } catch (error) {
      if (error instanceof ParamError || error instanceof UsageError) throw new UsageError(`the batch's default lease: ${error.message}`, {field: 'lease'}, 'bad_batch')
      throw error
    }
  }
  return ops.map((raw) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw
    const item = raw as Fields
    const param = typeof item.op === 'string' ? table.get(item.op)?.params.lease : undefined
    if (!param || !takes(param, 'batch') || item.lease !== undefined) return raw
    return {...item, lease}
  })
}

/** One operation as the batch runner sees it. */
export interface BatchOperation {
  /** Its name in batch files: the operation's snake-case name (`check_pass`). */
  readonly name: string
  readonly params: Params
  readonly step: BatchStep
  /** Rules across parameters, as on the other surfaces. */
  readonly check?: (args: any) => void
}

/** The batch operations by every name a batch file may use. */
export class BatchTable {
  private readonly byName = new Map<string, BatchOperation>()
  readonly names: string[]

  constructor(operations: readonly BatchOperation[]) {
    for (const o of operations) for (const n of [o.name, ...(o.step.aliases ?? [])]) this.byName.set(n, o)
    this.names = operations.map((o) => o.name)
  }

  get(name: string): BatchOperation | undefined {
    return this.byName.get(name)
  }
}

/**
 * The item's operation. The older `{"op": "check", "action": "pass"}` form
 * names `check_pass` (and so on): its fields are the operation's, less
 * `action`.
 */
function operationOf(table: BatchTable, index: number, f: Fields): {operation: BatchOperation; fields: Fields} {
  const op = f.op
  if (op === 'check') {
    const action = f.action
    const operation = typeof action === 'string' ? table.get(`check_${action}`) : undefined
    if (!operation) throw bad(index, `"action" must be add, pass, fail or supersede, not "${String(action)}"`, {field: 'action'})
    const {action: _, ...rest} = f
    return {operation, fields: rest}
  }
  const operation = typeof op === 'string' ? table.get(op) : undefined
  if (!operation) throw bad(index, `"op" must be one of ${table.names.join(', ')}`, {op: op ?? null})
  return {operation, fields: f}
}

/** Parameters that name an item of the list (or a check): `$name` refers to one created earlier in the batch. */
function refers(param: Param): boolean {
  return param.kind === 'id' || param.kind === 'ids' || param.batchRef === true
}

interface Step extends BatchStepOutcome {
  name?: {name: string; value: string}
}

function taskOf(result: unknown): TaskMeta | undefined {
  if (result && typeof result === 'object') {
    const r = result as {task?: TaskMeta; tasks?: TaskMeta[]; removed?: TaskMeta[]}
    return r.task ?? r.tasks?.[0] ?? r.removed?.[0]
  }
  return undefined
}

/** One operation's plan, on `snap`. */
function step(table: BatchTable, snap: Snapshot, ctx: OpContext, index: number, raw: unknown, names: ReadonlyMap<string, string>): Step {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad(index, 'an operation is a JSON object with an "op" field')
  const {operation, fields} = operationOf(table, index, raw as Fields)
  const extra = ['op', ...(operation.step.named ? ['name'] : [])]
  const unknown = unknownFields(operation.params, fields, 'batch', extra)
  if (unknown.length > 0) {
    const allowed = [...extra, ...Object.entries(operation.params).filter(([, p]) => takes(p, 'batch')).map(([n]) => snake(n))]
    throw bad(index, `unknown field "${unknown[0]}" for ${String(fields.op)} (fields: ${allowed.join(', ')})`, {field: unknown[0]})
  }
  let args: Record<string, unknown>
  try {
    args = readParams(operation.params, fields, 'batch')
  } catch (error) {
    if (error instanceof ParamError) throw bad(index, error.message.replace(/ is required$/, ` is required for ${String(fields.op)}`), {field: error.field})
    throw error
  }
  const ref = (value: string): string => {
    if (!value.startsWith('$')) return value
    const id = names.get(value.slice(1))
    if (id === undefined) throw new UsageError(`operation ${index + 1}: no item named "${value.slice(1)}" was created earlier in this batch`, {index, name: value.slice(1)}, 'unknown_batch_name')
    return id
  }
  for (const [key, param] of Object.entries(operation.params)) {
    const v = args[key]
    // A batch item acts on one task: the several ids a command takes are one id here.
    if (param.kind === 'ids' && Array.isArray(v) && v.length !== 1) throw bad(index, `a batch item acts on one task: give "${snake(key)}" as one id (this one has ${v.length})`, {field: snake(key)})
    if (!refers(param) || v === undefined || v === null) continue
    args[key] = Array.isArray(v) ? v.map((x: string) => ref(x)) : ref(v as string)
  }
  operation.check?.(args)
  // `if_revision` (the operations that change what a card says): the card must still be at that revision, on the batch's
  // view so far (an earlier operation of the same batch that changed the card counts), as `--if-revision` does.
  if (args.ifRevision !== undefined) assertRevision(lookup(snap, (Array.isArray(args.id) ? args.id[0] : args.id) as string), args.ifRevision as number)
  const outcome = operation.step.plan(coreOps, snap, ctx, args)
  const name = fields.name
  if (!operation.step.named || name === undefined || name === null) return outcome
  if (typeof name !== 'string' || !NAME_RE.test(name)) throw bad(index, `"${String(name)}" is not a name: letters, digits, _ . - (at most 64)`, {name})
  if (names.has(name)) throw new UsageError(`operation ${index + 1}: the name "${name}" is already used in this batch`, {index, name}, 'duplicate_batch_name')
  return {...outcome, name: {name, value: outcome.check ?? outcome.id!}}
}

/** Whether a raw item's operation takes claims (the batch's one sweep runs before it). */
function claims(table: BatchTable, raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object') return false
  return table.get(String((raw as Fields).op))?.step.claims === true
}

/** Whether a raw item's op reads the checks of the task it names. */
export function readsChecks(table: BatchTable, raw: unknown): boolean {
  if (raw === null || typeof raw !== 'object') return false
  const op = String((raw as Fields).op)
  return op === 'check' || table.get(op)?.step.readsChecks === true
}

function errorOf(error: TasksError): NonNullable<BatchItemResult['error']> {
  return {code: error.code, message: error.message, exit_code: error.exitCode, data: {...error.data}}
}

/**
 * Run a batch. `each`: refused operations are reported and skipped;
 * otherwise the first one aborts (thrown, with its own code).
 */
export function runBatchFile(snap: Snapshot, ctx: OpContext, ops: readonly unknown[], mode: 'atomic' | 'each', table: BatchTable): Plan<BatchFileResult> {
  const live = new LiveOverlay(snap)
  const changes: Change[] = []
  const trailers: Array<[string, string]> = []
  const seen = new Set<string>()
  const addTrailers = (list: ReadonlyArray<[string, string]>): void => {
    for (const t of list) {
      const key = `${t[0]}\n${t[1]}`
      if (!seen.has(key)) trailers.push(t)
      seen.add(key)
    }
  }
  // The sweep of expired leases that claim and next apply, once for the whole batch (the actor's own claims stay: next resumes them).
  if (ops.some((o) => claims(table, o))) {
    const sweep = coreOps.sweepExpired(snap, ctx, (t) => t.owner === ctx.actor)
    changes.push(...sweep.changes)
    addTrailers(sweep.trailers)
    live.apply(sweep.changes)
  }
  const names = new Map<string, string>()
  const results: BatchItemResult[] = []
  let failed = 0
  ops.forEach((raw, index) => {
    const op = raw !== null && typeof raw === 'object' && typeof (raw as Fields).op === 'string' ? String((raw as Fields).op) : '?'
    const itemCtx: OpContext = {...ctx, entropy: `${ctx.entropy}-${index}`}
    try {
      const s = step(table, live.snapshot, itemCtx, index, raw, names)
      changes.push(...s.plan.changes)
      addTrailers(s.plan.trailers)
      live.apply(s.plan.changes)
      if (s.name) names.set(s.name.name, s.name.value)
      const after = s.id ? live.get(s.id)?.meta : taskOf(s.plan.result)
      results.push({index, op, id: s.id, name: s.name?.name ?? null, ok: true, status: after?.status ?? null, epoch: after?.epoch ?? null, check: s.check ?? null, error: null})
    } catch (error) {
      if (!(error instanceof TasksError)) throw error
      const ref = raw !== null && typeof raw === 'object' ? (raw as Fields).id : undefined
      const id = typeof error.data.id === 'string' ? error.data.id : typeof ref === 'string' && !ref.startsWith('$') ? ref : null
      results.push({index, op, id, name: null, ok: false, status: null, epoch: null, check: null, error: errorOf(error)})
      failed++
      if (mode === 'atomic') {
        const which = `operation ${index + 1} of ${ops.length} (${op})`
        error.message = error.message.startsWith(`operation ${index + 1}:`) ? error.message.replace(`operation ${index + 1}:`, `${which}:`) : `${which}: ${error.message}`
        Object.assign(error.data, {index, op, results})
        throw error
      }
    }
  })
  const applied = results.length - failed
  // Trailers beyond the Task: ones are capped, so a 10,000-operation commit message stays readable.
  const MAX_TRAILERS = 500
  if (trailers.length > MAX_TRAILERS) {
    const omitted = trailers.length - MAX_TRAILERS
    trailers.length = MAX_TRAILERS
    trailers.push(['Tasks-Trailers-Omitted', String(omitted)])
  }
  return {
    op: 'batch',
    summary: `${applied} operation${applied === 1 ? '' : 's'}${failed ? ` (${failed} refused)` : ''}`,
    // Each path once: an item created, claimed and finished in the batch is one task.md, not three.
    changes: collapseChanges(changes),
    trailers: [['Tasks-Batch', `${applied} applied, ${failed} refused`], ...trailers],
    result: {results, applied, failed},
  }
}
