/**
 * Plans on a branch (issue 34; docs/history.md, "Plans"): `plan start`
 * forks a list into refs/tasks/NAME with the marker plan.yaml in its first
 * commit; every command works on the plan with `--list NAME`; `plan merge`
 * lands it on its target as one change: the plan's side put right so that
 * it never touches a claim (merge/plan-land.ts) and without its marker, then
 * the merge engine and the reconciler exactly as `tasks sync` runs them
 * (sync.ts mergedTree), written as a two-parent commit (the target's tip
 * first, the plan's tip second) and moved by one compare-and-swap, or
 * online pushed with a lease and followed locally as sync's merge is.
 * `plan list` and `plan rm`.
 */
import {ConflictError, NotFoundError, UsageError, TasksError} from '../core/errors'
import {checkMarkedName} from '../core/list-marker'
import {PLAN_MARKER, PLAN_PATH, type PlanFile} from '../core/plan-marker'
import {startPlan} from '../core/ops/plan-start'
import {TASKS_DIR, TASK_FILE, listRef} from '../core/store-layout'
import {parseTaskFile, serialiseTask} from '../core/task-file'
import type {MergeNote, Repair} from '../merge/index'
import {type PlanClaimNote, landPlanCard, liveHeld, sameCard} from '../merge/plan-land'
import {readBlobs} from '../refstore/blobs'
import type {ListStore} from '../refstore/list-store'
import {deleteListRef, mergeBase, rootTreeOf} from '../refstore/plan-refs'
import {SYNC_TIMEOUT_MS, aheadBehind, fetchList, networkLimits, pushList, relate} from '../refstore/remote'
import {markedLists, readMarker} from './list-markers'
import {followPublished} from './published'
import {refusalCounter} from './push-declined'
import type {Session} from './session'
import {mergeMessage, mergedTree, sync} from './sync'
import {mutate} from './transaction'
import {type ListDiff, diffCommits, unchangedDiff} from './list-diff'

/** The Tasks-Op of a plan's merge commit: `tasks verify` replays it with planMergedTree. */
export const PLAN_MERGE_OP = 'plan-merge'

export interface PlanStartResult {
  plan: string
  ref: string
  from: string
  base: string
  created_by: string
  created_at: string
  commit: string
}

export interface PlanListResult {
  plans: Array<{
    plan: string
    ref: string
    commit: string
    from: string
    /** The merge base with the target's tip (the fork point until the plan was merged once), or the recorded fork point when the target is gone. */
    base: string
    created_by: string
    created_at: string
    /** Commits on the plan not on the target, and on the target not on the plan; null when the target list is not here. */
    ahead: number | null
    behind: number | null
    /** Cards whose files the plan changed since `base`. */
    cards_changed: number
  }>
  broken: Array<{list: string; error: string}>
}

export interface PlanRmResult {
  plan: string
  ref: string
  /** The tip the ref had (still reachable from the target when the plan was merged). */
  commit: string
}

export interface PlanMergeResult {
  plan: string
  into: string
  /** merged: one commit landed the plan; up_to_date: the target already has all of the plan (nothing written). */
  action: 'merged' | 'up_to_date'
  base: string | null
  target_before: string
  plan_commit: string
  commit: string
  notes: MergeNote[]
  repairs: Repair[]
  /** Lifecycle moves of the plan not applied because they would have touched a claim on the target. */
  kept_claims: PlanClaimNote[]
  /** Cards whose files the merge changed on the target. */
  cards_changed: number
  /** Whether the plan's (local) ref was removed after the merge (not with --keep). */
  plan_removed: boolean
  tries: number
}

const MAX_TRIES = 20

function backoff(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.random() * Math.min(400, 10 * 2 ** Math.min(attempt, 5))))
}

const checkName = (name: string, what = 'plan'): string => checkMarkedName('plan', name, what)

/** The plan marker at `commit`: null when there is none, or why it cannot be read. */
const markerAt = (store: ListStore, commit: string) => readMarker(store, PLAN_MARKER, {commit})

