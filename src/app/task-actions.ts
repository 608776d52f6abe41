/**
 * The use cases behind the commands: each runs one op through the
 * transaction (or one read) and shapes the typed result that a command
 * prints as JSON or renders as text. Result shapes are documented in
 * schemas/output/ and checked by the tests.
 */
import {NotFoundError, UsageError} from '../core/errors'
import {type Repair, type Violation, checkInvariants, reconcile} from '../merge/index'
import {engineComment} from '../merge/merge-types'
import {installMergeDriver} from '../refstore/merge-driver-setup'
import {remoteExists} from '../refstore/remote'
import {writeConfig} from '../refstore/repository'
import {type SyncAction, sync} from './sync'
import {taskDir} from '../core/ids'
import {addTask, type AddArgs} from '../core/ops/add'
import {claimNext, claimTask, heartbeat, releaseAll, releaseTask} from '../core/ops/claim'
import {addComment} from '../core/ops/comment'
import {assignTask, editTask, type EditArgs, setDependencies} from '../core/ops/edit'
import {blockTask, cancelTask, finishTask, reopenTask} from '../core/ops/lifecycle'
import {removeTask} from '../core/ops/remove'
import {type Snapshot, brokenEntries, childIds, childrenOf, dependentsOf, lookup, tasksWithStatus} from '../core/snapshot'
import {ENGINE_ACTOR, STATUSES, type Comment, type Status, type TaskMeta} from '../core/task'
import {repairFieldValues} from '../core/task-file'
import {type TaskDetail, TaskViewer, type TaskView} from '../core/task-view'
import {cmp, isReady, isWaiting} from '../core/readiness'
import {readHistory, type HistoryEvent} from '../refstore/history'
import type {Loaded} from '../refstore/list-store'

export type {HistoryEvent}
import type {Session} from './session'
import {mutate, type Op} from './transaction'

export interface TaskResult {
  task: TaskView
  /** Commit that recorded the change, or null when nothing changed. */
  commit: string | null
}

async function viewer(session: Session, snap: Snapshot): Promise<TaskViewer> {
  let actor: string | undefined
  try {
    actor = await session.actor()
  } catch {
    actor = undefined
  }
  return new TaskViewer(snap, actor, session.now())
}

/** Run an op and return the view of the task it produced. */
async function mutateOne<R extends {task: TaskMeta}>(session: Session, op: Op<R>): Promise<TaskResult & {result: R}> {
  const done = await mutate(session, op)
  const v = await viewer(session, done.after)
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit, result: done.result}
}

// ---------------------------------------------------------------- init

export interface InitResult {
  list: string
  ref: string
  commit: string
  created: boolean
  remote: string | null
  /** What happened with the remote: its list adopted, ours published, both merged. */
  sync: SyncAction | null
}

/**
 * Create the list (deterministic root), register the merge driver, and with
 * a remote: record it as tasks.remote and sync, so a clone that initialises
 * against a remote that already has the list simply adopts it.
 */
export async function initList(session: Session, options: {remote?: string; cli: string}): Promise<InitResult> {
  const store = session.store
  if (options.remote !== undefined) {
    await assertRemoteExists(store.repo.cwd, options.remote)
    await writeConfig(store.repo.cwd, 'tasks.remote', options.remote)
  }
  await installMergeDriver(store.repo.cwd, store.repo.commonDir, options.cli)
  const r = await store.init()
  const remote = await session.configuredRemote()
  if (options.remote !== undefined && remote) {
    const synced = await sync(session)
    return {list: session.list, ref: store.ref, commit: synced.commit, created: r.created, remote, sync: synced.action}
  }
  return {list: session.list, ref: store.ref, commit: r.commit, created: r.created, remote, sync: null}
}

async function assertRemoteExists(cwd: string, name: string): Promise<void> {
  if (!(await remoteExists(cwd, name))) {
    throw new NotFoundError('remote_not_found', `there is no git remote named "${name}" (see \`git remote -v\`)`, {remote: name})
  }
}

export interface RemoteResult {
  remote: string | null
  previous: string | null
}

/** `tasks remote set NAME` / `tasks remote unset`. */
export async function setRemote(session: Session, name: string | null): Promise<RemoteResult> {
  const cwd = session.store.repo.cwd
  if (name !== null) await assertRemoteExists(cwd, name)
  const previous = await session.configuredRemote()
  await writeConfig(cwd, 'tasks.remote', name)
  return {remote: name, previous}
}

export {sync}

