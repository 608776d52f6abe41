/**
 * Custom fields (issue 33, item 5) on the pure core: the key and value
 * rules, declared types read and checked by one predicate (the ops and the
 * guard), add/edit/unset with refusals that plan nothing, the config's
 * `field.KEY` types, the merge of two sides field by field (a losing value
 * kept as a comment), the list filter, and the file's round trip.
 */
import {describe, expect, it} from 'vitest'
import {MAX_FIELDS, MAX_FIELD_VALUE_BYTES, applyFieldEdits, fieldProblems, fieldTypeProblem, fieldValueProblem, fieldsMatch, parseFieldFilters, parseFieldText} from '../../src/core/fields'
import {addTask} from '../../src/core/ops/add'
import {editTask} from '../../src/core/ops/edit'
import {changeConfig, fieldKeyOf, fieldTypesWith} from '../../src/core/ops/config'
import {parseConfig, parseTaskFile, serialiseConfig, serialiseTask} from '../../src/core/task-file'
import {DEFAULT_CONFIG, type ListConfig, type TaskMeta} from '../../src/core/task'
import type {Snapshot} from '../../src/core/snapshot'
import {mergeTask} from '../../src/merge/task-merge'
import {type CommitFacts, judgeTaskChange} from '../../src/hooks/rules'
import {checkImportedCard} from '../../src/core/interchange'
import {exportedTask} from '../../src/core/interchange'
import {T0, ctx, snapshot, task} from '../helpers/snapshot'
import {TaskViewer} from '../../src/core/task-view'
import {compactShow} from '../../src/render/compact-views'
import {taskPage} from '../../src/board/pages'

const typed = (fields: Record<string, string>): Pick<ListConfig, 'fields'> => ({fields})
const withConfig = (snap: Snapshot, config: Partial<ListConfig>): Snapshot => ({...snap, config: {...DEFAULT_CONFIG, ...config}})
const invalid = (code: string) => expect.objectContaining({code, exitCode: 5})
const LATER = new Date(Date.parse(T0) + 60_000).toISOString()