/** The plan NAME's tip and marker, or plan_not_found / not_a_plan. */
async function requirePlan(s: Session, name: string): Promise<{tip: string; file: PlanFile}> {
  const tip = await s.store.refreshTip()
  if (!tip) throw new NotFoundError('plan_not_found', `there is no plan "${name}" here (no ${listRef(name)}); \`tasks plan list\` shows the plans`, {plan: name})
  const marker = await markerAt(s.store, tip)
  if (marker === null) throw new ConflictError('not_a_plan', `the list "${name}" is not a plan (it has no ${PLAN_PATH}); plan commands work only on lists made by \`tasks plan start\``, {plan: name})
  if ('error' in marker) throw new ConflictError('not_a_plan', `the plan "${name}" cannot be read: ${marker.error}`, {plan: name, error: marker.error})
  return {tip, file: marker.file}
}

/**
 * `tasks plan start NAME [--from LIST]`: the ref refs/tasks/NAME at the
 * source's tip, then one mutation that writes plan.yaml (online: published
 * like any change). A name already taken is refused, nothing written.
 */
export async function start(session: Session, args: {name: string; from?: string}): Promise<PlanStartResult> {
  const name = checkName(args.name)
  const from = checkName(args.from ?? session.list, 'list')
  if (from === name) throw new UsageError(`a plan is forked from another list: --from ${from} is the plan's own name`, {plan: name, from}, 'bad_list')
  const base = await session.onList(from, async (src) => src.store.refreshTip())
  if (!base) throw new NotFoundError('list_not_found', `there is no list "${from}" here to fork (no ${listRef(from)}); \`tasks lists\` shows the lists`, {list: from})
  // One marker per list, written once: a plan of a plan would rewrite it (the guard refuses that).
  if ((await markerAt(session.store, base)) !== null) throw new UsageError(`"${from}" is itself a plan: fork its target instead, or merge it first (\`tasks plan merge ${from}\`)`, {plan: name, from}, 'bad_list')
  return session.onList(name, async (s) => {
    if (await s.store.refreshTip()) {
      const marked = (await markerAt(s.store, s.store.tip!)) !== null
      throw new ConflictError('plan_exists', `the list "${name}" already exists${marked ? ' and is a plan' : ''}: pick another name (\`tasks plan list\` shows the plans)`, {plan: name})
    }
    const forked = await s.store.compareAndSwap(base, null, `plan start ${name} from ${from}`)
    if (!forked.ok) throw new ConflictError('plan_exists', `the list "${name}" was created meanwhile: pick another name`, {plan: name})
    try {
      // The base carries no marker (checked above) and never changes: the op refuses any tip but the bare fork.
      const done = await mutate(s, (snap, ctx) => startPlan(snap, ctx, {from, base}))
      const file = done.result
      return {plan: name, ref: listRef(name), from, base, created_by: file.created_by, created_at: file.created_at, commit: done.commit!}
    } catch (e) {
      // Nothing of this plan stays behind: the ref goes only if it is still the bare fork.
      await deleteListRef(s.store.repo, name, base)
      throw e
    }
  })
}

/** Card ids whose files differ between two commits (plan.yaml and other root files left out). */
async function changedCards(store: ListStore, from: string | null, to: string): Promise<Set<string>> {
  const ids = new Set<string>()
  for (const path of (await store.fileChanges(from, to)).keys()) {
    const id = cardIdOf(path)
    if (id) ids.add(id)
  }
  return ids
}

function cardIdOf(path: string): string | null {
  const parts = path.split('/')
  return parts.length >= 4 && parts[0] === TASKS_DIR ? parts[2]! : null
}

/** `tasks plan list`: every list here whose tip carries plan.yaml, with its target, base and how far apart they are. */
export async function list(session: Session): Promise<PlanListResult> {
  const store = session.store
  const cwd = store.repo.cwd
  const {tips, lists, broken} = await markedLists(store, PLAN_MARKER)
  const out: PlanListResult = {plans: [], broken}
  for (const {list: name, ref, commit: oid, file} of lists) {
    const target = tips.get(listRef(file.from)) ?? null
    const base = (target ? await mergeBase(cwd, oid, target) : null) ?? file.base
    const ab = target ? await aheadBehind(cwd, oid, target) : {ahead: null, behind: null}
    const cards = await changedCards(store, base, oid)
    out.plans.push({plan: name, ref, commit: oid, from: file.from, base, created_by: file.created_by, created_at: file.created_at, ahead: ab.ahead, behind: ab.behind, cards_changed: cards.size})
  }
  out.plans.sort((a, b) => (a.plan < b.plan ? -1 : 1))
  return out
}

