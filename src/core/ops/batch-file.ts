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
import {parseDurationSeconds} from '../duration-flag'
import {LiveOverlay} from '../live-overlay'
import {collapseChanges} from '../apply'
import type {Change, OpContext, Plan} from '../plan'
import {type Snapshot, lookup} from '../snapshot'
import {assertRevision} from '../revision-guard'
import {MAX_LEASE_SECONDS, type TaskMeta} from '../task'
import {addTask} from './add'
import {addCheck, recordCheck, supersedeCheck} from './checks'
import {claimWithoutSweep, heartbeat, nextWithoutSweep, releaseTask, sweepExpired, takeoverTask} from './claim'
import {addComment} from './comment'
import {assignTask, editTask, setDependencies} from './edit'
import {flagTask, unflagTask} from './flag'
import {blockTask, cancelTask, finishTask, reopenTask} from './lifecycle'
import {removeTask} from './remove'

export const BATCH_OPS = [
  'create',
  'edit',
  'comment',
  'deps',
  'claim',
  'next',
  'heartbeat',
  'done',
  'block',
  'reopen',
  'release',
  'cancel',
  'assign',
  'rm',
  'check',
  'flag',
  'unflag',
  'takeover',
  'sweep',
] as const

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

/** Reads the fields of one operation, resolving `$name` references. */
class Reader {
  constructor(
    private readonly index: number,
    private readonly f: Fields,
    private readonly names: ReadonlyMap<string, string>,
    private readonly allowed: ReadonlySet<string>,
  ) {
    for (const k of Object.keys(f)) if (!allowed.has(k)) throw bad(index, `unknown field "${k}" for ${String(f.op)} (fields: ${[...allowed].join(', ')})`, {field: k})
  }

  ref(value: string): string {
    if (!value.startsWith('$')) return value
    const id = this.names.get(value.slice(1))
    if (id === undefined) throw new UsageError(`operation ${this.index + 1}: no item named "${value.slice(1)}" was created earlier in this batch`, {index: this.index, name: value.slice(1)}, 'unknown_batch_name')
    return id
  }

  str(key: string): string | undefined {
    const v = this.f[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'string') throw bad(this.index, `"${key}" must be a string`, {field: key})
    return v
  }

  need(key: string): string {
    const v = this.str(key)
    if (v === undefined) throw bad(this.index, `"${key}" is required for ${String(this.f.op)}`, {field: key})
    return v
  }

  id(key = 'id'): string {
    return this.ref(this.need(key))
  }

  optId(key: string): string | undefined {
    const v = this.str(key)
    return v === undefined ? undefined : this.ref(v)
  }

  list(key: string, refs = false): string[] | undefined {
    const v = this.f[key]
    if (v === undefined || v === null) return undefined
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw bad(this.index, `"${key}" must be a list of strings`, {field: key})
    return refs ? (v as string[]).map((x) => this.ref(x)) : (v as string[])
  }

  int(key: string): number | undefined {
    const v = this.f[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw bad(this.index, `"${key}" must be a whole number`, {field: key})
    return v
  }

  priority(): string | number | undefined {
    const v = this.f.priority
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'number' && typeof v !== 'string') throw bad(this.index, '"priority" must be a number 0-4', {field: 'priority'})
    return v
  }

  lease(): number | undefined {
    const v = this.f.lease
    if (v === undefined || v === null) return undefined
    if (typeof v === 'number') return parseDurationSeconds(String(v), 'lease', MAX_LEASE_SECONDS)
    if (typeof v === 'string') return parseDurationSeconds(v, 'lease', MAX_LEASE_SECONDS)
    throw bad(this.index, '"lease" must be seconds or a duration such as 30m', {field: 'lease'})
  }

  bool(key: string): boolean {
    const v = this.f[key]
    if (v === undefined || v === null) return false
    if (typeof v !== 'boolean') throw bad(this.index, `"${key}" must be true or false`, {field: key})
    return v
  }

  has(key: string): boolean {
    return this.f[key] !== undefined
  }
}