describe('field keys, types and values', () => {
  it('keys are lowercase identifiers; anything else is bad_field (5)', () => {
    for (const ok of ['a', 'job_id', 'x9', 'a'.repeat(64)]) expect(applyFieldEdits(undefined, {field: [`${ok}=v`]}, typed({})).fields).toEqual({[ok]: 'v'})
    for (const bad of ['Job', '9a', '_a', 'a-b', 'a.b', '', 'a'.repeat(65), '__proto__', 'é']) {
      expect(() => applyFieldEdits(undefined, {field: [`${bad}=v`]}, typed({})), bad).toThrowError(invalid('bad_field'))
    }
    expect(() => applyFieldEdits(undefined, {field: ['novalue']}, typed({}))).toThrowError(invalid('bad_field'))
    expect(() => applyFieldEdits(undefined, {unsetField: ['Bad']}, typed({}))).toThrowError(invalid('bad_field'))
  })

  it('values: one line, no control characters, at most 4096 bytes, not empty; the text is trimmed', () => {
    expect(parseFieldText('k', '  python train.py --lr 0.1 ', typed({}))).toBe('python train.py --lr 0.1')
    expect(parseFieldText('k', 'a=b=c', typed({}))).toBe('a=b=c')
    expect(parseFieldText('k', 'é'.repeat(MAX_FIELD_VALUE_BYTES / 2), typed({}))).toHaveLength(MAX_FIELD_VALUE_BYTES / 2)
    for (const bad of ['', '   ', 'two\nlines', 'tab\there', 'esc\u001b[31m', 'x'.repeat(MAX_FIELD_VALUE_BYTES + 1), 'é'.repeat(MAX_FIELD_VALUE_BYTES / 2 + 1)]) {
      expect(() => parseFieldText('k', bad, typed({})), JSON.stringify(bad.slice(0, 20))).toThrowError(invalid('bad_field_value'))
    }
  })

  it('declared types read the text and the one predicate judges the stored value', () => {
    const config = typed({n: 'integer', x: 'number', ok: 'boolean', due: 'date', stage: 'enum(queued|running|done)', s: 'string'})
    expect(parseFieldText('n', '042', config)).toBe(42)
    expect(parseFieldText('n', '-3', config)).toBe(-3)
    expect(parseFieldText('x', '1.5e3', config)).toBe(1500)
    expect(parseFieldText('ok', 'Yes', config)).toBe(true)
    expect(parseFieldText('ok', 'off', config)).toBe(false)
    expect(parseFieldText('due', '2026-02-28', config)).toBe('2026-02-28')
    expect(parseFieldText('due', '2026-02-28T10:00+02:00', config)).toBe('2026-02-28T08:00:00.000Z')
    expect(parseFieldText('stage', 'running', config)).toBe('running')
    expect(parseFieldText('s', '7', config)).toBe('7')
    for (const [k, bad] of [['n', '1.5'], ['n', 'three'], ['n', '99999999999999999999'], ['x', 'NaN'], ['ok', 'maybe'], ['due', '2026-02-30'], ['due', 'tomorrow'], ['stage', 'Running'], ['stage', 'failed']] as const) {
      expect(() => parseFieldText(k, bad, config), `${k}=${bad}`).toThrowError(invalid('bad_field_value'))
    }
    // The stored forms: numbers and booleans as such, dates as text.
    expect(fieldValueProblem(3, 'integer')).toBeNull()
    expect(fieldValueProblem('3', 'integer')).toMatch(/whole number/)
    expect(fieldValueProblem(2.5, 'number')).toBeNull()
    expect(fieldValueProblem('true', 'boolean')).toMatch(/true or false/)
    expect(fieldValueProblem('2026-11-29T12:00:00.000Z', 'date')).toBeNull()
    // A day is a calendar day (dates.ts isCalendarDay, as --due reads it), years 0000 to 9999.
    for (const day of ['2024-02-29', '0050-01-01', '0000-01-01', '9999-12-31']) expect(fieldValueProblem(day, 'date'), day).toBeNull()
    for (const day of ['2026-02-29', '2026-04-31', '2026-00-10', '2026-1-10']) expect(fieldValueProblem(day, 'date'), day).not.toBeNull()
    expect(fieldValueProblem('a', 'enum(a|b)')).toBeNull()
    expect(fieldValueProblem('c', 'enum(a|b)')).toMatch(/one of a, b/)
    // Undeclared keys hold text (or a hand-written number or boolean).
    expect(fieldValueProblem(3, undefined)).toBeNull()
    expect(fieldValueProblem({a: 1}, undefined)).toBe('must be text')
  })

  it('type names: the scalar types and enum(a|b) with word options, each once', () => {
    for (const ok of ['string', 'integer', 'number', 'boolean', 'date', 'enum(a)', 'enum(queued|running|done)']) expect(fieldTypeProblem(ok), ok).toBeNull()
    for (const bad of ['int', 'enum()', 'enum(a|)', 'enum(a|a)', 'enum(a b)', 'Enum(a)', 'list']) expect(fieldTypeProblem(bad), bad).not.toBeNull()
  })

  it('JSON values (MCP, batch): text read by type, numbers and booleans kept for a typed key, made text for an untyped one, null removes', () => {
    const config = typed({n: 'integer'})
    expect(applyFieldEdits({host: 'a', old: 'x'}, {fields: {n: 3, host: 'b', flag: true, old: null}}, config)).toEqual({fields: {flag: 'true', host: 'b', n: 3}, changed: ['flag', 'host', 'n', 'old']})
    expect(applyFieldEdits(undefined, {fields: {n: '4'}}, config).fields).toEqual({n: 4})
    expect(() => applyFieldEdits(undefined, {fields: {n: 1.5}}, config)).toThrowError(invalid('bad_field_value'))
    expect(() => applyFieldEdits(undefined, {fields: {n: [1]}}, config)).toThrowError(invalid('bad_field'))
    expect(() => applyFieldEdits(undefined, {fields: ['n']}, config)).toThrowError(invalid('bad_field'))
    expect(() => applyFieldEdits(undefined, {fields: 'n=1'}, config)).toThrowError(invalid('bad_field'))
  })

  it('a key given twice differently, or set and removed, is refused; at most 64 fields', () => {
    expect(applyFieldEdits(undefined, {field: ['a=1', 'a=1']}, typed({})).fields).toEqual({a: '1'})
    expect(() => applyFieldEdits(undefined, {field: ['a=1', 'a=2']}, typed({}))).toThrowError(invalid('bad_field'))
    expect(() => applyFieldEdits({a: '1'}, {field: ['a=2'], unsetField: ['a']}, typed({}))).toThrowError(invalid('bad_field'))
    const many = Array.from({length: MAX_FIELDS}, (_, i) => `f${i}=v`)
    expect(Object.keys(applyFieldEdits(undefined, {field: many}, typed({})).fields!)).toHaveLength(MAX_FIELDS)
    expect(() => applyFieldEdits(undefined, {field: [...many, 'one_more=v']}, typed({}))).toThrowError(invalid('bad_field'))
  })
})