/**
 * `tasks plan rm NAME --confirm NAME`: delete the plan's ref here. Only a
 * plan (a list with plan.yaml); the commits stay reachable from a target it
 * was merged into. The remote's copy is not deleted (the guard refuses
 * deleting a list's ref).
 */
export async function rm(session: Session, args: {name: string}): Promise<PlanRmResult> {
  const name = checkName(args.name)
  return session.onList(name, async (s) => {
    const {tip} = await requirePlan(s, name)
    if (!(await deleteListRef(s.store.repo, name, tip))) {
      throw new ConflictError('cas_exhausted', `the plan "${name}" moved while it was being removed; nothing was removed. Try again.`, {plan: name})
    }
    // Only this clone's ref: the remote's copy stays (published: false).
    session.wrote = {published: false, remote: await session.configuredRemote()}
    return {plan: name, ref: listRef(name), commit: tip}
  })
}

/**
 * The plan's tip as it lands (objects only, on no ref): plan.yaml as the
 * fork point had it, each card the plan changed with its claim unit put
 * right (landPlanCard), and a card the plan removed that someone holds on
 * the target put back. Deterministic in its inputs, so the guard replays it.
 */
async function landedPlan(store: ListStore, targetTip: string, planTip: string, base: string | null, now: string, actor: string): Promise<{commit: string; kept: PlanClaimNote[]}> {
  const changes = await store.fileChanges(base, planTip)
  const target = (await store.loadCommit(targetTip, false)).snapshot
  const kept: PlanClaimNote[] = []
  const files: Array<{path: string; content: string | null}> = []
  const edited: Array<{path: string; id: string; before: string; after: string}> = []
  const removedHeld = new Set<string>()
  for (const [path, c] of changes) {
    const id = cardIdOf(path)
    if (!id || !path.endsWith(`/${TASK_FILE}`) || path.split('/').length !== 4 || !c.before) continue
    if (c.after) edited.push({path, id, before: c.before, after: c.after})
    else {
      const held = target.tasks.get(id)?.meta
      if (held && liveHeld(held)) removedHeld.add(id)
    }
  }
  const restore = [...changes].filter(([path, c]) => c.before && removedHeld.has(cardIdOf(path) ?? ''))
  const marker = changes.get(PLAN_PATH)
  const wanted = [...edited.flatMap((e) => [e.before, e.after]), ...restore.map(([, c]) => c.before!), ...(marker?.before ? [marker.before] : [])]
  const blobs = wanted.length > 0 ? await readBlobs(store.repo.cwd, wanted) : new Map<string, Buffer>()
  const text = (oid: string) => blobs.get(oid)?.toString('utf8') ?? null
  for (const e of edited) {
    const beforeText = text(e.before)
    const afterText = text(e.after)
    if (beforeText === null || afterText === null) continue
    const b = parseTaskFile(beforeText, e.id)
    const p = parseTaskFile(afterText, e.id)
    if (!b.ok || !p.ok) continue // an unreadable side is the merge's to report (unreadable), as in sync
    const landing = landPlanCard(b.value.meta, p.value.meta, target.tasks.get(e.id)?.meta)
    if (landing.note) kept.push(landing.note)
    if (landing.meta === p.value.meta) continue
    const unchanged = sameCard(landing.meta, b.value.meta) && p.value.body === b.value.body
    files.push({path: e.path, content: unchanged ? beforeText : serialiseTask(landing.meta, p.value.body)})
  }
  for (const [path, c] of restore) files.push({path, content: text(c.before!)})
  for (const id of [...removedHeld].sort()) {
    kept.push({kind: 'plan_claim_kept', task: id, message: `${id}: the plan removed it, but it is held on the target (${target.tasks.get(id)!.meta!.status} by ${target.tasks.get(id)!.meta!.owner ?? 'nobody'}); it is kept`})
  }
  // The marker never lands: the target keeps what the fork point had there.
  if (marker) files.push({path: PLAN_PATH, content: marker.before ? text(marker.before) : null})
  const root = await rootTreeOf(store.reader, planTip)
  if (!root) throw new NotFoundError('plan_not_found', `the plan's tip ${planTip.slice(0, 12)} is not a commit here`, {commit: planTip})
  const tree = files.length > 0 ? await store.writeFiles(root, files) : root
  return {commit: tree === root ? planTip : store.writeCommit(tree, [planTip], actor, now, 'plan merge: the plan as it lands\n'), kept}
}

