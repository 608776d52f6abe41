/**
 * Drains an agent's inbox into MCP notifications: every `intervalMs` it
 * polls the source, sends each record it has not delivered yet to the
 * client (`deliver`: a logging message, and a resource-updated notification
 * for the card), and acknowledges a record only after its send succeeded.
 * A record whose send failed stays unacknowledged and is sent again on the
 * next poll; one whose ack failed is not sent again, only acked again.
 * Polls never overlap.
 */
import type {InboxRecord, InboxSource} from './inbox-source'

export type Deliver = (record: InboxRecord) => Promise<void>

export interface NotifierStats {
  polls: number
  delivered: number
  acked: number
  failedSends: number
  failedAcks: number
}

export class InboxNotifier {
  readonly stats: NotifierStats = {polls: 0, delivered: 0, acked: 0, failedSends: 0, failedAcks: 0}
  /** Sent but not yet acknowledged (the ack failed): ack again, never send again. */
  private readonly sentUnacked = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | null = null

  constructor(
    private readonly source: InboxSource,
    private readonly deliver: Deliver,
    private readonly intervalMs: number,
    private readonly onError: (what: string, error: unknown) => void = () => {},
  ) {}

  start(): void {
    if (this.timer) return
    void this.poll()
    this.timer = setInterval(() => void this.poll(), this.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** One round: poll, send what is new, ack what was sent. Concurrent calls share the round in progress. */
  poll(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = null))
    return this.running
  }

  /**
   * Take the records for a caller that polls on its own turn (`poll_inbox`):
   * they count as delivered once returned, and are acknowledged.
   */
  async take(): Promise<InboxRecord[]> {
    await this.running
    const records = (await this.source.poll()).filter((r) => !this.sentUnacked.has(r.id))
    if (records.length) {
      for (const r of records) this.sentUnacked.add(r.id)
      await this.ackSent()
    }
    return records
  }

  private async round(): Promise<void> {
    this.stats.polls++
    let records: InboxRecord[]
    try {
      records = await this.source.poll()
    } catch (error) {
      this.onError('poll', error)
      return
    }
    for (const record of records) {
      if (this.sentUnacked.has(record.id)) continue
      try {
        await this.deliver(record)
      } catch (error) {
        this.stats.failedSends++
        this.onError('send', error)
        // Not acknowledged: the next poll returns it again and it is retried.
        continue
      }
      this.stats.delivered++
      this.sentUnacked.add(record.id)
    }
    await this.ackSent()
  }

  private async ackSent(): Promise<void> {
    if (this.sentUnacked.size === 0) return
    const ids = [...this.sentUnacked]
    try {
      await this.source.ack(ids)
      for (const id of ids) this.sentUnacked.delete(id)
      this.stats.acked += ids.length
    } catch (error) {
      this.stats.failedAcks++
      this.onError('ack', error)
    }
  }
}
