/**
 * 3-way merge of a coordination session's session.md changed on both sides
 * (docs/merge.md, "Coordination sessions"). Checkpoints are separate files,
 * so checkpoints written on two clones at once are both kept by the tree
 * merge without coming here. Rules:
 *
 *  - the lifecycle unit (state, owner, epoch, claimed_at, lease_expires,
 *    summary, cancel_reason, closed_at) moves as one: a side that left it
 *    as in the base takes the other's; a finished session (completed,
 *    cancelled) beats an unfinished one; else the higher epoch, then the
 *    published side;
 *  - the specification (title, description, strategy and the revision
 *    stamps): a side that left it as in the base takes the other's; both
 *    revised: title, description and strategy merge as text, the revision
 *    becomes one more than the higher side's; text that does not merge
 *    keeps the later revision's and files the other's as a `merge`
 *    checkpoint of the session, so nothing typed is lost;
 *  - updated_at/updated_by: the later side's.
 *
 * Pure; null when a side does not parse (the caller keeps both texts).
 */
import {createHash} from 'node:crypto'
import {type SessionCheckpoint, type WorkSession, parseSessionFile, serialiseSession, serialiseSessionCheckpoint, sessionCheckpointPath, SESSION_TERMINAL} from '../core/work-session'
import {MERGE_ACTOR, type MergeContext} from './merge-types'
import {mergeText} from './text-merge'

const UNIT = ['state', 'owner', 'epoch', 'claimed_at', 'lease_expires', 'summary', 'cancel_reason', 'closed_at'] as const
const SPEC = ['title', 'description', 'strategy', 'revision', 'revised_at', 'revised_by', 'revise_reason'] as const

export interface SessionMerge {
  text: string
  /** Files to add beside it (a `merge` checkpoint keeping text that did not merge). */
  extra: Array<{path: string; content: string}>
  message: string
}

function pick<K extends keyof WorkSession>(s: WorkSession, keys: readonly K[]): Pick<WorkSession, K> {
  const out = {} as Pick<WorkSession, K>
  for (const k of keys) out[k] = s[k]
  return out
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

export function mergeSessionFile(id: string, base: string | null, ours: string, theirs: string, ctx: MergeContext): SessionMerge | null {
  const o = parseSessionFile(ours, id)
  const t = parseSessionFile(theirs, id)
  if (!o.ok || !t.ok) return null
  const b = base === null ? null : parseSessionFile(base, id)
  const B = b?.ok ? b.value : null
  const O = o.value
  const T = t.value
  const pub = ctx.published === 'ours' ? O : T
  const later = O.updated_at > T.updated_at ? O : T.updated_at > O.updated_at ? T : pub
  const notes: string[] = []

  // The lifecycle unit.
  const unitOf = (s: WorkSession) => pick(s, UNIT)
  let unit: ReturnType<typeof unitOf>
  if (B && same(unitOf(O), unitOf(B))) unit = unitOf(T)
  else if (B && same(unitOf(T), unitOf(B))) unit = unitOf(O)
  else {
    const oDone = SESSION_TERMINAL.has(O.state)
    const tDone = SESSION_TERMINAL.has(T.state)
    const winner = oDone !== tDone ? (oDone ? O : T) : O.epoch !== T.epoch ? (O.epoch > T.epoch ? O : T) : pub
    unit = unitOf(winner)
    if (!same(unitOf(O), unitOf(T))) notes.push(`the session's state and claim changed on both sides; kept ${winner.state}${winner.owner ? ` held by ${winner.owner}` : ''} (epoch ${winner.epoch})`)
  }

  // The specification.
  const specOf = (s: WorkSession) => pick(s, SPEC)
  let spec: ReturnType<typeof specOf>
  const extra: Array<{path: string; content: string}> = []
  if (!B || same(specOf(O), specOf(T))) spec = specOf(B && same(specOf(O), specOf(B)) ? T : O)
  else if (same(specOf(O), specOf(B))) spec = specOf(T)
  else if (same(specOf(T), specOf(B))) spec = specOf(O)
  else {
    const newer = (O.revised_at ?? '') > (T.revised_at ?? '') ? O : (T.revised_at ?? '') > (O.revised_at ?? '') ? T : pub
    const older = newer === O ? T : O
    const field = (k: 'title' | 'description' | 'strategy'): string => {
      const m = mergeText(B[k], O[k], T[k])
      if (m.clean) return m.text
      const c: SessionCheckpoint = {
        id: `${ctx.now.replace(/[-:]/g, '')}-${createHash('sha256').update(`${id}\0${k}\0${older[k]}`).digest('hex').slice(0, 8)}`,
        session: id,
        kind: 'merge',
        author: MERGE_ACTOR,
        created_at: ctx.now,
        epoch: Math.max(O.epoch, T.epoch),
        summary: `Merge: the ${k} was revised on both sides (revision ${older.revision} by ${older.revised_by ?? older.updated_by}, and ${newer.revision} by ${newer.revised_by ?? newer.updated_by}) and the edits overlap; the later revision's text was kept. The other ${k}, for the record:\n\n${older[k]}`,
      }
      extra.push({path: sessionCheckpointPath(id, c.id), content: serialiseSessionCheckpoint(c)})
      notes.push(`the ${k} was revised on both sides and could not be merged; kept the later revision's, filed the other as checkpoint ${c.id}`)
      return newer[k]
    }
    spec = {
      title: field('title'),
      description: field('description'),
      strategy: field('strategy'),
      revision: Math.max(O.revision, T.revision) + 1,
      revised_at: newer.revised_at,
      revised_by: newer.revised_by,
      revise_reason: newer.revise_reason,
    }
    if (notes.length === 0 || !notes.at(-1)!.includes('revised on both')) notes.push(`the session was revised on both sides; the texts merged (revision ${spec.revision})`)
  }

  const extraKeys = {...(B?.extra ?? {}), ...(O.extra ?? {}), ...(T.extra ?? {})}
  const merged: WorkSession = {
    ...O,
    ...spec,
    ...unit,
    id,
    created_at: O.created_at < T.created_at ? O.created_at : T.created_at,
    created_by: O.created_at <= T.created_at ? O.created_by : T.created_by,
    updated_at: later.updated_at,
    updated_by: later.updated_by,
    ...(Object.keys(extraKeys).length ? {extra: extraKeys} : {}),
  }
  if (!merged.extra) delete merged.extra
  return {text: serialiseSession(merged), extra, message: `${id}: ${notes.join('; ') || 'merged the changes of both sides'}`}
}