/**
 * The tree `tasks plan merge` writes for target tip `targetTip` and plan tip
 * `planTip` (base: their merge base) at time `now`: the landed plan merged
 * into the target by sync's engine and reconciler, the target as the
 * published side (it wins claims and id collisions). Objects only; no ref
 * moves. `tasks verify` replays it to recognise a plan's merge commit.
 */
export async function planMergedTree(store: ListStore, targetTip: string, planTip: string, base: string | null, now: string, actor: string) {
  const landed = await landedPlan(store, targetTip, planTip, base, now, actor)
  const merged = await mergedTree(store, landed.commit, targetTip, base, now, actor)
  return {...merged, kept: landed.kept}
}

function planMergeMessage(name: string, into: string, actor: string, m: Awaited<ReturnType<typeof planMergedTree>>): string {
  const count = m.merged.notes.length + m.rec.repairs.length + m.kept.length
  return mergeMessage(`plan merge: ${name} into ${into} (${count === 0 ? 'clean' : `${count} note(s)`})`, [`Tasks-Op: ${PLAN_MERGE_OP}`, `Actor: ${actor}`, `Tasks-Plan: ${name}`], m, m.kept)
}

/**
 * `tasks plan merge NAME [--into LIST] [--keep]`: land the plan on its
 * target (the list it was forked from, or --into) as one merge commit, by
 * one compare-and-swap (online: one push with a lease on the remote tip it
 * was computed from, then the local ref follows). A lost race computes the
 * merge again on the new tip. Then the plan's ref is removed here unless
 * --keep.
 */
export async function merge(session: Session, args: {name: string; into?: string; keep?: boolean}): Promise<PlanMergeResult> {
  const name = checkName(args.name)
  const remote = await session.remote()
  return session.onList(name, async (ps) => {
    if (remote) {
      // The plan as the remote has it (and this clone's own commits of it, published).
      try {
        await sync(ps)
      } catch (e) {
        if (!(e instanceof TasksError) || e.code !== 'not_initialised') throw e
      }
    }
    const {tip: planTip, file} = await requirePlan(ps, name)
    const into = checkName(args.into ?? file.from, 'list')
    if (into === name) throw new UsageError(`a plan merges into another list, not into itself (--into ${into})`, {plan: name, into}, 'bad_list')
    const result = await session.onList(into, async (ts) => landPlan(ts, remote, name, into, planTip))
    if (result.action === 'merged' && !args.keep) result.plan_removed = await deleteListRef(ps.store.repo, name, planTip)
    session.wrote = {published: remote !== null, remote: remote ?? (await session.configuredRemote())}
    return result
  })
}

/** The merge commit of the plan on `targetTip` (objects only; no ref moves). */
async function mergeCommit(ts: Session, name: string, into: string, targetTip: string, planTip: string, base: string | null, final = true) {
  const actor = await ts.actor()
  const now = ts.now()
  const m = await planMergedTree(ts.store, targetTip, planTip, base, now, actor)
  const message = planMergeMessage(name, into, actor, m)
  // The one that lands is signed when the repository signs (writeFinalCommit); plan diff's is never on a ref.
  const commit = final ? await ts.store.writeFinalCommit(m.tree, [targetTip, planTip], actor, now, message) : ts.store.writeCommit(m.tree, [targetTip, planTip], actor, now, message)
  return {commit, m}
}

export interface PlanDiffResult {
  plan: string
  into: string
  base: string | null
  target_tip: string
  plan_commit: string
  /** The merge commit `plan merge` would write now (an object on no ref; null when the target already has the whole plan). */
  merge_commit: string | null
  notes: MergeNote[]
  repairs: Repair[]
  kept_claims: PlanClaimNote[]
  /** What merging would change on the target: `tasks diff` from its tip to the merge. */
  diff: ListDiff
}

