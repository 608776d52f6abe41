/**
 * The public shape of a task in --json output (schemas/output/task.schema.json):
 * stored fields plus what is derived from the graph at one moment (ready,
 * waiting, blocked_by, whether the claim is live, sub-items). Unset fields
 * are null, never missing, so consumers can rely on every key.
 */
import {claimIsLive, derivedState, isReady, isWaiting, stateOf, waitReasons, type State, type WaitReason} from './readiness'
import {type Snapshot, childIds, tablesOf} from './snapshot'
import {shortIdOf, shortIdsOf} from './ids'
import type {Check} from './check'
import {isOverdue} from './dates'
import {type Comment, DEFAULT_TASK_TYPE, type Status, type TaskMeta} from './task'

export interface TaskView {
  id: string
  short_id: string
  title: string
  status: Status
  /** What a person sees in the STATUS column and filters by: the status refined (ready, waiting, reserved, stale…). */
  state: State
  /** What kind of work (TASK_TYPES): `task` unless set. */
  type: string
  priority: number
  tags: string[]
  parent: string | null
  subitems: string[]
  /** Of the sub-items: how many are done, of those not cancelled (issue 33); null without sub-items. */
  progress: Progress | null
  depends_on: string[]
  blocked_by: WaitReason[]
  ready: boolean
  waiting: boolean
  assignee: string | null
  owner: string | null
  epoch: number
  claimed_at: string | null
  lease_expires: string | null
  claim_live: boolean
  /** The agent session the claim was made in (TASKS_SESSION / --session). */
  session: string | null
  /** Set while the item is flagged: it cannot be finished, and anyone may take it over. */
  flag: {reason: string; by: string | null; at: string | null} | null
  block_note: string | null
  /** `block --on`: who the blocked card waits on (parked), else null. */
  blocked_on: string | null
  cancel_reason: string | null
  closed_at: string | null
  key: string | null
  collaborators: string[]
  subscribers: string[]
  notify_roles: string[]
  notify_mute: string[]
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
  revision: number
  /** The coordination session the task belongs to (`ses-…`), or null. Not the agent-run label `session`. */
  work_session: string | null
  // issue 33: states and dates (docs/model.md, "Deferred and failed", "Dates and repeats")
  defer_reason: string | null
  defer_until: string | null
  fail_reason: string | null
  due: string | null
  scheduled: string | null
  every: string | null
  previous: string | null
  /** Open and past its due date at the time of the read. */
  overdue: boolean
  /** Issue 33: the card's custom fields (key → text, number or boolean); {} when none. */
  fields: Record<string, string | number | boolean>
}

/** A parent's sub-items done, of its sub-items not cancelled (`[2/5]` in text). */
export interface Progress {
  done: number
  total: number
}

/**
 * The progress of an item whose sub-items are `kids`: done ones of those not
 * cancelled, read from each entry's status (no frontmatter decoded); null
 * when it has none. A cancelled sub-item is no longer work, as it does not
 * hold its parent open either (core/nesting.ts).
 */
export function progressOf(snap: Snapshot, kids: readonly string[]): Progress | null {
  if (kids.length === 0) return null
  let done = 0
  let total = 0
  for (const c of kids) {
    const status = snap.tasks.get(c)?.status
    if (status === 'cancelled') continue
    total++
    if (status === 'done') done++
  }
  return {done, total}
}

/** A related task in a detail view (dependency, dependent, sub-item). */
export interface TaskBrief {
  id: string
  short_id: string
  title: string
  status: string
}

/** `tasks show`: the task, its text, its comments and its neighbours in the graph. */
export interface TaskDetail {
  /** The newest progress checkpoint (also among `comments`), or null: first, so a resuming agent reads it first. */
  checkpoint: Comment | null
  task: TaskView
  body: string
  comments: Comment[]
  dependencies: TaskBrief[]
  dependents: TaskBrief[]
  subitems: TaskBrief[]
  /** Acceptance criteria and tests, in the order they were added. */
  checks: Check[]
  broken: Array<{path: string; error: string}>
}