describe('add and edit', () => {
  it('add stores the fields sorted; a refusal plans nothing', () => {
    const snap = withConfig(snapshot([]), {fields: {estimate: 'integer'}})
    const plan = addTask(snap, ctx(), {title: 'Train', type: 'compute', field: ['host=gpu-01', 'estimate=3'], fields: {job_id: '8812'}})
    expect(plan.result.task.fields).toEqual({estimate: 3, host: 'gpu-01', job_id: '8812'})
    expect(Object.keys(plan.result.task.fields!)).toEqual(['estimate', 'host', 'job_id'])
    expect(() => addTask(snap, ctx(), {title: 'Train', field: ['estimate=soon']})).toThrowError(invalid('bad_field_value'))
    // Without fields, nothing is stored.
    expect('fields' in addTask(snap, ctx(), {title: 'Plain'}).result.task && addTask(snap, ctx(), {title: 'Plain'}).result.task.fields !== undefined).toBe(false)
    // An idempotent retry with other fields is a key mismatch; with the same, the item back.
    const keyed = addTask(snap, ctx(), {title: 'K', key: 'k1', field: ['host=a']})
    const back = snapshot([keyed.result.task])
    expect(addTask(withConfig(back, {fields: {estimate: 'integer'}}), ctx(), {title: 'K', key: 'k1', field: ['host=a']}).result.created).toBe(false)
    expect(() => addTask(back, ctx(), {title: 'K', key: 'k1', field: ['host=b']})).toThrowError(expect.objectContaining({code: 'key_mismatch', data: expect.objectContaining({fields: ['fields']})}))
  })

  it('edit sets, changes and unsets; the same values are no change; fields are not the spec (no override on a held card)', () => {
    const t = task({status: 'in_progress', owner: 'bob', epoch: 1, claimed_at: T0, lease_expires: LATER, fields: {host: 'a', queue: 'gpu'}})
    const snap = snapshot([t])
    const plan = editTask(snap, ctx('ci-watcher'), {id: t.id, field: ['job_id=8812', 'host=b'], unsetField: ['queue']})
    expect(plan.result.fields).toEqual(['fields'])
    expect(plan.result.task.fields).toEqual({host: 'b', job_id: '8812'})
    expect(plan.result.task.revision).toBe(t.revision + 1)
    expect(editTask(snap, ctx(), {id: t.id, field: ['host=a']}).changes).toEqual([])
    expect(editTask(snap, ctx(), {id: t.id, unsetField: ['absent']}).changes).toEqual([])
    // Removing the last field leaves none in the file.
    const bare = editTask(snapshot([task({id: t.id, fields: {a: '1'}})]), ctx(), {id: t.id, unsetField: ['a']}).result.task
    expect(bare.fields).toBeUndefined()
    expect(serialiseTask(bare, '')).not.toMatch(/fields/)
    expect(() => editTask(withConfig(snap, {fields: {host: 'enum(a|b)'}}), ctx(), {id: t.id, field: ['host=c']})).toThrowError(invalid('bad_field_value'))
  })
})

describe('the list config: field.KEY TYPE', () => {
  it('declares, changes and removes a type; a bad type or key is refused; config.yaml round-trips', () => {
    expect(fieldKeyOf('field.estimate')).toBe('estimate')
    expect(fieldKeyOf('lease_seconds')).toBeNull()
    expect(() => fieldKeyOf('field.Bad')).toThrowError(expect.objectContaining({code: 'unknown_config_key', exitCode: 2}))
    const types = fieldTypesWith({}, 'stage', 'enum(a|b)')
    expect(fieldTypesWith(types, 'estimate', 'integer')).toEqual({estimate: 'integer', stage: 'enum(a|b)'})
    expect(fieldTypesWith(types, 'stage', null)).toEqual({})
    expect(() => fieldTypesWith({}, 'x', 'int')).toThrowError(invalid('bad_config_value'))
    const plan = changeConfig(snapshot([]), ctx(), {kind: 'set', key: 'fields', value: fieldTypesWith({}, 'estimate', 'integer')})
    const file = (plan.changes[0] as {content: string}).content
    expect(file).toMatch(/fields:\n {2}estimate: "integer"/)
    const read = parseConfig(file)
    expect(read.ok && read.value.fields).toEqual({estimate: 'integer'})
    // No declared types: nothing written, and a default config reads back with its own (unshared) map.
    expect(serialiseConfig(DEFAULT_CONFIG)).not.toMatch(/fields/)
    const a = parseConfig('lease_seconds: 60\n')
    expect(a.ok && a.value.fields).toEqual({})
    expect(a.ok && a.value.fields).not.toBe(DEFAULT_CONFIG.fields)
  })
})