/**
 * `tasks plan diff NAME [--into LIST]`: what `plan merge` would change on
 * the target as this clone has it, as `tasks diff` shows it: the merge is
 * computed (objects only, no ref moves) and diffed from the target's tip.
 */
export async function diff(session: Session, args: {name: string; into?: string}): Promise<PlanDiffResult> {
  const name = checkName(args.name)
  return session.onList(name, async (ps) => {
    const {tip: planTip, file} = await requirePlan(ps, name)
    const into = checkName(args.into ?? file.from, 'list')
    if (into === name) throw new UsageError(`a plan merges into another list, not into itself (--into ${into})`, {plan: name, into}, 'bad_list')
    return session.onList(into, async (ts) => {
      const targetTip = await ts.store.refreshTip()
      if (!targetTip) throw new NotFoundError('list_not_found', `there is no list "${into}" here to merge the plan into (no ${listRef(into)})`, {list: into})
      const base = await mergeBase(ts.store.repo.cwd, targetTip, planTip)
      const common = {plan: name, into, base, target_tip: targetTip, plan_commit: planTip}
      // The target already has the whole plan: nothing to diff.
      if (base === planTip) return {...common, merge_commit: null, notes: [], repairs: [], kept_claims: [], diff: await unchangedDiff(ts, targetTip, targetTip)}
      const {commit, m} = await mergeCommit(ts, name, into, targetTip, planTip, base, false)
      // A merge that leaves the target's tree as it is (a plan with nothing to land) changes nothing either.
      const unchanged = m.tree === (await rootTreeOf(ts.store.reader, targetTip))
      return {...common, merge_commit: commit, notes: m.merged.notes, repairs: m.rec.repairs, kept_claims: m.kept, diff: unchanged ? await unchangedDiff(ts, targetTip, commit) : await diffCommits(ts, targetTip, commit)}
    })
  })
}

async function landPlan(ts: Session, remote: string | null, name: string, into: string, planTip: string): Promise<PlanMergeResult> {
  const store = ts.store
  const cwd = store.repo.cwd
  const refused = remote ? refusalCounter(remote) : null
  const limits = remote ? await networkLimits(cwd, SYNC_TIMEOUT_MS) : undefined
  for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
    const localTip = await store.refreshTip()
    let targetTip = localTip
    let remoteTip: string | null = null
    if (remote) {
      remoteTip = await fetchList(cwd, remote, into, (ref) => store.readRef(ref), limits)
      if (remoteTip && localTip && localTip !== remoteTip && (await relate(cwd, localTip, remoteTip)).kind !== 'behind') {
        throw new ConflictError('target_unpublished', `the list "${into}" has local changes ${remote} does not have yet: \`tasks sync --list ${into}\` first, then merge the plan`, {list: into, remote})
      }
      targetTip = remoteTip ?? localTip
    }
    if (!targetTip) throw new NotFoundError('list_not_found', `there is no list "${into}" here to merge the plan into (no ${listRef(into)})`, {list: into})
    const base = await mergeBase(cwd, targetTip, planTip)
    const common = {plan: name, into, base, target_before: targetTip, plan_commit: planTip, notes: [], repairs: [], kept_claims: [], cards_changed: 0, plan_removed: false, tries: attempt}
    if (base === planTip) return {...common, action: 'up_to_date', commit: targetTip}
    const {commit, m} = await mergeCommit(ts, name, into, targetTip, planTip, base)
    const done = async (): Promise<PlanMergeResult> => ({...common, action: 'merged', commit, notes: m.merged.notes, repairs: m.rec.repairs, kept_claims: m.kept, cards_changed: (await changedCards(store, targetTip, commit)).size})
    if (remote) {
      const pushed = await pushList(cwd, remote, into, commit, remoteTip, limits)
      if (pushed.ok) {
        await followPublished(ts, commit, localTip, `plan merge ${name}`)
        return done()
      }
      refused!(pushed, attempt)
    } else if ((await store.compareAndSwap(commit, targetTip, `plan merge ${name}`)).ok) {
      return done()
    }
    await backoff(attempt)
  }
  throw new ConflictError('cas_exhausted', `the list "${into}" kept changing during the plan's merge; gave up after ${MAX_TRIES} tries. Try again.`, {tries: MAX_TRIES})
}
