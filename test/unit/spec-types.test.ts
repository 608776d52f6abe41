/**
 * Spec ownership (issue 32, item 2) and task types with deeper nesting
 * (item 12), on the pure core: the ops refuse a non-holder's spec change of
 * a live claim (not_owner, 6) unless forced with a reason, and record the
 * reason; the guard's rules refuse the same change made by hand; types are
 * validated against the list's `types`; sub-items nest up to `max_depth`;
 * a parent is done only after every descendant; the reconciler re-parents
 * what nests too deep; spec revisions are read from commits.
 */
import {describe, expect, it} from 'vitest'
import type {Check} from '../../src/core/check'
import {serialiseCheck} from '../../src/core/check'
import {addTask} from '../../src/core/ops/add'
import {addCheck, supersedeCheck} from '../../src/core/ops/checks'
import {editTask, setDependencies} from '../../src/core/ops/edit'
import {cancelTask, finishTask} from '../../src/core/ops/lifecycle'
import {changeConfig, parseConfigValue} from '../../src/core/ops/config'
import {parseConfig, serialiseConfig, serialiseTask} from '../../src/core/task-file'
import {DEFAULT_CONFIG, type ListConfig, type TaskMeta} from '../../src/core/task'
import type {Snapshot} from '../../src/core/snapshot'
import {specRevisions, type CardCommit} from '../../src/core/spec-revisions'
import {reconcile} from '../../src/merge/reconcile'
import {mergeTask} from '../../src/merge/task-merge'
import {type CommitView, judgeTaskFile} from '../../src/hooks/judges'
import {type CommitFacts, judgeTaskChange} from '../../src/hooks/rules'
import {taskFilePath} from '../../src/core/store-layout'
import {T0, after, ctx, snapshot, task} from '../helpers/snapshot'

const LATER = new Date(Date.parse(T0) + 3_600_000).toISOString()
const DAY_LATER = new Date(Date.parse(T0) + 86_400_000).toISOString()

/** A card bob holds, lease for an hour from T0. */
function held(extra: Partial<TaskMeta> = {}): TaskMeta {
  return task({status: 'in_progress', owner: 'bob', epoch: 1, claimed_at: T0, lease_expires: LATER, ...extra})
}

const withConfig = (snap: Snapshot, config: Partial<ListConfig>): Snapshot => ({...snap, config: {...DEFAULT_CONFIG, ...config}})
const withChecks = (snap: Snapshot, id: string, checks: Check[]): Snapshot => ({...snap, checks: new Map([[id, checks]])})
const trailer = (trailers: ReadonlyArray<[string, string]>, key: string) => trailers.find(([k]) => k === key)?.[1]

describe('spec ownership: the holder of a live claim owns the spec', () => {
  it('refuses a non-holder\'s title, description, type, dependency and check changes (not_owner, 6) and writes nothing', () => {
    const t = held()
    const dep = task()
    const snap = withChecks(snapshot([t, dep]), t.id, [])
    const alice = ctx('alice')
    const refused = expect.objectContaining({code: 'not_owner', exitCode: 6, data: expect.objectContaining({owner: 'bob'})})
    expect(() => editTask(snap, alice, {id: t.id, title: 'Retitled'})).toThrowError(refused)
    expect(() => editTask(snap, alice, {id: t.id, body: 'new text'})).toThrowError(refused)
    expect(() => editTask(snap, alice, {id: t.id, type: 'bug'})).toThrowError(refused)
    expect(() => setDependencies(snap, alice, {id: t.id, deps: [dep.id]})).toThrowError(refused)
    expect(() => addCheck(snap, alice, {id: t.id, kind: 'test', text: 'npm test'})).toThrowError(refused)
    // Not the spec: priority and tags stay anyone's.
    expect(editTask(snap, alice, {id: t.id, priority: 1}).result.fields).toEqual(['priority'])
  })

  it('the holder changes it freely; --force --reason lets someone else, recording the override and the reason', () => {
    const t = held()
    const snap = withChecks(snapshot([t]), t.id, [])
    const own = editTask(snap, ctx('bob'), {id: t.id, title: 'Sharper', reason: 'clearer scope'})
    expect(own.trailers).toContainEqual(['Tasks-Reason', 'clearer scope'])
    expect(trailer(own.trailers, 'Tasks-Override')).toBeUndefined()
    const forced = editTask(snap, ctx('alice', T0, {force: {reason: 'bob is away'}}), {id: t.id, title: 'Sharper'})
    expect(forced.result.task.title).toBe('Sharper')
    expect(forced.trailers).toEqual(expect.arrayContaining([['Tasks-Reason', 'bob is away'], ['Tasks-Override', 'bob is away']]))
    // Once the lease has lapsed (past the clock skew), the spec is anyone's again.
    expect(setDependencies(snapshot([t, task({id: 'tsk-dddddddddd'})]), ctx('alice', DAY_LATER), {id: t.id, deps: ['tsk-dddddddddd']}).result.task.depends_on).toEqual(['tsk-dddddddddd'])
    // A list with admins: only they may force.
    const admins = withConfig(snap, {admins: ['ada']})
    expect(() => editTask(admins, ctx('alice', T0, {force: {reason: 'x'}}), {id: t.id, title: 'X'})).toThrowError(expect.objectContaining({code: 'not_admin'}))
  })

  it('superseding a check of someone else\'s live claim needs --force as well', () => {
    const t = held()
    const c: Check = {id: 'chk-aaaaaaaa', task: t.id, kind: 'test', text: 'npm test', status: 'pending', spec_revision: 1, added_by: 'bob', added_at: T0, updated_by: 'bob', updated_at: T0}
    const snap = withChecks(snapshot([t]), t.id, [c])
    expect(() => supersedeCheck(snap, ctx('alice'), {id: t.id, check: c.id, reason: 'moot'})).toThrowError(expect.objectContaining({code: 'not_owner'}))
    expect(supersedeCheck(snap, ctx('bob'), {id: t.id, check: c.id, reason: 'moot'}).trailers).toContainEqual(['Tasks-Reason', 'moot'])
  })
})

