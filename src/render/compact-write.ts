/**
 * The compact answer of a write (issue 35): what an MCP write tool returns
 * by default instead of the whole --json object (`format: "json"` asks for
 * that). A write's caller knows what it sent; it needs to know what the
 * item became: the task's id, state, owner, epoch, revision and lease, the
 * commit, each other scalar of the result, and of a nested object its id,
 * kind and status. Text the caller wrote itself (a checkpoint's summary, a
 * comment's body, a check's evidence) is left out; nested lists are counted. Pure: a result in, text out.
 */
import type {TaskView} from '../core/task-view'
import {type CompactValue, CompactWriter} from './compact'
import {COMPACT_VERSION, writeTaskTable} from './compact-views'

/** The fields of a task a write answers with, in this order. */
const TASK_KEYS = ['state', 'owner', 'epoch', 'revision', 'lease_expires', 'blocked_by', 'waiting'] as const

/**
 * Of a nested object (the check passed, the checkpoint or comment made),
 * only what names it and what it became; its text is the caller's own, its
 * authors and times are in the JSON.
 */
const NESTED_KEYS = new Set(['id', 'status', 'kind', 'outcome', 'created', 'changed'])

function shortId(t: {id?: unknown; short_id?: unknown}): string {
  return String(t.short_id ?? t.id ?? '').replace(/^tsk-/, '')
}

function isTask(value: unknown): value is TaskView {
  return typeof value === 'object' && value !== null && 'id' in value && 'state' in value && 'title' in value
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

function taskLines(w: CompactWriter, prefix: string, t: TaskView): void {
  w.scalar(prefix, shortId(t))
  const record = t as unknown as Record<string, unknown>
  for (const key of TASK_KEYS) {
    const v = record[key]
    if (Array.isArray(v)) w.scalar(`${prefix}.${key}`, v.map((x) => (typeof x === 'object' && x !== null ? shortId(x as {id?: unknown}) : String(x).replace(/^tsk-/, ''))))
    else if (isScalar(v)) w.scalar(`${prefix}.${key}`, v as CompactValue)
  }
}

/** A write's result as compact text (`# git-tasks compact 1: <command>` first). */
export function compactWrite(command: string, result: Record<string, unknown>): string {
  const w = new CompactWriter()
  w.comment(`git-tasks compact ${COMPACT_VERSION}: ${command} (format "json" for the whole result)`)
  for (const [key, value] of Object.entries(result)) {
    if (isScalar(value)) w.scalar(key, value)
    else if (isTask(value)) taskLines(w, key, value)
    else if (Array.isArray(value)) {
      if (value.every(isScalar)) w.scalar(key, value.map((v) => String(v)))
      else if (value.every(isTask)) writeTaskTable(w, key, value)
      else w.scalar(`${key}.count`, value.length)
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (isTask(v)) taskLines(w, `${key}.${k}`, v)
        else if (NESTED_KEYS.has(k) && isScalar(v)) w.scalar(`${key}.${k}`, k === 'id' ? String(v ?? '').replace(/^tsk-/, '') : v)
      }
    }
  }
  return w.toString()
}
