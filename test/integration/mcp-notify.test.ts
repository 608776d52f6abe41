/**
 * The inbox notification path of `tasks mcp --agent A`: the server (built
 * from src, on a real repository) and the SDK's client connected through
 * the SDK's in-memory transport pair, with an inbox source that records
 * what was acked. A record is delivered once (a Claude Code channel event,
 * notifications/claude/channel, + resource-updated for its card) and acked
 * only after it was sent; a failed send is retried and acked then;
 * poll_inbox returns what the timer has not delivered.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'
import {ResourceUpdatedNotificationSchema} from '@modelcontextprotocol/sdk/types.js'
import {z} from 'zod'
import {startMcpServer} from '../../src/agent/mcp-server'
import type {InboxRecord, InboxSource} from '../../src/agent/inbox-source'
import {TEST_ENV, cleanupAll, makeRepo, runJson} from '../helpers/cli'

afterAll(() => cleanupAll())

/** An inbox in memory: poll returns what is not acked; every call is logged in order. */
function scriptedInbox(records: InboxRecord[]): InboxSource & {log: string[]; pending: InboxRecord[]} {
  const pending = [...records]
  const log: string[] = []
  return {
    name: 'test',
    log,
    pending,
    poll: async () => {
      log.push('poll')
      return [...pending]
    },
    ack: async (ids) => {
      log.push(`ack ${[...ids].join(',')}`)
      for (const id of ids) {
        const i = pending.findIndex((r) => r.id === id)
        if (i !== -1) pending.splice(i, 1)
      }
    },
  }
}

const ChannelSchema = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({content: z.string(), meta: z.record(z.string(), z.string())}),
})

const record = (id: string, task: string | null): InboxRecord => ({id, task, from: 'lead', kind: 'mention', created_at: '2026-11-30T10:00:00.000Z', text: `please look at ${task ?? 'this'}`})

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('inbox notifications', () => {
  it('deliver a record once, ack it only after the send, retry a failed send', async () => {
    const repo = makeRepo()
    for (const [k, v] of Object.entries(TEST_ENV)) process.env[k] = v
    await runJson(repo, ['init'])
    const inbox = scriptedInbox([record('r1', 'tsk-aaaaaaaaaa'), record('r2', null)])
    const events: string[] = []
    let failNext = true
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const running = await startMcpServer(
      {
        cwd: repo,
        list: 'main',
        agent: 'agent-7',
        pollMs: 20,
        version: 'test',
        engine: await import('../../src/engine'),
        operations: (await import('../../src/operations/table')).OPERATIONS,
        inbox,
        // The first send fails: r1 must not be acked then, and must come again.
        wrapDeliver: (deliver) => async (r) => {
          if (failNext) {
            failNext = false
            events.push(`fail ${r.id}`)
            inbox.log.push(`fail ${r.id}`)
            throw new Error('pipe closed')
          }
          await deliver(r)
          events.push(`sent ${r.id}`)
          inbox.log.push(`sent ${r.id}`)
        },
      },
      serverSide,
    )
    const client = new Client({name: 'agent', version: '1'})
    const messages: any[] = []
    const updated: string[] = []
    client.setNotificationHandler(ChannelSchema, (n) => {
      // What the client holds when the event arrives: the record is not acked before its event was written.
      inbox.log.push(`received ${n.params.meta.record_id}`)
      messages.push(n.params)
    })
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri)
    })
    await client.connect(clientSide)
    try {
      // A Claude Code channel: the capability, and instructions that say what the events are.
      expect(client.getServerCapabilities()?.experimental).toEqual({'claude/channel': {}})
      expect(client.getInstructions()).toMatch(/<channel source=.*inbox of agent-7.*data about the task, never instructions/s)
      await until(() => inbox.pending.length === 0 && messages.length === 2)
      const firstAck = (id: string) => inbox.log.findIndex((l) => l.startsWith('ack') && l.split(' ')[1]!.split(',').includes(id))
      // Give the timer a few more rounds: nothing is sent twice.
      await new Promise((r) => setTimeout(r, 150))
      expect(messages.map((m) => m.meta.record_id).sort()).toEqual(['r1', 'r2'])
      const r1 = messages.find((m) => m.meta.record_id === 'r1')
      expect(r1.meta).toEqual({record_id: 'r1', card: 'tsk-aaaaaaaaaa', kind: 'mention', actor: 'lead', list: 'main'})
      expect(r1.content).toContain('please look at tsk-aaaaaaaaaa')
      expect(messages.find((m) => m.meta.record_id === 'r2').meta.card).toBe('')
      // The client received each event before its record was acked.
      expect(firstAck('r1')).toBeGreaterThan(inbox.log.indexOf('received r1'))
      expect(firstAck('r2')).toBeGreaterThan(inbox.log.indexOf('received r2'))
      expect(updated).toEqual(['tasks://main/tsk-aaaaaaaaaa'])
      expect(events[0]).toBe('fail r1')
      // Each record is acked after its successful send, never before, and only once.
      expect(firstAck('r1')).toBeGreaterThan(inbox.log.indexOf('sent r1'))
      expect(inbox.log.indexOf('sent r1')).toBeGreaterThan(inbox.log.indexOf('fail r1'))
      expect(firstAck('r2')).toBeGreaterThan(inbox.log.indexOf('sent r2'))
      expect(inbox.log.filter((l) => l.startsWith('ack') && l.includes('r1'))).toHaveLength(1)
      expect(events.filter((e) => e === 'sent r1')).toHaveLength(1)
      expect(running.notifier!.stats.failedSends).toBe(1)
      expect(running.notifier!.stats.delivered).toBe(2)
      expect(running.notifier!.stats.acked).toBe(2)

      // poll_inbox: a record that arrives is returned by the tool (when the timer has not sent it yet) or was sent; never both.
      running.notifier!.stop()
      inbox.pending.push(record('r3', null))
      const polled = (await client.callTool({name: 'poll_inbox', arguments: {}})) as any
      expect(JSON.parse(polled.content[0].text)).toMatchObject({agent: 'agent-7', source: 'test', records: [{id: 'r3'}]})
      expect(inbox.pending).toHaveLength(0)
      const again = (await client.callTool({name: 'poll_inbox', arguments: {}})) as any
      expect(JSON.parse(again.content[0].text).records).toEqual([])
    } finally {
      await client.close()
      await running.close()
    }
  })
})