describe('task.md', () => {
  it('holds fields after the bookkeeping, sorted, typed values as YAML scalars; the reader refuses a bad key or value', () => {
    const t = task({fields: {z: 'last', estimate: 3, done: true, cmd: 'echo "hi" # not a comment'}})
    const text = serialiseTask(t, 'Body')
    expect(text).toMatch(/revision: 1\nfields:\n {2}cmd: "echo \\"hi\\" # not a comment"\n {2}done: true\n {2}estimate: 3\n {2}z: "last"\n---/)
    const back = parseTaskFile(text, t.id)
    expect(back.ok && back.value.meta.fields).toEqual(t.fields)
    expect(back.ok && back.value.meta.extra).toBeUndefined()
    for (const bad of ['fields:\n  Bad: "x"\n', 'fields:\n  a: ""\n', 'fields:\n  a: [1]\n', 'fields: "x"\n', 'fields:\n  a: "two\\nlines"\n']) {
      const broken = text.replace(/fields:\n[\s\S]*?---/, `${bad}---`)
      expect(parseTaskFile(broken, t.id).ok, bad).toBe(false)
    }
  })
})

describe('merge, field by field', () => {
  const base = task({id: 'tsk-mmmmmmmmmm', fields: {host: 'a'}})
  const side = (actor: string, at: string, fields: TaskMeta['fields']) => ({meta: {...base, fields, revision: 2, updated_by: actor, updated_at: at}, body: ''})
  it('two sides setting different fields keep both; a field one side removed goes', () => {
    const r = mergeTask({meta: base, body: ''}, side('alice', T0, {host: 'a', job_id: '1'}), side('bob', LATER, {host: 'a', started_at: 'now'}), {now: LATER, published: 'theirs'})
    expect(r.meta.fields).toEqual({host: 'a', job_id: '1', started_at: 'now'})
    expect(r.notes).toEqual([])
    expect(r.comments).toEqual([])
    const removed = mergeTask({meta: base, body: ''}, side('alice', T0, undefined), side('bob', LATER, {host: 'a', job_id: '2'}), {now: LATER, published: 'theirs'})
    expect(removed.meta.fields).toEqual({job_id: '2'})
  })

  it('the same field set differently: the later side wins, the other value is kept as a comment and a note, whichever side is ours', () => {
    const ours = side('alice', T0, {host: 'gpu-01'})
    const theirs = side('bob', LATER, {host: 'gpu-02'})
    for (const [o, t] of [[ours, theirs], [theirs, ours]] as const) {
      const r = mergeTask({meta: base, body: ''}, o, t, {now: LATER, published: 'theirs'})
      expect(r.meta.fields).toEqual({host: 'gpu-02'})
      expect(r.notes).toEqual([expect.objectContaining({kind: 'field_conflict', field: 'fields.host', kept: 'gpu-02', dropped: 'gpu-01'})])
      expect(r.comments).toHaveLength(1)
      expect(r.comments[0]!.author).toBe('alice')
      expect(r.comments[0]!.body).toContain('"gpu-01"')
      // The git merge driver's two sides each carry their own value.
      expect(r.conflict!.ours.fields!.host).toBe(o.meta.fields!.host)
      expect(r.conflict!.theirs.fields!.host).toBe(t.meta.fields!.host)
    }
  })
})

describe('the guard: one predicate with the ops', () => {
  const facts = (actor: string, op = 'edit'): CommitFacts => ({actor, op, time: T0, override: null})
  const config = {...DEFAULT_CONFIG, fields: {estimate: 'integer'}}
  it('refuses a changed field that does not fit its declared type (bad_field); an unchanged one is not judged again', () => {
    const t = task({fields: {estimate: 'lots'}})
    const next = (fields: TaskMeta['fields']) => ({...t, fields, revision: t.revision + 1, updated_by: 'bob', updated_at: T0})
    expect(judgeTaskChange(t, next({estimate: 'three'}), facts('bob'), config).map((r) => r.rule)).toEqual(['bad_field'])
    expect(judgeTaskChange(t, next({estimate: 3}), facts('bob'), config)).toEqual([])
    // A value from before the type was declared stays; a change of another field is judged on its own.
    expect(judgeTaskChange(t, next({estimate: 'lots', host: 'a'}), facts('bob'), config)).toEqual([])
    expect(judgeTaskChange(undefined, task({fields: {estimate: 'x'}}), facts('alice', 'add'), config).map((r) => r.rule)).toEqual(['bad_field'])
    expect(judgeTaskChange(undefined, task({fields: {estimate: 'x'}, revision: 1}), facts('alice', 'import'), config).map((r) => r.rule)).toContain('bad_field')
    // The same predicate: what the op would refuse, the guard refuses.
    expect(fieldProblems(undefined, {fields: {estimate: 2.5}}, config)).toEqual(['field estimate (integer) must be a whole number'])
    expect(fieldProblems(undefined, {fields: {Bad: 'x'}}, config)).toEqual(['"Bad" is not a field name: a lowercase letter, then lowercase letters, digits or _ (at most 64)'])
  })
})