const FIELDS: Record<(typeof BATCH_OPS)[number], string[]> = {
  create: ['title', 'body', 'priority', 'tags', 'parent', 'depends_on', 'assignee', 'key', 'name'],
  edit: ['id', 'title', 'body', 'priority', 'add_tags', 'remove_tags', 'if_revision'],
  comment: ['id', 'text', 'kind', 'if_revision'],
  deps: ['id', 'depends_on', 'if_revision'],
  claim: ['id', 'lease'],
  next: ['tags', 'lease', 'another'],
  heartbeat: ['id', 'epoch', 'lease'],
  done: ['id', 'epoch'],
  block: ['id', 'note', 'epoch', 'if_revision'],
  reopen: ['id'],
  release: ['id', 'epoch'],
  cancel: ['id', 'reason'],
  assign: ['id', 'assignee', 'if_revision'],
  rm: ['id'],
  check: ['id', 'action', 'acceptance', 'test', 'check', 'evidence', 'reason', 'name', 'if_revision'],
  flag: ['id', 'reason', 'if_revision'],
  unflag: ['id', 'if_revision'],
  takeover: ['id', 'reason', 'lease'],
  sweep: [],
}
const ALLOWED = Object.fromEntries(Object.entries(FIELDS).map(([op, f]) => [op, new Set(['op', ...f])])) as Record<string, ReadonlySet<string>>