describe('the guard refuses a forged spec change by a non-holder', () => {
  const facts = (actor: string, override: string | null = null): CommitFacts => ({actor, op: 'edit', time: T0, override})
  it('title, type or dependencies changed on a live claim of someone else, without an override', () => {
    const t = held()
    const forged = {...t, title: 'Hijacked', revision: t.revision + 1, updated_by: 'alice', updated_at: T0}
    expect(judgeTaskChange(t, forged, facts('alice'), DEFAULT_CONFIG).map((r) => r.rule)).toEqual(['not_owner'])
    expect(judgeTaskChange(t, {...forged, title: t.title, type: 'bug'}, facts('alice'), DEFAULT_CONFIG).map((r) => r.rule)).toEqual(['not_owner'])
    expect(judgeTaskChange(t, forged, facts('alice', 'bob is away'), DEFAULT_CONFIG)).toEqual([])
    expect(judgeTaskChange(t, {...forged, updated_by: 'bob'}, facts('bob'), DEFAULT_CONFIG)).toEqual([])
  })

  it('a description changed by hand (the body of task.md) is a spec change too', () => {
    const t = held()
    const edited = {...t, revision: t.revision + 1, updated_by: 'alice', updated_at: T0}
    const before = snapshot([t])
    const afterSnap = snapshot([edited])
    const view: CommitView = {facts: facts('alice'), before, after: afterSnap, canonical: 'alice', removed: new Set(), undoBase: null, undoes: null, finishing: new Map()}
    const judge = (bodyBefore: string, bodyAfter: string) =>
      judgeTaskFile({path: taskFilePath(t.id), before: serialiseTask(t, bodyBefore), after: serialiseTask(edited, bodyAfter), commit: view}).map((r) => r.rule)
    expect(judge('the plan', 'another plan')).toEqual(['not_owner'])
    expect(judge('the plan', 'the plan')).toEqual([])
  })

  it('a type the list does not allow, and a sub-item nested beyond max_depth', () => {
    const t = task({type: 'epic'})
    expect(judgeTaskChange(undefined, t, {...facts('alice'), op: 'add'}, {...DEFAULT_CONFIG, types: ['task', 'bug']}).map((r) => r.rule)).toEqual(['bad_type'])
    const top = task()
    const mid = task({parent: top.id})
    const leaf = task({parent: mid.id})
    const view = (max: number): CommitView => ({facts: {...facts('alice'), op: 'add'}, before: withConfig(snapshot([top, mid]), {max_depth: max}), after: snapshot([top, mid, leaf]), canonical: 'alice', removed: new Set(), undoBase: null, undoes: null, finishing: new Map()})
    const rules = (max: number) => judgeTaskFile({path: taskFilePath(leaf.id), before: null, after: '', commit: view(max)}).map((r) => r.rule)
    expect(rules(1)).toEqual(['nesting_too_deep'])
    expect(rules(2)).toEqual([])
  })
})

