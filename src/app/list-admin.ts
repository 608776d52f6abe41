/**
 * Use cases that look after the list itself: `init`, `remote set/unset`,
 * `sync` and `doctor` (invariants, unreadable files, stale ref locks, the
 * merge driver's registration).
 */
import {NotFoundError, UsageError} from '../core/errors'
import {type Repair, type Violation, checkInvariants, reconcile} from '../merge/index'
import {engineComment} from '../merge/merge-types'
import {checkMergeDriver, installMergeDriver} from '../refstore/merge-driver-setup'
import {remoteExists} from '../refstore/remote'
import {writeConfig} from '../refstore/repository'
import {type SyncAction, sync} from './sync'
import {remotesWithList} from './sharing'
import {type Snapshot, brokenEntries, tablesOf} from '../core/snapshot'
import {ENGINE_ACTOR} from '../core/task'
import {repairFieldValues} from '../core/task-file'
import {type RefLock, findRefLocks, removeStaleLocks} from '../refstore/ref-locks'
import type {Loaded} from '../refstore/list-store'
import type {Session} from './session'
import {brokenFiles} from './list-query'
import {mutate} from './transaction'

export interface InitResult {
  list: string
  ref: string
  commit: string
  created: boolean
  remote: string | null
  /** What happened with the remote: its list adopted, ours published, both merged. */
  sync: SyncAction | null
  /** True when no --remote was given and init found the list on the one remote that has it, and adopted it. */
  discovered: boolean
}

/**
 * Create the list (deterministic root), register the merge driver, and with
 * a remote: record it as tasks.remote and sync, so a clone that initialises
 * against a remote that already has the list simply adopts it. Without
 * --remote, a list that does not exist here is looked for on the remotes
 * (not with --offline): when exactly one has it, it is adopted as with
 * `--remote` that one; when several do, the user picks (ambiguous_remote).
 */
export async function initList(session: Session, options: {remote?: string; cli: string}): Promise<InitResult> {
  const store = session.store
  let remoteName = options.remote
  let discovered = false
  if (remoteName === undefined && !store.tip && !session.offline) {
    const found = await remotesWithList(session)
    if (found.length > 1) {
      const flags = session.list === 'main' ? '' : ` --list ${session.list}`
      throw new UsageError(
        `the remotes ${found.map((r) => `"${r}"`).join(', ')} all have the list "${session.list}": pick one with \`tasks init --remote NAME${flags}\` (or \`tasks init --offline\` for a separate local list)`,
        {list: session.list, remotes: found},
        'ambiguous_remote',
      )
    }
    if (found.length === 1) {
      remoteName = found[0]!
      discovered = true
    }
  }
  if (remoteName !== undefined) {
    await assertRemoteExists(store.repo.cwd, remoteName)
    await writeConfig(store.repo.cwd, 'tasks.remote', remoteName)
  }
  await installMergeDriver(store.repo.cwd, store.repo.commonDir, options.cli)
  const r = await store.init()
  const remote = await session.configuredRemote()
  if (remoteName !== undefined && remote) {
    const synced = await sync(session)
    return {list: session.list, ref: store.ref, commit: synced.commit, created: r.created, remote, sync: synced.action, discovered}
  }
  return {list: session.list, ref: store.ref, commit: r.commit, created: r.created, remote, sync: null, discovered}
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
export async function setRemote(session: Session, {name}: {name: string | null}): Promise<RemoteResult> {
  const cwd = session.store.repo.cwd
  if (name !== null) await assertRemoteExists(cwd, name)
  const previous = await session.configuredRemote()
  await writeConfig(cwd, 'tasks.remote', name)
  return {remote: name, previous}
}

export {sync}

/** Unreadable cards and entries under tasks/ that are not cards, by path. */

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
  /** Ref lock files left behind by dead processes (removed with --fix once stale). */
  locks: RefLock[]
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
 * A merge driver registration that no longer matches what `tasks init`
 * would register (the checkout moved, or git-tasks is now on PATH): --fix
 * rewrites it, otherwise a warning says so.
 */
async function refreshMergeDriver(session: Session, fix: boolean, cli: string): Promise<void> {
  const repo = session.store.repo
  const reg = await checkMergeDriver(repo.cwd, cli)
  if (!reg.outdated) return
  if (fix) await installMergeDriver(repo.cwd, repo.commonDir, cli)
  else session.warn({kind: 'merge_driver_outdated', message: `the git merge driver is registered as \`${reg.current}\`; \`tasks doctor --fix\` registers \`${reg.wanted}\``})
}

/**
 * The snapshot with the checks of every done card (the reconciler's check
 * rule: a done card has every active check passed). Only doctor reads them
 * all; a card without a checks directory costs one tree read.
 */
async function withDoneChecks(session: Session, loaded: Loaded): Promise<Snapshot> {
  const snap = loaded.snapshot
  const done = tablesOf(snap).sortedIds().filter((id) => snap.tasks.get(id)?.status === 'done')
  if (done.length === 0) return snap
  const {checks} = await session.store.readChecks(loaded.index.commit, done)
  return {...snap, checks}
}

/**
 * `tasks doctor [--fix]`: the reconciler's checks on demand, and its repairs
 * with --fix; --fix also rewrites a broken card whose only fault is a field
 * value (repairFieldValues), recording the old values in a comment and the
 * commit.
 */
export async function doctor(session: Session, {fix, cli}: {fix: boolean; cli?: string}): Promise<DoctorResult> {
  if (cli !== undefined) await refreshMergeDriver(session, fix, cli)
  // Locks first: a stale one would stop the repair commit below.
  const found = findRefLocks(session.store.repo.commonDir)
  const locks = fix ? removeStaleLocks(found) : found
  const loaded = await session.store.load()
  const violations = checkInvariants(await withDoneChecks(session, loaded))
  const faults = await fieldValueFaults(session, loaded)
  const broken = brokenFiles(loaded).map((b) =>
    [...faults.keys()].some((id) => b.path.includes(`/${id}/`)) ? {...b, error: `${b.error} (\`tasks doctor --fix\` can rewrite the value)`} : b,
  )
  if (!fix || (violations.length === 0 && faults.size === 0)) {
    return {list: session.list, commit: loaded.index.commit, violations, broken, repairs: [], fixed: null, locks}
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
  }, (_store, l) => withDoneChecks(session, l))
  const repaired = new Set(done.result.filter((r) => r.kind === 'field_value').map((r) => r.task))
  const remaining = broken.filter((b) => ![...repaired].some((id) => b.path.includes(`/${id}/`)))
  return {list: session.list, commit: done.commit ?? loaded.index.commit, violations, broken: remaining, repairs: done.result, fixed: done.commit, locks}
}
