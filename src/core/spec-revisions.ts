/**
 * Spec revisions (`show ID --revisions`): every change to what an item is
 * (title, description, type, dependencies; a check added or superseded),
 * derived from the commits that touched the card's directory, never stored
 * a second time. Pure: refstore reads the commits and the files at each
 * commit and its parent; this turns them into numbered revisions with the
 * values before and after, who, when, why and which commit.
 */
import {parseCheckFile} from './check'
import {parseTaskFile} from './task-file'
import {DEFAULT_TASK_TYPE, type TaskMeta} from './task'

/** One commit that touched the card's directory, with the files the spec is read from, before (its parent) and after. */
export interface CardCommit {
  commit: string
  actor: string
  /** Author date, ISO-8601 as git recorded it. */
  date: string
  op: string
  trailers: ReadonlyArray<readonly [string, string]>
  /** task.md at the commit's parent and at the commit (null: absent). */
  task: {before: string | null; after: string | null}
  /** Check files the commit changed, each with its id and its text before and after. */
  checks: ReadonlyArray<{id: string; before: string | null; after: string | null}>
}

export interface SpecChange {
  /** title, description, type, depends_on, check (one per check added or superseded). */
  field: string
  /** The check's id, for a check change. */
  check?: string
  before: unknown
  after: unknown
}

export interface SpecRevision {
  /** 1 for the item's creation, then +1 for every commit that changed its spec. */
  revision: number
  /** The card's own revision counter after the commit (every change to task.md counts there), or null when only a check changed. */
  task_revision: number | null
  op: string
  changes: SpecChange[]
  actor: string
  date: string
  /** Why: the Tasks-Reason of the commit, else its override's reason; null when none was given. */
  reason: string | null
  /** True when the commit records an override (--force on an item someone else held). */
  forced: boolean
  commit: string
}

interface Spec {
  title: string
  description: string
  type: string
  depends_on: string[]
}

function specOf(text: string | null, id: string): {spec: Spec; meta: TaskMeta} | null {
  if (text === null) return null
  const parsed = parseTaskFile(text, id)
  if (!parsed.ok) return null
  const m = parsed.value.meta
  return {spec: {title: m.title, description: parsed.value.body.replace(/\n+$/, ''), type: m.type ?? DEFAULT_TASK_TYPE, depends_on: m.depends_on}, meta: m}
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The spec revisions of card `id` from its commits, oldest first (commits are given oldest first). */
export function specRevisions(id: string, commits: readonly CardCommit[]): SpecRevision[] {
  const out: SpecRevision[] = []
  for (const c of commits) {
    const before = specOf(c.task.before, id)
    const after = specOf(c.task.after, id)
    const changes: SpecChange[] = []
    if (after) {
      for (const field of ['title', 'description', 'type', 'depends_on'] as const) {
        const was = before ? before.spec[field] : null
        if (!before || !same(was, after.spec[field])) changes.push({field, before: was, after: after.spec[field]})
      }
    }
    for (const f of c.checks) {
      const was = f.before === null ? null : parseCheckFile(f.before, id, f.id)
      const now = f.after === null ? null : parseCheckFile(f.after, id, f.id)
      if (!now || !now.ok) continue
      const check = now.value
      if (!was || !was.ok) {
        changes.push({field: 'check', check: check.id, before: null, after: {kind: check.kind, text: check.text, status: check.status}})
      } else if (check.status === 'superseded' && was.value.status !== 'superseded') {
        changes.push({field: 'check', check: check.id, before: {kind: was.value.kind, text: was.value.text, status: was.value.status}, after: {kind: check.kind, text: check.text, status: 'superseded', reason: check.supersede_reason ?? null}})
      }
    }
    if (changes.length === 0) continue
    const value = (k: string) => c.trailers.find(([key]) => key === k)?.[1]
    const override = value('Tasks-Override')
    out.push({
      revision: out.length + 1,
      task_revision: after ? after.meta.revision : null,
      op: c.op,
      changes,
      actor: c.actor,
      date: c.date,
      reason: value('Tasks-Reason') ?? override ?? null,
      forced: override !== undefined,
      commit: c.commit,
    })
  }
  return out
}