describe('task types', () => {
  it('add and edit take a type; unknown or disallowed types are bad_type (5); the default task is not stored', () => {
    const snap = snapshot([])
    const added = addTask(snap, ctx(), {title: 'A milestone', type: 'Milestone'})
    expect(added.result.task.type).toBe('milestone')
    expect(serialiseTask(added.result.task, '')).toContain('type: "milestone"')
    expect(addTask(snap, ctx(), {title: 'plain'}).result.task.type).toBeUndefined()
    expect(() => addTask(snap, ctx(), {title: 'x', type: 'saga'})).toThrowError(expect.objectContaining({code: 'bad_type', exitCode: 5}))
    const narrow = withConfig(snap, {types: ['task', 'bug']})
    expect(() => addTask(narrow, ctx(), {title: 'x', type: 'epic'})).toThrowError(expect.objectContaining({code: 'bad_type', data: expect.objectContaining({allowed: ['task', 'bug']})}))
    expect(addTask(narrow, ctx(), {title: 'x', type: 'bug'}).result.task.type).toBe('bug')
    // A list that leaves out task wants every item typed.
    expect(() => addTask(withConfig(snap, {types: ['epic']}), ctx(), {title: 'x'})).toThrowError(expect.objectContaining({code: 'bad_type'}))
  })

  it('a new type is a new spec revision: passed checks go back to pending; edit --type task clears it', () => {
    const t = task({type: 'bug'})
    const c: Check = {id: 'chk-aaaaaaaa', task: t.id, kind: 'test', text: 'npm test', status: 'passed', evidence: 'CI', passed_by: 'alice', passed_at: T0, spec_revision: 1, added_by: 'alice', added_at: T0, updated_by: 'alice', updated_at: T0}
    const plan = editTask(withChecks(snapshot([t]), t.id, [c]), ctx(), {id: t.id, type: 'feature'})
    expect(plan.result).toMatchObject({fields: ['type'], checks_reset: [c.id]})
    expect(editTask(snapshot([t]), ctx(), {id: t.id, type: 'task'}).result.task.type).toBeUndefined()
  })

  it('merges as a scalar: one side\'s change is kept; both sides changed it, the later change wins', () => {
    const base = task({id: 'tsk-0000000099'})
    const mctx = {now: DAY_LATER, published: 'theirs' as const}
    const v = (m: TaskMeta) => ({meta: m, body: ''})
    const ours = {...base, type: 'bug', revision: 2, updated_at: LATER}
    expect(mergeTask(v(base), v(ours), v({...base, priority: 0, revision: 2}), mctx).meta).toMatchObject({type: 'bug', priority: 0})
    const theirs = {...base, type: 'epic', revision: 2, updated_at: DAY_LATER}
    const both = mergeTask(v(base), v(ours), v(theirs), mctx)
    expect(both.meta.type).toBe('epic')
    expect(both.notes.map((n) => n.kind)).toContain('field_conflict')
  })

  it('types and max_depth are list settings: parsed, bounded, written only when not the default', () => {
    expect(parseConfigValue('types', 'epic,bug')).toEqual(['epic', 'bug'])
    expect(() => parseConfigValue('types', 'saga')).toThrowError(expect.objectContaining({code: 'bad_config_value'}))
    expect(parseConfigValue('max_depth', '3')).toBe(3)
    for (const bad of ['0', '5', 'two', '1.5']) expect(() => parseConfigValue('max_depth', bad)).toThrowError(expect.objectContaining({code: 'bad_config_value'}))
    expect(serialiseConfig(DEFAULT_CONFIG)).not.toMatch(/types|max_depth/)
    const set = changeConfig(snapshot([]), ctx(), {kind: 'set', key: 'max_depth', value: 3})
    const written = set.changes[0]!.kind === 'put-file' ? set.changes[0]!.content : ''
    expect(parseConfig(written)).toMatchObject({ok: true, value: {max_depth: 3, types: []}})
  })
})

