/**
 * The seam between `tasks mcp --agent A` and A's inbox.
 *
 * An InboxSource has two functions: `poll` returns A's records that were not
 * acknowledged yet (oldest first), and `ack` acknowledges records by id once
 * the notifier delivered them (or `poll_inbox` returned them). The notifier
 * (notifier.ts) never acknowledges a record it could not send, so a failed
 * send is retried on the next poll.
 *
 * Inbox records (`inbox/<actor>/<ts>-<h>.md` on the list's ref, with
 * `tasks inbox` / `tasks inbox ack`) are built on another branch. Until they
 * are merged, the server is wired to `noInbox`, which always returns
 * nothing. To plug the real inbox in after the merge, implement
 * `InboxSource` over its app functions (poll: the unacked records of the
 * agent at the current tip; ack: one `inbox ack` transaction for the ids)
 * and return it from `inboxSourceFor` below; nothing else changes.
 */
import type {Session} from '../app/session'

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

/**
 * The inbox source of `agent` in this session's list. Returns `noInbox`
 * until the inbox capability is merged (see the comment at the top).
 */
export function inboxSourceFor(_session: () => Promise<Session>, _agent: string): InboxSource {
  return noInbox
}