/** Builds views against one snapshot, sharing the short-id table. */
export class TaskViewer {
  private shorts = new Map<string, string>()

  constructor(
    readonly snap: Snapshot,
    readonly actor: string | undefined,
    readonly now: string,
  ) {}

  /** Shortest unique prefix, by prefix lookups in the sorted ids (no table of all ids). */
  shortId(id: string): string {
    let s = this.shorts.get(id)
    if (s === undefined) {
      s = shortIdOf(tablesOf(this.snap), id)
      this.shorts.set(id, s)
    }
    return s
  }

  /**
   * Work out every short id in one pass over the sorted ids: cheaper than a
   * prefix search per id once a command views thousands of tasks.
   */
  allShortIds(): void {
    if (this.shorts.size === 0) this.shorts = shortIdsOf(tablesOf(this.snap).sortedIds())
  }

  /** The state and readiness `view` would give, without building the view. */
  state(meta: TaskMeta): {state: State; ready: boolean} {
    return derivedState(this.snap, meta, this.actor, this.now)
  }

  view(meta: TaskMeta): TaskView {
    const snap = this.snap
    const blockedBy = waitReasons(snap, meta)
    const ready = isReady(snap, meta, this.actor, this.now, blockedBy)
    const waiting = isWaiting(snap, meta, blockedBy)
    const claimLive = claimIsLive(meta, this.now, snap.config)
    const kids = childIds(snap, meta.id)
    return {
      id: meta.id,
      short_id: this.shortId(meta.id),
      title: meta.title,
      status: meta.status,
      state: stateOf(meta, {ready, waiting, claimLive}, this.actor, Date.parse(this.now)),
      type: meta.type ?? DEFAULT_TASK_TYPE,
      priority: meta.priority,
      tags: meta.tags,
      parent: meta.parent ?? null,
      subitems: [...kids],
      progress: progressOf(snap, kids),
      depends_on: meta.depends_on,
      blocked_by: blockedBy,
      ready,
      waiting,
      assignee: meta.assignee ?? null,
      owner: meta.owner ?? null,
      epoch: meta.epoch,
      claimed_at: meta.claimed_at ?? null,
      lease_expires: meta.lease_expires ?? null,
      claim_live: claimLive,
      session: meta.session ?? null,
      flag: meta.flag_reason === undefined ? null : {reason: meta.flag_reason, by: meta.flagged_by ?? null, at: meta.flagged_at ?? null},
      block_note: meta.block_note ?? null,
      blocked_on: meta.blocked_on ?? null,
      cancel_reason: meta.cancel_reason ?? null,
      closed_at: meta.closed_at ?? null,
      key: meta.key ?? null,
      collaborators: meta.collaborators ?? [],
      subscribers: meta.subscribers ?? [],
      notify_roles: meta.notify_roles ?? [],
      notify_mute: meta.notify_mute ?? [],
      created_at: meta.created_at,
      created_by: meta.created_by,
      updated_at: meta.updated_at,
      updated_by: meta.updated_by,
      revision: meta.revision,
      work_session: meta.work_session ?? null,
      ...datesView(meta, Date.parse(this.now)),
      fields: meta.fields ?? {},
    }
  }
}

/** The issue-33 fields of a view (states and dates), null when unset. */
export function datesView(meta: TaskMeta, nowMs: number): Pick<TaskView, 'defer_reason' | 'defer_until' | 'fail_reason' | 'due' | 'scheduled' | 'every' | 'previous' | 'overdue'> {
  return {
    defer_reason: meta.defer_reason ?? null,
    defer_until: meta.defer_until ?? null,
    fail_reason: meta.fail_reason ?? null,
    due: meta.due ?? null,
    scheduled: meta.scheduled ?? null,
    every: meta.every ?? null,
    previous: meta.previous ?? null,
    overdue: isOverdue(meta, nowMs),
  }
}