describe('nesting up to max_depth', () => {
  function chain(depth: number, config: Partial<ListConfig>): {snap: Snapshot; ids: string[]} {
    let snap = withConfig(snapshot([]), config)
    const ids: string[] = []
    for (let d = 0; d < depth; d++) {
      const plan = addTask(snap, ctx('alice', T0, {entropy: `e${d}`}), {title: `level ${d}`, parent: ids.at(-1)})
      ids.push(plan.result.task.id)
      snap = after(snap, plan)
    }
    return {snap, ids}
  }

  it('max_depth 1 (the default): a sub-item takes no sub-item of its own', () => {
    const {snap, ids} = chain(2, {})
    expect(() => addTask(snap, ctx(), {title: 'too deep', parent: ids[1]})).toThrowError(expect.objectContaining({code: 'nesting_too_deep', exitCode: 5, data: expect.objectContaining({depth: 2, max_depth: 1})}))
  })

  it('max_depth 3: three levels under a top-level item, not four', () => {
    const {snap, ids} = chain(4, {max_depth: 3})
    expect(ids).toHaveLength(4)
    expect(() => addTask(snap, ctx(), {title: 'too deep', parent: ids[3]})).toThrowError(expect.objectContaining({code: 'nesting_too_deep', data: expect.objectContaining({depth: 4, max_depth: 3})}))
  })

  it('a parent cannot be done while a grandchild is open; cancel takes every open descendant with it', () => {
    const {snap, ids} = chain(3, {max_depth: 3})
    const [top, mid, leaf] = ids as [string, string, string]
    // The middle item finished by hand (a merge, an older version): the grandchild is still open.
    const midDone = {...snap.tasks.get(mid)!.meta!, status: 'done' as const, closed_at: T0}
    const s = after(snap, {op: 'x', changes: [{kind: 'put-task', meta: midDone}], trailers: [], result: null})
    expect(() => finishTask(s, ctx(), {id: top})).toThrowError(expect.objectContaining({code: 'open_subitems', exitCode: 4, data: expect.objectContaining({subitems: [{id: leaf, status: 'todo'}]})}))
    const cancelled = cancelTask(snap, ctx(), {id: top, reason: 'dropped'})
    expect(cancelled.result.subitems.map((t) => [t.id, t.cancel_reason])).toEqual([
      [mid, `parent ${top} cancelled: dropped`],
      [leaf, `ancestor ${top} cancelled: dropped`],
    ])
  })

  it('the reconciler moves an item nested deeper than max_depth under its ancestor at max_depth - 1', () => {
    const {snap, ids} = chain(4, {max_depth: 3})
    const tight = withConfig(snap, {max_depth: 2})
    const r = reconcile(tight, {now: T0})
    expect(r.repairs.map((x) => [x.kind, x.task])).toEqual([['nesting_too_deep', ids[3]]])
    const moved = r.changes.find((c) => c.kind === 'put-task' && c.meta.id === ids[3])
    expect(moved && moved.kind === 'put-task' && moved.meta.parent).toBe(ids[1])
  })
})

describe('spec revisions from commits', () => {
  const id = 'tsk-0000000077'
  const card = (m: Partial<TaskMeta>, body: string) => serialiseTask(task({id, title: 'First', ...m}), body)
  const commit = (n: number, over: Partial<CardCommit>): CardCommit => ({commit: String(n).repeat(40), actor: 'alice', date: T0, op: 'edit', trailers: [], task: {before: null, after: null}, checks: [], ...over})
  it('numbers each spec change with what changed from what to what, who, why and whether forced', () => {
    const v1 = card({}, 'plan')
    const v2 = card({title: 'Second', revision: 2}, 'plan')
    const v3 = card({title: 'Second', revision: 3, priority: 0}, 'plan') // priority only: not a spec revision
    const v4 = card({title: 'Second', revision: 4, type: 'bug', depends_on: ['tsk-0000000001']}, 'better plan')
    const chk = serialiseCheck({id: 'chk-bbbbbbbb', task: id, kind: 'acceptance', text: 'works', status: 'pending', spec_revision: 4, added_by: 'carol', added_at: T0, updated_by: 'carol', updated_at: T0})
    const revs = specRevisions(id, [
      commit(1, {op: 'add', task: {before: null, after: v1}}),
      commit(2, {task: {before: v1, after: v2}, trailers: [['Tasks-Reason', 'clearer']]}),
      commit(3, {task: {before: v2, after: v3}}),
      commit(4, {actor: 'carol', task: {before: v3, after: v4}, trailers: [['Tasks-Reason', 'bob away'], ['Tasks-Override', 'bob away']]}),
      commit(5, {op: 'check', actor: 'carol', checks: [{id: 'chk-bbbbbbbb', before: null, after: chk}]}),
    ])
    expect(revs.map((r) => [r.revision, r.op, r.actor, r.reason, r.forced])).toEqual([
      [1, 'add', 'alice', null, false],
      [2, 'edit', 'alice', 'clearer', false],
      [3, 'edit', 'carol', 'bob away', true],
      [4, 'check', 'carol', null, false],
    ])
    expect(revs[1]!.changes).toEqual([{field: 'title', before: 'First', after: 'Second'}])
    expect(revs[2]!.changes).toEqual([
      {field: 'description', before: 'plan', after: 'better plan'},
      {field: 'type', before: 'task', after: 'bug'},
      {field: 'depends_on', before: [], after: ['tsk-0000000001']},
    ])
    expect(revs[3]!.changes).toEqual([{field: 'check', check: 'chk-bbbbbbbb', before: null, after: {kind: 'acceptance', text: 'works', status: 'pending'}}])
    expect(revs[2]!.task_revision).toBe(4)
  })
})