/** Unreadable cards and entries under tasks/ that are not cards, by path. */
function brokenFiles(loaded: Loaded): Array<{path: string; error: string}> {
  const cards = brokenEntries(loaded.snapshot).map((e) => ({path: e.path, error: e.error ?? 'unreadable'}))
  const strays = loaded.index.strays.map((s) => ({path: s.path, error: s.error}))
  return [...cards, ...strays].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** A card put right by `doctor --fix` because its only fault was a field value (a time the files cannot hold). */
export interface FieldValueRepair {
  kind: 'field_value'
  task: string
  message: string
}

export interface DoctorResult {
  list: string
  commit: string
  violations: Violation[]
  broken: Array<{path: string; error: string}>
  repairs: Array<Repair | FieldValueRepair>
  /** The repair commit with --fix, else null. */
  fixed: string | null
}

/** Broken cards whose only fault is a field value, with the text they were read from and the error they had. */
async function fieldValueFaults(session: Session, loaded: Loaded): Promise<Map<string, {text: string; error: string | undefined}>> {
  const out = new Map<string, {text: string; error: string | undefined}>()
  const now = session.now()
  for (const entry of brokenEntries(loaded.snapshot)) {
    const text = await session.store.readTaskText(loaded, entry.id)
    if (text !== null && repairFieldValues(text, entry.id, now)) out.set(entry.id, {text, error: entry.error})
  }
  return out
}

/**
 * `tasks doctor [--fix]`: the reconciler's checks on demand, and its repairs
 * with --fix; --fix also rewrites a broken card whose only fault is a field
 * value (repairFieldValues), recording the old values in a comment and the
 * commit.
 */
export async function doctor(session: Session, fix: boolean): Promise<DoctorResult> {
  const loaded = await session.store.load()
  const violations = checkInvariants(loaded.snapshot)
  const faults = await fieldValueFaults(session, loaded)
  const broken = brokenFiles(loaded).map((b) =>
    [...faults.keys()].some((id) => b.path.includes(`/${id}/`)) ? {...b, error: `${b.error} (\`tasks doctor --fix\` can rewrite the value)`} : b,
  )
  if (!fix || (violations.length === 0 && faults.size === 0)) {
    return {list: session.list, commit: loaded.index.commit, violations, broken, repairs: [], fixed: null}
  }
  const done = await mutate(session, (snap, ctx) => {
    const rec = reconcile(snap, {now: ctx.now})
    const changes = [...rec.changes]
    const repairs: Array<Repair | FieldValueRepair> = [...rec.repairs]
    for (const [id, fault] of faults) {
      // Only the card as it was read: if it changed since, leave it for the next run.
      const entry = snap.tasks.get(id)
      if (!entry || entry.meta || entry.error !== fault.error) continue
      const fixed = repairFieldValues(fault.text, id, ctx.now)
      if (!fixed) continue
      const said = fixed.repairs.map((r) => `${r.field} ${JSON.stringify(r.from)} → ${r.to === undefined ? 'removed' : r.to}`).join(', ')
      const message = `rewrote a value the task file could not hold: ${said}`
      const meta = {...fixed.meta, revision: fixed.meta.revision + 1, updated_at: ctx.now, updated_by: ENGINE_ACTOR}
      changes.push({kind: 'put-task', meta, body: fixed.body})
      changes.push({kind: 'add-comment', comment: engineComment(id, 'problem', ENGINE_ACTOR, `doctor --fix ${message}.`, ctx.now)})
      repairs.push({kind: 'field_value', task: id, message: `${id}: ${message}`})
    }
    return {
      op: 'doctor',
      summary: `${repairs.length} repair${repairs.length === 1 ? '' : 's'}`,
      changes,
      trailers: repairs.map((r) => ['Tasks-Repair', `${r.kind} ${r.task}`] as [string, string]),
      result: repairs,
    }
  })
  const repaired = new Set(done.result.filter((r) => r.kind === 'field_value').map((r) => r.task))
  const remaining = broken.filter((b) => ![...repaired].some((id) => b.path.includes(`/${id}/`)))
  return {list: session.list, commit: done.commit ?? loaded.index.commit, violations, broken: remaining, repairs: done.result, fixed: done.commit}
}

// ---------------------------------------------------------------- create and edit

export async function add(session: Session, args: AddArgs): Promise<TaskResult & {created: boolean}> {
  const r = await mutateOne(session, (s, c) => addTask(s, c, args))
  return {task: r.task, created: r.result.created, commit: r.commit}
}

export async function edit(session: Session, args: EditArgs): Promise<TaskResult & {fields: string[]}> {
  const r = await mutateOne(session, (s, c) => editTask(s, c, args))
  return {task: r.task, fields: r.result.fields, commit: r.commit}
}

export async function assign(session: Session, id: string, assignee: string | null): Promise<TaskResult> {
  const {task, commit} = await mutateOne(session, (s, c) => assignTask(s, c, {id, assignee}))
  return {task, commit}
}

export async function deps(session: Session, id: string, depIds: string[]): Promise<TaskResult> {
  const {task, commit} = await mutateOne(session, (s, c) => setDependencies(s, c, {id, deps: depIds}))
  return {task, commit}
}

export async function comment(session: Session, id: string, text: string, kind?: string): Promise<{comment: Comment; commit: string | null}> {
  const done = await mutate(session, (s, c) => addComment(s, c, {id, text, kind}))
  return {comment: done.result.comment, commit: done.commit}
}

export async function remove(session: Session, id: string): Promise<{removed: Array<{id: string; title: string}>; commit: string | null}> {
  const done = await mutate(session, (s, c) => removeTask(s, c, {id}))
  return {removed: done.result.removed.map((t) => ({id: t.id, title: t.title})), commit: done.commit}
}

// ---------------------------------------------------------------- claims and status

export interface ClaimOutput extends TaskResult {
  took_over_from: string | null
  already_owned: boolean
}

export async function claim(session: Session, id: string, leaseSeconds?: number): Promise<ClaimOutput> {
  const r = await mutateOne(session, (s, c) => claimTask(s, c, {id, leaseSeconds}))
  return {task: r.task, commit: r.commit, took_over_from: r.result.took_over_from ?? null, already_owned: r.result.already_owned}
}

export async function next(session: Session, tags: string[], leaseSeconds?: number): Promise<ClaimOutput> {
  const r = await mutateOne(session, (s, c) => claimNext(s, c, {tags, leaseSeconds}))
  return {task: r.task, commit: r.commit, took_over_from: r.result.took_over_from ?? null, already_owned: r.result.already_owned}
}

export async function beat(session: Session, id: string, epoch?: number, leaseSeconds?: number): Promise<TaskResult> {
  const {task, commit} = await mutateOne(session, (s, c) => heartbeat(s, c, {id, epoch, leaseSeconds}))
  return {task, commit}
}

export async function finish(session: Session, id: string, epoch?: number): Promise<TaskResult & {changed: boolean}> {
  const r = await mutateOne(session, (s, c) => finishTask(s, c, {id, epoch}))
  return {task: r.task, commit: r.commit, changed: r.result.changed}
}

export async function block(session: Session, id: string, note: string, epoch?: number): Promise<TaskResult> {
  const {task, commit} = await mutateOne(session, (s, c) => blockTask(s, c, {id, note, epoch}))
  return {task, commit}
}

export async function reopen(session: Session, id: string): Promise<TaskResult> {
  const {task, commit} = await mutateOne(session, (s, c) => reopenTask(s, c, {id}))
  return {task, commit}
}

export async function cancel(session: Session, id: string, reason: string): Promise<TaskResult & {subitems: TaskView[]}> {
  const done = await mutate(session, (s, c) => cancelTask(s, c, {id, reason}))
  const v = await viewer(session, done.after)
  return {task: v.view(done.result.task), subitems: done.result.subitems.map((t) => v.view(t)), commit: done.commit}
}

export async function release(session: Session, id: string | undefined, all: boolean, epoch?: number): Promise<{released: TaskView[]; commit: string | null}> {
  if (Boolean(all) === (id !== undefined)) throw new UsageError('pass an ID to release, or --all to release everything you hold')
  const done = await mutate(session, (s, c) => (all ? releaseAll(s, c) : releaseTask(s, c, {id: id!, epoch})))
  const v = await viewer(session, done.after)
  return {released: done.result.tasks.map((t) => v.view(t)), commit: done.commit}
}

// ---------------------------------------------------------------- reads

export interface ListFilters {
  status?: string[]
  tags?: string[]
  owner?: string
  assignee?: string
  ready?: boolean
  all?: boolean
}

export interface ListResult {
  list: string
  commit: string
  tasks: Array<TaskView & {depth: number}>
  broken: Array<{path: string; error: string}>
  warnings: string[]
}

const STATUS_RANK: Record<Status, number> = {in_progress: 0, blocked: 1, todo: 2, done: 3, cancelled: 4}
const OPEN: ReadonlySet<string> = new Set(['todo', 'in_progress', 'blocked'])

function sortForList(a: TaskMeta, b: TaskMeta): number {
  return STATUS_RANK[a.status] - STATUS_RANK[b.status] || a.priority - b.priority || cmp(a.created_at, b.created_at) || cmp(a.id, b.id)
}

export async function list(session: Session, f: ListFilters): Promise<ListResult> {
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const v = await viewer(session, snap)
  // Stored statuses asked for, plus the derived ones (ready, waiting), which are checked per task.
  const statuses = new Set<string>()
  const derivedWanted = {ready: false, waiting: false}
  for (const s of f.status ?? []) {
    for (const part of s.split(',').map((x) => x.trim()).filter(Boolean)) {
      if (part === 'ready' || part === 'waiting') derivedWanted[part] = true
      else if (part === 'open') for (const o of OPEN) statuses.add(o)
      else if (part === 'all') for (const o of STATUSES) statuses.add(o)
      else if ((STATUSES as readonly string[]).includes(part)) statuses.add(part)
      else throw new UsageError(`"${part}" is not a status: use ${STATUSES.join(', ')}, ready, waiting, open or all`, {status: part}, 'bad_status')
    }
  }
  if (statuses.size === 0 && !derivedWanted.ready && !derivedWanted.waiting) for (const s of f.all || f.owner || f.assignee ? STATUSES : OPEN) statuses.add(s)
  const actor = v.actor
  // The stored statuses to read: ready items are todo (or in progress with an expired lease), waiting ones open.
  const scan = new Set(statuses)
  if (derivedWanted.ready) for (const s of ['todo', 'in_progress']) scan.add(s)
  if (derivedWanted.waiting) for (const o of OPEN) scan.add(o)
  const matches = (t: TaskMeta): boolean => {
    const byStatus =
      statuses.has(t.status) || (derivedWanted.ready && isReady(snap, t, actor, v.now)) || (derivedWanted.waiting && isWaiting(snap, t))
    if (!byStatus) return false
    if (f.tags?.length && !f.tags.every((tag) => t.tags.includes(tag))) return false
    if (f.owner && t.owner !== f.owner) return false
    if (f.assignee && t.assignee !== f.assignee) return false
    if (f.ready && !isReady(snap, t, actor, v.now)) return false
    return true
  }
  const all = tasksWithStatus(snap, scan)
  const selected = new Set(all.filter(matches).map((t) => t.id))
  const rows: Array<TaskView & {depth: number}> = []
  const row = (t: TaskMeta, depth: number) => {
    const view = v.view(t) as TaskView & {depth: number}
    view.depth = depth
    rows.push(view)
  }
  const tops = all.filter((t) => selected.has(t.id) && !(t.parent && selected.has(t.parent))).sort(sortForList)
  for (const t of tops) {
    row(t, 0)
    const kids = childIds(snap, t.id).filter((c) => selected.has(c)).map((c) => snap.tasks.get(c)!.meta!)
    for (const c of kids.sort(sortForList)) row(c, 1)
  }
  return {
    list: session.list,
    commit: loaded.index.commit,
    tasks: rows,
    broken: brokenFiles(loaded),
    warnings: loaded.index.warnings,
  }
}

export type ShowResult = TaskDetail

export async function show(session: Session, id: string): Promise<ShowResult> {
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const meta = lookup(snap, id)
  const v = await viewer(session, snap)
  const detail = await session.store.readDetail(loaded, meta.id)
  const brief = (t: TaskMeta | {id: string; missing: 'missing' | 'unreadable'}) =>
    'missing' in t ? {id: t.id, short_id: t.id, title: `(${t.missing})`, status: t.missing} : {id: t.id, short_id: v.shortId(t.id), title: t.title, status: t.status}
  return {
    task: v.view(meta),
    body: detail.body,
    comments: detail.comments,
    dependencies: meta.depends_on.map((d) => brief(snap.tasks.get(d)?.meta ?? {id: d, missing: snap.tasks.has(d) ? 'unreadable' : 'missing'})),
    dependents: dependentsOf(snap, meta.id).map(brief),
    subitems: childrenOf(snap, meta.id).map(brief),
    broken: detail.broken,
  }
}

export async function log(session: Session, id: string | undefined, limit: number | undefined): Promise<{list: string; task: string | null; events: HistoryEvent[]}> {
  let path: string | undefined
  let task: string | null = null
  if (id !== undefined) {
    const loaded = await session.store.load()
    task = lookup(loaded.snapshot, id).id
    path = taskDir(task)
  } else if (!session.store.tip) {
    await session.store.load() // raises "not initialised"
  }
  const events = await readHistory(session.store.repo.cwd, session.store.ref, {path, limit})
  return {list: session.list, task, events}
}
