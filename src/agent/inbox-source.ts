/**
 * The seam between `tasks mcp --agent A` and A's inbox.
 *
 * An InboxSource has two functions: `poll` returns A's records that were not
 * acknowledged yet (oldest first), and `ack` acknowledges records by id once
 * the notifier delivered them (or `poll_inbox` returned them). The notifier
 * (notifier.ts) never acknowledges a record it could not send, so a failed
 * send is retried on the next poll.
 *
 * The real source (`inboxSourceFor`) reads the agent's inbox on the list's
 * ref (`inbox/<actor>/<ts>-<h>.md`; aliases fold into the canonical actor)
 * through the same app functions as `tasks inbox` and `tasks inbox ack`:
 * poll returns the records without a `.seen` marker at the current tip,
 * ack writes the markers in one `inbox ack` transaction (online: pushed).
 */
import type {Session} from '../app/session'
import {inbox, inboxAck} from '../app/inbox-actions'

export interface InboxRecord {
  /** Stable id of the record (what `ack` takes). */
  id: string
  /** The card it is about, if any: a resource-updated notification is sent for `tasks://<list>/<task>`. */
  task: string | null
  /** Who or what sent it. */
  from: string | null
  /** Kind of record (mention, handoff, review, …), free text. */
  kind: string | null
  created_at: string | null
  /** The message text. */
  text: string
}

export interface InboxSource {
  /** A short name for results and logs (`none` while no inbox exists). */
  readonly name: string
  poll(): Promise<InboxRecord[]>
  ack(ids: readonly string[]): Promise<void>
}

/** The source for a store with no inbox: nothing to deliver, nothing to ack. */
export const noInbox: InboxSource = {
  name: 'none',
  poll: async () => [],
  ack: async () => {},
}

/** Runs work one at a time with the server's tool calls (they share one session). */
export type Serial = <T>(work: () => Promise<T>) => Promise<T>

/**
 * The inbox source of `agent` in this session's list: its unseen records,
 * oldest first, as `tasks inbox --as AGENT` lists them; ack marks them seen
 * as `tasks inbox ack` does. Ids already seen (acked meanwhile, say by
 * `tasks inbox ack` in a shell) are skipped; ids gone from the inbox are
 * ignored rather than failing the whole ack.
 */
export function inboxSourceFor(session: () => Promise<Session>, agent: string, serial: Serial = (work) => work()): InboxSource {
  return {
    name: 'inbox',
    poll: () =>
      serial(async () => {
        const s = await (await session()).forCall()
        const r = await inbox(s, {as: agent})
        return r.records.map((e) => ({id: e.id, task: e.task || null, from: e.actor, kind: e.event, created_at: e.created_at, text: e.body}))
      }),
    ack: (ids) =>
      serial(async () => {
        if (ids.length === 0) return
        const s = await (await session()).forCall()
        // Only the records still unseen in the inbox: one that went away meanwhile is not an error worth retrying forever.
        const current = new Set((await inbox(s, {as: agent})).records.map((r) => r.id))
        const wanted = ids.filter((id) => current.has(id))
        if (wanted.length > 0) await inboxAck(await (await session()).forCall(), {ids: wanted, as: agent})
      }),
  }
}
