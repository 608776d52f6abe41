/**
 * What the task use cases answer with: a card as the acting actor sees it
 * (`TaskResult`), and running one op that yields a card.
 */
import {type Snapshot} from '../core/snapshot'
import {type TaskMeta} from '../core/task'
import {TaskViewer, type TaskView} from '../core/task-view'
import type {Session} from './session'
import {mutate, type Op, type Prepare} from './transaction'

export interface TaskResult {
  task: TaskView
  /** Commit that recorded the change, or null when nothing changed. */
  commit: string | null
}

/** Several ids: one entry per item acted on, in argument order, and the one commit. */
export interface BatchResult<I> {
  results: I[]
  commit: string | null
}

/** The viewer for rendering tasks of `snap` as the acting actor sees them. */
export async function viewer(session: Session, snap: Snapshot): Promise<TaskViewer> {
  let actor: string | undefined
  try {
    actor = await session.actor()
  } catch {
    actor = undefined
  }
  return new TaskViewer(snap, actor, session.now())
}

/** Run an op and return the view of the task it produced. */
export async function mutateOne<R extends {task: TaskMeta}>(session: Session, op: Op<R>, prepare?: Prepare): Promise<TaskResult & {result: R; at: string | null}> {
  const done = await mutate(session, op, prepare)
  const v = await viewer(session, done.after)
  // `at`: the commit the result describes (the new one, or the one the op found nothing to change in).
  return {task: v.view(done.after.tasks.get(done.result.task.id)?.meta ?? done.result.task), commit: done.commit, result: done.result, at: done.after.commit}
}
