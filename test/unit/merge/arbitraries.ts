/** fast-check generators of task versions for the merge property tests. */
import fc from 'fast-check'
import type {TaskMeta} from '../../../src/core/task'
import type {TaskVersion} from '../../../src/merge/task-merge'

export const BASE_TIME = '2026-11-29T12:00:00.000Z'
export const NOW = '2026-11-30T08:00:00.000Z'
export const at = (minutes: number): string => new Date(Date.parse(BASE_TIME) + minutes * 60_000).toISOString()

const ACTORS = ['alice', 'bob', 'carol'] as const
const IDS = ['tsk-aaaaaaaaaa', 'tsk-bbbbbbbbbb', 'tsk-cccccccccc', 'tsk-dddddddddd'] as const
export const lineArb = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '', '---', 'status: done', '- [ ] item')

/** `base` edited by `who` at `minutes` past BASE_TIME: the bookkeeping an op would write. */
export const edit = (base: TaskMeta, changes: Partial<TaskMeta>, who = 'bob', minutes = 10): TaskMeta => ({
  ...base,
  ...changes,
  updated_at: at(minutes),
  updated_by: who,
  revision: base.revision + 1,
})

export function baseTask(id = 'tsk-0123456789'): TaskMeta {
  return {
    id,
    title: 'Wire the CAS',
    status: 'todo',
    priority: 2,
    tags: ['backend', 'p1'],
    depends_on: ['tsk-aaaaaaaaaa'],
    epoch: 1,
    created_at: at(-100),
    created_by: 'alice',
    updated_at: BASE_TIME,
    updated_by: 'alice',
    revision: 3,
    fields: {host: 'a'},
  }
}

/**
 * `base` after up to `maxEdits` random line edits (delete, insert, replace,
 * or nothing), so the sides of a merge share most lines and often merge cleanly.
 */
export const editedLines = (base: string[], line: fc.Arbitrary<string>, maxEdits: number): fc.Arbitrary<string[]> =>
  fc.array(fc.tuple(fc.nat(), fc.constantFrom('keep', 'del', 'ins', 'rep'), line), {maxLength: maxEdits}).map((edits) => {
    const out = [...base]
    for (const [pos, op, text] of edits) {
      const i = out.length === 0 ? 0 : pos % (out.length + 1)
      if (op === 'del' && i < out.length) out.splice(i, 1)
      else if (op === 'ins') out.splice(i, 0, text)
      else if (op === 'rep' && i < out.length) out[i] = text
    }
    return out
  })

type Lifecycle = Partial<TaskMeta>
const lifecycleArb = (base: TaskMeta): fc.Arbitrary<Lifecycle | null> =>
  fc.option(
    fc.oneof(
      fc.constantFrom(...ACTORS).map((owner) => ({status: 'in_progress' as const, owner, epoch: base.epoch + 1, claimed_at: at(5), lease_expires: at(65)})),
      fc.constantFrom(...ACTORS).map((owner) => ({status: 'in_progress' as const, owner, epoch: base.epoch + 2, claimed_at: at(7), lease_expires: at(67)})),
      fc.tuple(fc.constantFrom(...ACTORS), fc.constantFrom('waiting on infra', 'need review')).map(([owner, note]) => ({status: 'blocked' as const, owner, epoch: base.epoch + 1, block_note: note})),
      fc.constantFrom(...ACTORS).map((owner) => ({status: 'done' as const, owner, epoch: base.epoch + 1, closed_at: at(9)})),
      fc.constantFrom('obsolete', 'duplicate').map((reason) => ({status: 'cancelled' as const, cancel_reason: reason, closed_at: at(11)})),
      fc.constant({status: 'in_progress' as const, owner: 'alice', epoch: base.epoch, lease_expires: at(90)}),
    ),
    {freq: 2},
  )

