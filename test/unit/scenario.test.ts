/**
 * Scenarios (issue 33, item 2) in the pure core: the member arguments and
 * their refusals, the seeding plan (one plan, assigned items, member
 * dependencies as item dependencies, the marker file), a retry with the same
 * scenario (nothing written) or another (scenario_mismatch), the derived
 * status (WAITING ON, completion as members finish), a parent's progress,
 * and the guard's judge of scenario.yaml.
 */
import {describe, expect, it} from 'vitest'
import {withChanges} from '../../src/core/apply'
import {TasksError} from '../../src/core/errors'
import {addTask} from '../../src/core/ops/add'
import {claimTask} from '../../src/core/ops/claim'
import {cancelTask, finishTask} from '../../src/core/ops/lifecycle'
import {startScenario} from '../../src/core/ops/scenario'
import type {Plan} from '../../src/core/plan'
import {SCENARIO_PATH, type ScenarioFile, parseScenario, scenarioMembers, scenarioStatus, serialiseScenario} from '../../src/core/scenario'
import type {Snapshot} from '../../src/core/snapshot'
import {TaskViewer, progressOf} from '../../src/core/task-view'
import {judgeScenarioFile, type CommitView} from '../../src/hooks/judges'
import {T0, ctx, snapshot} from '../helpers/snapshot'

const strath = (): Snapshot => ({...snapshot([]), list: 'strath'})
const codeOf = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    if (error instanceof TasksError) return `${error.code}/${error.exitCode}`
    throw error
  }
  return 'no error'
}
const MEMBERS = ['api=Build the API', 'ui=Build the UI', 'docs=Write the docs']
const DEPENDS = ['ui:api', 'docs:api,ui']

function started(snap = strath()): {plan: Plan<ReturnType<typeof startScenario>['result']>; after: Snapshot; file: ScenarioFile} {
  const plan = startScenario(snap, ctx('lead'), {name: 'strath', members: scenarioMembers(MEMBERS, DEPENDS), existing: null})
  const after = withChanges(snap, plan.changes)
  const put = plan.changes.find((c) => c.kind === 'put-file' && c.path === SCENARIO_PATH)
  const parsed = parseScenario(put && put.kind === 'put-file' ? put.content : '')
  if (!parsed.ok) throw new Error(parsed.error)
  return {plan, after, file: parsed.value}
}

/** Apply an op's plan to a snapshot. */
function step<R>(snap: Snapshot, plan: (s: Snapshot) => Plan<R>): Snapshot {
  return withChanges(snap, plan(snap).changes)
}

