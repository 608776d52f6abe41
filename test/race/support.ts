/**
 * Shared fixtures for the race tests: a task list with N items, a copy of a
 * prepared repository (so each test starts from the same state without
 * re-creating it), and the history of the tasks ref read with plain
 * `git log` — the audit log the race tests check against.
 *
 * Not a *.test.ts file, so vitest does not collect it.
 */
import {cpSync} from 'node:fs'
import {expect} from 'vitest'
import {type RunResult, gitSync, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {shared} from '../remote/support'

export const REF = 'refs/tasks/main'

/** A new repository with an initialised task list. */
export async function initRepo(): Promise<string> {
  const repo = makeRepo()
  await runJson(repo, ['init'])
  return repo
}

/**
 * Add `count` tasks titled `<prefix> 01`…, `batch` processes at a time (the
 * adds race on the ref too; a lost CAS re-runs the add). Returns the ids in
 * title order.
 */
export async function addTasks(repo: string, count: number, options: {batch?: number; prefix?: string} = {}): Promise<string[]> {
  const batch = options.batch ?? 8
  const prefix = options.prefix ?? 'item'
  const ids: string[] = new Array(count)
  for (let start = 0; start < count; start += batch) {
    const slice = Array.from({length: Math.min(batch, count - start)}, (_, k) => start + k)
    await Promise.all(
      slice.map(async (i) => {
        const title = `${prefix} ${String(i + 1).padStart(2, '0')}`
        const out = await runJson(repo, ['add', title])
        expect(out.created).toBe(true)
        ids[i] = out.task.id as string
      }),
    )
  }
  expect(new Set(ids).size).toBe(count)
  return ids
}

/** A copy of a prepared repository (working tree, .git, refs, objects and cache). */
export function copyRepo(src: string): string {
  const dst = tempDir('copy-')
  cpSync(src, dst, {recursive: true})
  return dst
}

export interface HistoryCommit {
  oid: string
  parents: string[]
  author: string
  subject: string
  /** Trailers of the message, in order (keys as written). */
  trailers: Array<[string, string]>
}

/** Value of the first trailer `key`, or undefined. */
export function trailer(c: HistoryCommit, key: string): string | undefined {
  return c.trailers.find(([k]) => k === key)?.[1]
}

/** Every commit on `ref`, newest first, read with plain `git log`. */
export function history(repo: string, ref = REF): HistoryCommit[] {
  const out = gitSync(repo, ['log', '--no-color', '--format=%H%x1f%P%x1f%an%x1f%s%x1f%(trailers:only,unfold)%x1e', ref])
  const commits: HistoryCommit[] = []
  for (const record of out.split('\x1e')) {
    const trimmed = record.replace(/^\n/, '')
    if (!trimmed.trim()) continue
    const [oid, parents, author, subject, trailerText] = trimmed.split('\x1f') as [string, string, string, string, string]
    const trailers: Array<[string, string]> = []
    for (const line of (trailerText ?? '').split('\n')) {
      const m = /^([A-Za-z][A-Za-z0-9-]*): (.*)$/.exec(line)
      if (m) trailers.push([m[1]!, m[2]!])
    }
    commits.push({oid, parents: parents ? parents.split(' ') : [], author, subject, trailers})
  }
  return commits
}

/** Commits recording `op` (Tasks-Op trailer), optionally for one task. */
export function opCommits(commits: HistoryCommit[], op: string, task?: string): HistoryCommit[] {
  return commits.filter((c) => trailer(c, 'Tasks-Op') === op && (task === undefined || trailer(c, 'Task') === task))
}

/**
 * The ref's history is one straight line: every commit has exactly one
 * parent (the root none), and each is the parent of the next. A CAS-only
 * writer can never produce anything else; a merge or a fork would mean a
 * write bypassed the swap.
 */
export function expectLinearHistory(commits: HistoryCommit[]): void {
  expect(commits.length).toBeGreaterThan(0)
  for (let i = 0; i < commits.length - 1; i++) {
    expect(commits[i]!.parents, `commit ${commits[i]!.oid} (${commits[i]!.subject})`).toEqual([commits[i + 1]!.oid])
  }
  expect(commits.at(-1)!.parents).toEqual([])
}

/** Tip of the tasks ref. */
export function tip(repo: string, ref = REF): string {
  return gitSync(repo, ['rev-parse', ref]).trim()
}

/** A one-line description of a CLI result, for assertion messages. */
export function describeRun(label: string, r: RunResult): string {
  return `${label}: exit ${r.code}\n  stdout: ${r.stdout.trim().slice(0, 600)}\n  stderr: ${r.stderr.trim().slice(0, 600)}`
}

/** What a fleet agent reports: the ids `next` handed it, and the `next` that ended its loop. */
export interface FleetLog {
  actor: string
  claimed: string[]
  last: RunResult | null
}

/** A successful `next --json` handed `actor` a fresh claim (epoch 1, no takeover); returns the id. */
export function expectHandedTo(actor: string, r: RunResult): string {
  const out = JSON.parse(r.stdout)
  expect(out.task, describeRun(`${actor} next`, r)).toMatchObject({owner: actor, status: 'in_progress', epoch: 1})
  expect(out.took_over_from, describeRun(`${actor} next`, r)).toBeNull()
  expect(out.already_owned, describeRun(`${actor} next`, r)).toBe(false)
  return out.task.id as string
}

/** The agent stopped because nothing was left: exit 3 nothing_ready with no todo item. */
export function expectStoppedEmpty(log: FleetLog): void {
  const label = describeRun(`${log.actor}'s last next (after ${log.claimed.length} claims)`, log.last!)
  expect(log.last!.code, label).toBe(3)
  const err = jsonError(log.last!)
  expect(err.code, label).toBe('nothing_ready')
  expect(err.todo, label).toBe(0)
}

/** Every one of `ids` was handed to exactly one agent; returns id → agent. */
export function expectEachOnce(logs: readonly FleetLog[], ids: readonly string[]): Map<string, string> {
  const owner = new Map<string, string>()
  const dupes: string[] = []
  for (const log of logs) {
    for (const id of log.claimed) {
      if (owner.has(id)) dupes.push(`${id}: ${owner.get(id)} and ${log.actor}`)
      owner.set(id, log.actor)
    }
  }
  expect(dupes, 'items handed out twice').toEqual([])
  expect([...owner.keys()].sort()).toEqual([...ids].sort())
  return owner
}

/**
 * The history has exactly one `op` commit per item, authored by and naming
 * the agent that was told it got the item, at epoch 1. Returns id → commit.
 */
export function expectOneCommitEach(commits: HistoryCommit[], op: string, owner: ReadonlyMap<string, string>): Map<string, HistoryCommit> {
  const mine = opCommits(commits, op)
  expect(mine.length, `${op} commits`).toBe(owner.size)
  const byTask = new Map<string, HistoryCommit>()
  for (const c of mine) {
    const id = trailer(c, 'Task')!
    expect(byTask.has(id), `two ${op} commits for ${id}`).toBe(false)
    byTask.set(id, c)
    expect(trailer(c, 'Actor'), `${op} ${id}`).toBe(owner.get(id))
    expect(c.author, `${op} ${id}`).toBe(owner.get(id))
    expect(trailer(c, 'Tasks-Epoch'), `${op} ${id}`).toBe('1')
  }
  expect([...byTask.keys()].sort()).toEqual([...owner.keys()].sort())
  return byTask
}

export {run, runJson}

/** A remote with `agents` clones and `items` ready items, published by one sync of the first clone. */
export async function fleet(agents: number, items: number): Promise<{bare: string; clones: string[]; ids: string[]}> {
  const net = await shared(agents)
  const seeder = net.clones[0]!
  const ids: string[] = new Array(items)
  for (let start = 0; start < items; start += 8) {
    await Promise.all(
      Array.from({length: Math.min(8, items - start)}, (_, k) => start + k).map(async (i) => {
        ids[i] = (await runJson(seeder, ['add', `item ${String(i + 1).padStart(3, '0')}`, '--offline', '--as', 'lead'])).task.id
      }),
    )
  }
  expect((await runJson(seeder, ['sync'])).action).toBe('pushed')
  return {...net, ids}
}