describe('list --field, export and import', () => {
  it('filters by every KEY=VALUE, values read by the declared type', () => {
    const config = typed({estimate: 'integer'})
    const filters = parseFieldFilters(['estimate=03', 'host=gpu-01'], config)
    expect(fieldsMatch({estimate: 3, host: 'gpu-01', x: 'y'}, filters)).toBe(true)
    expect(fieldsMatch({estimate: 3}, filters)).toBe(false)
    expect(fieldsMatch({estimate: '3', host: 'gpu-01'}, filters)).toBe(true)
    expect(fieldsMatch(undefined, filters)).toBe(false)
    expect(() => parseFieldFilters(['estimate=x'], config)).toThrowError(invalid('bad_field_value'))
    expect(() => parseFieldFilters(['estimate'], config)).toThrowError(invalid('bad_field'))
  })

  it('an export carries the fields; an import checks them by the target list\'s types', () => {
    const t = task({fields: {estimate: 3, host: 'gpu-01'}})
    const doc = exportedTask(t, '', [])
    expect(doc.fields).toEqual({estimate: 3, host: 'gpu-01'})
    const record = {meta: doc, body: '', comments: [], checks: [], origin: 'tasks[0]'}
    expect(checkImportedCard(record, {...DEFAULT_CONFIG, fields: {estimate: 'integer'}}).fields).toEqual({estimate: 3, host: 'gpu-01'})
    expect(() => checkImportedCard(record, {...DEFAULT_CONFIG, fields: {host: 'enum(cpu|gpu)'}})).toThrowError(invalid('bad_field_value'))
    expect(() => checkImportedCard({...record, meta: {...doc, fields: {Bad: 'x'}} as never}, DEFAULT_CONFIG)).toThrowError(invalid('bad_field'))
    // The guard's words for the same field, after the card and the field named.
    const strict = {...DEFAULT_CONFIG, fields: {estimate: 'integer'}}
    for (const fields of [{estimate: 2.5}, {Bad: 'x'}] as Array<Record<string, number | string>>) {
      const guard = fieldProblems(undefined, {fields}, strict)
      expect(guard).toHaveLength(1)
      expect(() => checkImportedCard({...record, meta: {...doc, fields} as never}, strict)).toThrowError(`tasks[0]: fields: ${guard[0]}`)
    }
  })
})

describe('compact show (the MCP default)', () => {
  it('writes the fields as a text block, one KEY=VALUE a line, left out when none', () => {
    const t = task({fields: {host: 'a|b', cmd: 'x, y'}})
    const snap = snapshot([t])
    const v = new TaskViewer(snap, 'alice', T0)
    const detail = (meta: TaskMeta) => ({checkpoint: null, task: v.view(meta), body: '', comments: [], dependencies: [], dependents: [], subitems: [], checks: [], broken: []})
    expect(compactShow(detail(t))).toMatch(/\nfields\[2\]:\ncmd=x, y\nhost=a\|b\n/)
    expect(compactShow(detail({...t, fields: undefined}))).not.toMatch(/fields/)
  })
})

describe('the board', () => {
  it('shows the custom fields on the card page, values escaped', () => {
    const t = task({fields: {host: '<b>gpu</b>', job_id: '8812'}})
    const v = new TaskViewer(snapshot([t]), 'alice', T0)
    const page = taskPage({list: 'main', actor: 'alice', commit: 'c0', now: T0, token: null}, {checkpoint: null, task: v.view(t), body: '', comments: [], dependencies: [], dependents: [], subitems: [], checks: [], broken: []}, {list: 'main', task: t.id, removed: false, events: []} as never, (x) => x)
    expect(page).toContain('<dt>host</dt><dd>&lt;b&gt;gpu&lt;/b&gt;</dd>')
    expect(page).toContain('<dt>job_id</dt><dd>8812</dd>')
  })
})