describe('scenario start, in the core', () => {
  it('reads members and dependencies, sorted and folded; refuses malformed, repeated, unknown, self and cyclic ones', () => {
    expect(scenarioMembers(['b=B', 'a=A=with equals'], ['b:a', 'b:a'])).toEqual([
      {name: 'a', task: 'A=with equals', depends_on: []},
      {name: 'b', task: 'B', depends_on: ['a']},
    ])
    expect(codeOf(() => scenarioMembers([], []))).toBe('no_members/2')
    expect(codeOf(() => scenarioMembers(['noequals'], []))).toBe('bad_member/2')
    expect(codeOf(() => scenarioMembers(['a:b=T'], []))).toBe('bad_member/2')
    expect(codeOf(() => scenarioMembers(['a='], []))).toBe('empty_title/5')
    expect(codeOf(() => scenarioMembers(['a=T', 'a=U'], []))).toBe('duplicate_member/2')
    expect(codeOf(() => scenarioMembers(['a=T'], ['a:b']))).toBe('unknown_member/2')
    expect(codeOf(() => scenarioMembers(['a=T'], ['a']))).toBe('bad_member/2')
    expect(codeOf(() => scenarioMembers(['a=T'], ['a:a']))).toBe('self_dependency/5')
    expect(codeOf(() => scenarioMembers(['a=T', 'b=U', 'c=V'], ['a:b', 'b:c', 'c:a']))).toBe('dependency_cycle/5')
  })

  it('seeds one assigned item per member, with the members\' dependencies, and the marker, as one plan', () => {
    const {plan, after, file} = started()
    const puts = plan.changes.filter((c) => c.kind === 'put-task')
    expect(puts).toHaveLength(3)
    expect(plan.changes.filter((c) => c.kind === 'put-file').map((c) => c.kind === 'put-file' && c.path)).toEqual([SCENARIO_PATH])
    const item = Object.fromEntries(file.members.map((m) => [m.name, after.tasks.get(m.item)!.meta!]))
    expect(Object.keys(item).sort()).toEqual(['api', 'docs', 'ui'])
    for (const [name, meta] of Object.entries(item)) {
      expect(meta.assignee).toBe(name)
      expect(meta.key).toBe(`scenario:${name}`)
      expect(meta.status).toBe('todo')
    }
    expect(item.api!.title).toBe('Build the API')
    expect(item.ui!.depends_on).toEqual([item.api!.id])
    expect([...item.docs!.depends_on].sort()).toEqual([item.api!.id, item.ui!.id].sort())
    expect(plan.result.created).toBe(true)
    // The same scenario started elsewhere writes the same marker (ids from keys, no clock in the file).
    expect(serialiseScenario(started().file)).toBe(serialiseScenario(file))
  })

  it('again with the same members returns it and writes nothing; with others it is scenario_mismatch', () => {
    const {after, file} = started()
    const again = startScenario(after, ctx('someone-else'), {name: 'strath', members: scenarioMembers([...MEMBERS].reverse(), DEPENDS), existing: {file}})
    expect(again.changes).toEqual([])
    expect(again.result.created).toBe(false)
    expect(again.result.items.map((i) => i.task?.id)).toEqual(file.members.map((m) => m.item))
    const other = (members: string[], depends: string[]) => codeOf(() => startScenario(after, ctx('lead'), {name: 'strath', members: scenarioMembers(members, depends), existing: {file}}))
    expect(other(['api=Build the API', 'ui=Build the UI', 'docs=Other docs'], DEPENDS)).toBe('scenario_mismatch/4')
    expect(other(MEMBERS, ['ui:api'])).toBe('scenario_mismatch/4')
    expect(other([...MEMBERS, 'qa=Test it'], DEPENDS)).toBe('scenario_mismatch/4')
    expect(other(['api=Build the API'], [])).toBe('scenario_mismatch/4')
    // A list that holds items and no marker is not taken over.
    const busy = withChanges(strath(), addTask(strath(), ctx('lead'), {title: 'unrelated'}).changes)
    expect(codeOf(() => startScenario(busy, ctx('lead'), {name: 'strath', members: scenarioMembers(MEMBERS, []), existing: null}))).toBe('list_in_use/4')
    expect(codeOf(() => startScenario(after, ctx('lead'), {name: 'strath', members: scenarioMembers(MEMBERS, []), existing: {error: 'bad'}}))).toBe('scenario_unreadable/4')
  })
})