interface Step {
  plan: Plan<unknown>
  id: string | null
  check?: string
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
function step(snap: Snapshot, ctx: OpContext, index: number, raw: unknown, names: ReadonlyMap<string, string>): Step {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad(index, 'an operation is a JSON object with an "op" field')
  const f = raw as Fields
  const op = f.op
  if (typeof op !== 'string' || !(op in FIELDS)) throw bad(index, `"op" must be one of ${BATCH_OPS.join(', ')}`, {op: op ?? null})
  const r = new Reader(index, f, names, ALLOWED[op]!)
  // `if_revision` (the operations that change what a card says): the card must still be at that revision, on the batch's
  // view so far (an earlier operation of the same batch that changed the card counts), as `--if-revision` does.
  if (r.has('if_revision')) assertRevision(lookup(snap, r.id()), r.int('if_revision'))
  const named = (value: string): {name: string; value: string} | undefined => {
    const name = r.str('name')
    if (name === undefined) return undefined
    if (!NAME_RE.test(name)) throw bad(index, `"${name}" is not a name: letters, digits, _ . - (at most 64)`, {name})
    if (names.has(name)) throw new UsageError(`operation ${index + 1}: the name "${name}" is already used in this batch`, {index, name}, 'duplicate_batch_name')
    return {name, value}
  }
  switch (op) {
    case 'create': {
      const plan = addTask(snap, ctx, {title: r.need('title'), body: r.str('body'), priority: r.priority(), tags: r.list('tags'), parent: r.optId('parent'), dependsOn: r.list('depends_on', true), assignee: r.str('assignee'), key: r.str('key')})
      return {plan, id: plan.result.task.id, name: named(plan.result.task.id)}
    }
    case 'edit': {
      const plan = editTask(snap, ctx, {id: r.id(), title: r.str('title'), body: r.str('body'), priority: r.priority(), addTags: r.list('add_tags'), removeTags: r.list('remove_tags')})
      return {plan, id: plan.result.task.id}
    }
    case 'comment': {
      const plan = addComment(snap, ctx, {id: r.id(), text: r.need('text'), kind: r.str('kind')})
      return {plan, id: plan.result.comment.task}
    }
    case 'deps': {
      const deps = r.list('depends_on', true)
      if (deps === undefined) throw bad(index, '"depends_on" is required for deps ([] clears)', {field: 'depends_on'})
      const plan = setDependencies(snap, ctx, {id: r.id(), deps})
      return {plan, id: plan.result.task.id}
    }
    case 'claim': {
      const plan = claimWithoutSweep(snap, ctx, {id: r.id(), leaseSeconds: r.lease()})
      return {plan, id: plan.result.task.id}
    }
    case 'next': {
      const plan = nextWithoutSweep(snap, ctx, {tags: r.list('tags'), leaseSeconds: r.lease(), another: r.bool('another')})
      return {plan, id: plan.result.task.id}
    }
    case 'heartbeat': {
      const plan = heartbeat(snap, ctx, {id: r.id(), epoch: r.int('epoch'), leaseSeconds: r.lease()})
      return {plan, id: plan.result.task.id}
    }
    case 'done': {
      const plan = finishTask(snap, ctx, {id: r.id(), epoch: r.int('epoch')})
      return {plan, id: plan.result.task.id}
    }
    case 'block': {
      const plan = blockTask(snap, ctx, {id: r.id(), note: r.need('note'), epoch: r.int('epoch')})
      return {plan, id: plan.result.task.id}
    }
    case 'reopen': {
      const plan = reopenTask(snap, ctx, {id: r.id()})
      return {plan, id: plan.result.task.id}
    }
    case 'release': {
      const plan = releaseTask(snap, ctx, {id: r.id(), epoch: r.int('epoch')})
      return {plan, id: plan.result.tasks[0]?.id ?? null}
    }
    case 'cancel': {
      const plan = cancelTask(snap, ctx, {id: r.id(), reason: r.need('reason')})
      return {plan, id: plan.result.task.id}
    }
    case 'assign': {
      if (!r.has('assignee')) throw bad(index, '"assignee" is required for assign (null lifts the reservation)', {field: 'assignee'})
      const plan = assignTask(snap, ctx, {id: r.id(), assignee: r.str('assignee') ?? null})
      return {plan, id: plan.result.task.id}
    }
    case 'rm': {
      const plan = removeTask(snap, ctx, {id: r.id()})
      return {plan, id: plan.result.removed[0]?.id ?? null}
    }
    case 'check': {
      const action = r.need('action')
      const id = r.id()
      if (action === 'add') {
        const acceptance = r.str('acceptance')
        const test = r.str('test')
        if ((acceptance === undefined) === (test === undefined)) throw bad(index, 'check add takes exactly one of "acceptance" or "test"')
        const plan = addCheck(snap, ctx, {id, kind: acceptance !== undefined ? 'acceptance' : 'test', text: (acceptance ?? test)!})
        return {plan, id: plan.result.task.id, check: plan.result.check.id, name: named(plan.result.check.id)}
      }
      const check = r.ref(r.need('check'))
      let plan
      if (action === 'pass' || action === 'fail') plan = recordCheck(snap, ctx, {id, check, outcome: action === 'pass' ? 'passed' : 'failed', evidence: r.str('evidence') ?? ''})
      else if (action === 'supersede') plan = supersedeCheck(snap, ctx, {id, check, reason: r.str('reason') ?? ''})
      else throw bad(index, `"action" must be add, pass, fail or supersede, not "${action}"`, {field: 'action'})
      return {plan, id: plan.result.task.id, check: plan.result.check.id}
    }
    case 'flag': {
      const plan = flagTask(snap, ctx, {id: r.id(), reason: r.need('reason')})
      return {plan, id: plan.result.task.id}
    }
    case 'unflag': {
      const plan = unflagTask(snap, ctx, {id: r.id()})
      return {plan, id: plan.result.task.id}
    }
    case 'takeover': {
      const plan = takeoverTask(snap, ctx, {id: r.id(), reason: r.need('reason'), leaseSeconds: r.lease()})
      return {plan, id: plan.result.task.id}
    }
    default: {
      const plan = sweepExpired(snap, ctx)
      return {plan, id: null}
    }
  }
}

function errorOf(error: TasksError): NonNullable<BatchItemResult['error']> {
  return {code: error.code, message: error.message, exit_code: error.exitCode, data: {...error.data}}
}

/**
 * Run a batch. `each`: refused operations are reported and skipped;
 * otherwise the first one aborts (thrown, with its own code).
 */
export function runBatchFile(snap: Snapshot, ctx: OpContext, ops: readonly unknown[], mode: 'atomic' | 'each'): Plan<BatchFileResult> {
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
  if (ops.some((o) => o !== null && typeof o === 'object' && ['claim', 'next'].includes(String((o as Fields).op)))) {
    const sweep = sweepExpired(snap, ctx, (t) => t.owner === ctx.actor)
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
      const s = step(live.snapshot, itemCtx, index, raw, names)
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