/** One side: the base with a random set of edits, as one of the ops or a person would make them. */
export function sideArb(base: TaskVersion): fc.Arbitrary<TaskVersion> {
  const b = base.meta
  const baseLines = base.body === '' ? [] : base.body.replace(/\n$/, '').split('\n')
  return fc
    .record({
      title: fc.option(fc.constantFrom('Wire the CAS (v2)', 'Wire CAS', 'Claim CAS wiring'), {freq: 2}),
      priority: fc.option(fc.integer({min: 0, max: 4}), {freq: 2}),
      assignee: fc.option(fc.option(fc.constantFrom(...ACTORS), {nil: undefined}), {freq: 2}),
      parent: fc.option(fc.option(fc.constantFrom(...IDS), {nil: undefined}), {freq: 3}),
      addTags: fc.subarray(['ops', 'p2', 'urgent']),
      removeTags: fc.subarray(b.tags),
      addDeps: fc.subarray([...IDS]),
      removeDeps: fc.subarray(b.depends_on),
      lifecycle: lifecycleArb(b),
      body: fc.option(editedLines(baseLines, lineArb, 3), {freq: 2}),
      extra: fc.option(fc.dictionary(fc.constantFrom('x-estimate', 'x-link'), fc.oneof(fc.integer({min: 0, max: 3}), fc.constantFrom('u', 'v'))), {freq: 2}),
      // Custom fields (issue 33): set (text, a number, a boolean) or removed (null), key by key.
      fields: fc.option(fc.dictionary(fc.constantFrom('host', 'job_id', 'stage'), fc.oneof(fc.constantFrom('a', 'b', 3, true), fc.constant(null))), {freq: 2}),
      updatedAt: fc.integer({min: 1, max: 4}),
      revisionBump: fc.integer({min: 1, max: 3}),
      actor: fc.constantFrom(...ACTORS),
    })
    .map((e) => {
      const meta: TaskMeta = {...b, tags: [...b.tags], depends_on: [...b.depends_on]}
      if (e.title !== null) meta.title = e.title
      if (e.priority !== null) meta.priority = e.priority
      if (e.assignee !== null) {
        if (e.assignee === undefined) delete meta.assignee
        else meta.assignee = e.assignee
      }
      if (e.parent !== null) {
        if (e.parent === undefined) delete meta.parent
        else meta.parent = e.parent
      }
      meta.tags = [...new Set([...meta.tags.filter((t) => !e.removeTags.includes(t)), ...e.addTags])].sort()
      meta.depends_on = [...new Set([...meta.depends_on.filter((t) => !e.removeDeps.includes(t)), ...e.addDeps])].sort()
      if (e.lifecycle) {
        for (const k of ['owner', 'claimed_at', 'lease_expires', 'block_note', 'cancel_reason', 'closed_at'] as const) delete meta[k]
        Object.assign(meta, e.lifecycle)
      }
      if (e.extra !== null && Object.keys(e.extra).length > 0) meta.extra = e.extra
      if (e.fields !== null) {
        const fields: Record<string, string | number | boolean> = {...b.fields}
        for (const [k, v] of Object.entries(e.fields)) {
          if (v === null) delete fields[k]
          else fields[k] = v
        }
        if (Object.keys(fields).length > 0) meta.fields = fields
        else delete meta.fields
      }
      const body = e.body === null ? base.body : e.body.map((l) => `${l}\n`).join('')
      const changed = JSON.stringify(meta) !== JSON.stringify(b) || body !== base.body
      if (changed) {
        meta.updated_at = at(e.updatedAt)
        meta.revision = b.revision + e.revisionBump
        meta.updated_by = e.actor
      }
      return {meta, body}
    })
}

export const baseVersionArb: fc.Arbitrary<TaskVersion> = fc
  .array(lineArb, {maxLength: 6})
  .map((lines) => ({meta: baseTask(), body: lines.map((l) => `${l}\n`).join('')}))

/** base, ours, theirs. */
export const taskTripleArb = baseVersionArb.chain((base) => fc.tuple(fc.constant(base), sideArb(base), sideArb(base)))