describe('scenario status, derived from the items', () => {
  it('names whom each member waits for, and completes as members finish', () => {
    const {after, file} = started()
    const id = Object.fromEntries(file.members.map((m) => [m.name, m.item]))
    const status = (snap: Snapshot) => scenarioStatus(snap, file, T0)
    const row = (snap: Snapshot, m: string) => status(snap).members.find((r) => r.member === m)!
    let snap = after
    expect(row(snap, 'api')).toMatchObject({state: 'ready', done: 0, total: 1, waiting_on: [], complete: false})
    expect(row(snap, 'ui')).toMatchObject({state: 'waiting', waiting_on: ['api']})
    expect(row(snap, 'docs')).toMatchObject({state: 'waiting', waiting_on: ['api', 'ui']})
    expect(status(snap)).toMatchObject({done: 0, total: 3, complete: false})

    // api breaks its item down: the sub-items count for api, and the seed waits for them.
    const sub = addTask(snap, ctx('api'), {title: 'schema', parent: id.api})
    snap = withChanges(snap, sub.changes)
    expect(row(snap, 'api')).toMatchObject({done: 0, total: 2})
    snap = step(snap, (s) => claimTask(s, ctx('api'), {id: sub.result.task.id}))
    snap = step(snap, (s) => finishTask(s, ctx('api'), {id: sub.result.task.id}))
    expect(row(snap, 'api')).toMatchObject({done: 1, total: 2, complete: false})
    snap = step(snap, (s) => claimTask(s, ctx('api'), {id: id.api!}))
    expect(row(snap, 'api').state).toBe('in_progress')
    snap = step(snap, (s) => finishTask(s, ctx('api'), {id: id.api!}))
    expect(row(snap, 'api')).toMatchObject({state: 'done', done: 2, total: 2, complete: true})
    expect(row(snap, 'ui')).toMatchObject({state: 'ready', waiting_on: []})
    expect(row(snap, 'docs').waiting_on).toEqual(['ui'])
    expect(status(snap)).toMatchObject({done: 2, total: 4, complete: false})

    // Another item assigned to ui counts for ui; cancelled work does not count.
    const extra = addTask(snap, ctx('lead'), {title: 'ui extra', assignee: 'ui'})
    snap = withChanges(snap, extra.changes)
    expect(row(snap, 'ui')).toMatchObject({done: 0, total: 2})
    snap = step(snap, (s) => cancelTask(s, ctx('lead', T0, {force: {reason: 'not needed'}}), {id: extra.result.task.id, reason: 'not needed'}))
    expect(row(snap, 'ui')).toMatchObject({done: 0, total: 1})
    for (const m of ['ui', 'docs']) {
      snap = step(snap, (s) => claimTask(s, ctx(m), {id: id[m]!}))
      snap = step(snap, (s) => finishTask(s, ctx(m), {id: id[m]!}))
    }
    expect(status(snap)).toMatchObject({done: 4, total: 4, complete: true})
    expect(status(snap).members.every((r) => r.complete && r.state === 'done')).toBe(true)
  })
})

describe('a parent\'s progress', () => {
  it('counts its sub-items done, of those not cancelled; null without sub-items', () => {
    let snap = snapshot([])
    const parent = addTask(snap, ctx(), {title: 'parent'})
    snap = withChanges(snap, parent.changes)
    const p = parent.result.task.id
    expect(progressOf(snap, [])).toBeNull()
    const kids: string[] = []
    for (const t of ['a', 'b', 'c']) {
      const k = addTask(snap, ctx(), {title: t, parent: p})
      snap = withChanges(snap, k.changes)
      kids.push(k.result.task.id)
    }
    const view = (s: Snapshot) => new TaskViewer(s, 'alice', T0).view(s.tasks.get(p)!.meta!)
    expect(view(snap).progress).toEqual({done: 0, total: 3})
    snap = step(snap, (s) => claimTask(s, ctx(), {id: kids[0]!}))
    snap = step(snap, (s) => finishTask(s, ctx(), {id: kids[0]!}))
    snap = step(snap, (s) => cancelTask(s, ctx(), {id: kids[1]!, reason: 'dropped'}))
    expect(view(snap).progress).toEqual({done: 1, total: 2})
    expect(new TaskViewer(snap, 'alice', T0).view(snap.tasks.get(kids[2]!)!.meta!).progress).toBeNull()
  })
})

describe('the guard on scenario.yaml', () => {
  const commit = (after: Snapshot, before: Snapshot = strath()): CommitView =>
    ({facts: {actor: 'lead', op: 'scenario_start', time: T0, override: null}, before, after, canonical: 'lead', removed: new Set(), undoBase: null, undoes: null, finishing: new Map()}) as CommitView
  it('accepts the marker written with its seeds; refuses a rewrite, a removal, a wrong list or a missing seed', () => {
    const {after, file} = started()
    const text = serialiseScenario(file)
    const judge = (before: string | null, now: string | null, snap = after) => judgeScenarioFile({path: SCENARIO_PATH, before, after: now, commit: commit(snap)}).map((r) => r.rule)
    expect(judge(null, text)).toEqual([])
    expect(judge(text, text.replace('Build the UI', 'Other'))).toEqual(['scenario_rewritten'])
    expect(judge(text, null)).toEqual(['scenario_rewritten'])
    expect(judge(null, text.replace('scenario: "strath"', 'scenario: "other"'))).toEqual(['schema'])
    expect(judge(null, text, strath())).toEqual(['schema'])
    expect(judge(null, 'scenario: 1\n')).toEqual(['schema'])
  })
})
