/**
 * What an op returns: a plan of file changes plus the commit message parts
 * and the typed result the command prints. The transaction layer turns a plan
 * into objects and one commit; the op never writes anything itself.
 */
import type {Check} from './check'
import type {Comment, TaskMeta} from './task'

export type Change =
  /** Create or rewrite task.md. `body` undefined keeps the current body. */
  | {kind: 'put-task'; meta: TaskMeta; body?: string}
  /** Remove a task's whole directory (file and comments). */
  | {kind: 'delete-task'; id: string}
  | {kind: 'add-comment'; comment: Comment}
  /** Create or rewrite one check file (tasks/<xx>/<id>/checks/<check>.md). */
  | {kind: 'put-check'; check: Check}
  /** Any other file on the ref (meta.yaml, config.yaml). */
  | {kind: 'put-file'; path: string; content: string}
  /** Remove one file (a comment `undo` takes back); a path that is not there is no change. */
  | {kind: 'delete-file'; path: string}

export interface Plan<R> {
  /** Op name, first word of the commit message and the Tasks-Op trailer. */
  op: string
  /** The task the commit is about, for the message `<op> <id>: <title>`. */
  subject?: {id: string; title: string}
  /** Message when there is no single subject, e.g. "release 3 tasks". */
  summary?: string
  changes: Change[]
  /** Extra trailers after Tasks-Op, Task and Actor. */
  trailers: Array<[string, string]>
  result: R
}

/** Everything an op may know about the invocation, as values. */
export interface OpContext {
  actor: string
  /** ISO-8601 UTC, the acting machine's clock. */
  now: string
  /** Random hex supplied by the caller, for ids and comment names. */
  entropy: string
  /** Set when the user passed --force with a reason. */
  force?: {reason: string}
  /** The agent session acting (TASKS_SESSION or --session); a claim records it. */
  session?: string
  /** The call comes from an agent's surface (`tasks mcp`): require_epoch applies (ops/lease.ts, `actsAsAgent`). */
  agent?: boolean
  /**
   * Contention hints from the online transaction (docs/scale.md): items with
   * a change pending on the remote, which `next` does not pick, and how many
   * equally good ready items `next` spreads over (by `entropy`) so that
   * agents racing for work do not all pick the same one. Absent: none, 1.
   */
  busy?: ReadonlySet<string>
  spread?: number
}

/**
 * Build a commit message from a plan: subject line, blank line, trailers.
 * Every task the plan touches gets a `Task:` trailer (the subject first), so
 * `git log --grep` and shortlog find a change from any task it concerns.
 */
export function commitMessage(plan: Plan<unknown>, actor: string): string {
  const head = plan.subject ? `${plan.op} ${plan.subject.id}: ${oneLine(plan.subject.title)}` : `${plan.op}: ${plan.summary ?? ''}`
  const touched = new Set<string>(plan.subject ? [plan.subject.id] : [])
  for (const c of plan.changes) {
    if (c.kind === 'put-task') touched.add(c.meta.id)
    else if (c.kind === 'delete-task') touched.add(c.id)
    else if (c.kind === 'add-comment') touched.add(c.comment.task)
    else if (c.kind === 'put-check') touched.add(c.check.task)
    else {
      const inTask = /^tasks\/[^/]+\/([^/]+)\//.exec(c.path)
      if (inTask) touched.add(inTask[1]!)
    }
  }
  const trailers: Array<[string, string]> = [['Tasks-Op', plan.op], ...[...touched].map((id) => ['Task', id] as [string, string])]
  trailers.push(['Actor', actor], ...plan.trailers)
  return `${head.trimEnd()}\n\n${trailers.map(([k, v]) => `${k}: ${oneLine(v)}`).join('\n')}\n`
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat
}
