/**
 * The MCP server's bounded stdio transport (src/agent/stdio-transport.ts)
 * on in-memory streams: lines split across chunks and several in one,
 * CRLF, an oversized line whose id is at either end or nowhere, lines that
 * are not JSON or not JSON-RPC, and how it closes.
 */
import {PassThrough, Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {JSONRPCMessageSchema} from '@modelcontextprotocol/sdk/types.js'
import {BoundedStdioTransport, idOfEnds} from '../../src/agent/stdio-transport'

function setup(maxLineBytes = 64) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const logs: string[] = []
  const messages: unknown[] = []
  const out: any[] = []
  let buffered = ''
  stdout.on('data', (b) => {
    buffered += b
    let i: number
    while ((i = buffered.indexOf('\n')) >= 0) {
      out.push(JSON.parse(buffered.slice(0, i)))
      buffered = buffered.slice(i + 1)
    }
  })
  const t = new BoundedStdioTransport({maxLineBytes, parseMessage: (v) => JSONRPCMessageSchema.parse(v), log: (l) => void logs.push(l), stdin, stdout})
  t.onmessage = (m) => void messages.push(m)
  return {t, stdin, stdout, logs, messages, out}
}

const tick = () => new Promise((r) => setImmediate(r))

describe('BoundedStdioTransport', () => {
  it('reads lines split across chunks, several in one chunk, and CRLF', async () => {
    const s = setup(1024)
    await s.t.start()
    s.stdin.write('{"jsonrpc":"2.0","id":1,"met')
    s.stdin.write('hod":"ping"}\r\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n\n{"jsonrpc":"2.0",')
    s.stdin.write('"method":"notifications/initialized"}\n')
    await tick()
    expect(s.messages).toEqual([
      {jsonrpc: '2.0', id: 1, method: 'ping'},
      {jsonrpc: '2.0', id: 2, method: 'ping'},
      {jsonrpc: '2.0', method: 'notifications/initialized'},
    ])
    expect(s.out).toEqual([])
  })

  it('answers an oversized line with its id (first or last), or id null, and reads on', async () => {
    const s = setup(64)
    await s.t.start()
    const pad = 'p'.repeat(200)
    s.stdin.write(`{"id":"a","jsonrpc":"2.0","method":"x","params":{"t":"${pad.slice(0, 50)}`)
    s.stdin.write(`${pad}"}}\n`)
    s.stdin.write(`{"method":"x","params":{"t":"${pad}","in":{"id":5}},"jsonrpc":"2.0","id":7}\n`)
    s.stdin.write(`{"method":"x","params":{"t":"${pad}","in":{"id":5}}}\n`)
    s.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    await tick()
    await tick()
    expect(s.out.map((o) => [o.id, o.error.code, o.error.data.code])).toEqual([
      ['a', -32600, 'message_too_large'],
      [7, -32600, 'message_too_large'],
      [null, -32600, 'message_too_large'],
    ])
    expect(s.messages).toEqual([{jsonrpc: '2.0', id: 3, method: 'ping'}])
    expect(s.logs).toHaveLength(3)
    expect(s.logs.join('\n')).not.toContain('ppp')
  })

  it('a line that is not JSON: parse error; JSON that is not JSON-RPC: invalid request (with its id when it has one)', async () => {
    const s = setup(1024)
    await s.t.start()
    s.stdin.write('secret words\n{"id":4,"method":5}\n{"hello":1}\n')
    await tick()
    expect(s.out).toEqual([
      {jsonrpc: '2.0', id: null, error: {code: -32700, message: expect.any(String)}},
      {jsonrpc: '2.0', id: 4, error: {code: -32600, message: expect.any(String)}},
      {jsonrpc: '2.0', id: null, error: {code: -32600, message: expect.any(String)}},
    ])
    expect(JSON.stringify(s.out)).not.toContain('secret')
  })

  it('closes as "end" when stdin ends, as "error" when a stream fails', async () => {
    const a = setup()
    let closed = 0
    a.t.onclose = () => void closed++
    await a.t.start()
    a.stdin.end()
    await tick()
    expect([a.t.closedBy, closed]).toEqual(['end', 1])

    const b = setup()
    const errors: string[] = []
    b.t.onerror = (e) => void errors.push(e.message)
    await b.t.start()
    b.stdout.emit('error', new Error('write EPIPE'))
    await tick()
    expect(b.t.closedBy).toBe('error')
    expect(errors).toEqual(['write EPIPE'])
  })

  it('finds ids only where they belong', () => {
    expect(idOfEnds('{"jsonrpc":"2.0","id":12,"method":"x"', '')).toBe(12)
    expect(idOfEnds('{"method":"x","params":{"id":1', '"}},"id":"r-1"}')).toBe('r-1')
    expect(idOfEnds('{"method":"x"', '{"id":5}}')).toBeNull()
    expect(idOfEnds('{"method":"x"', '"t":"a\\",\\"id\\":5}"}')).toBeNull()
  })

  it('send resolves once the write was handed on, and rejects when it failed (so no inbox record is acked for it)', async () => {
    const stdin = new PassThrough()
    let fail = false
    const stdout = new Writable({write: (_chunk, _enc, cb) => (fail ? cb(new Error('EPIPE')) : cb())})
    const t = new BoundedStdioTransport({maxLineBytes: 1024, parseMessage: (v) => JSONRPCMessageSchema.parse(v), log: () => {}, stdin, stdout})
    const errors: string[] = []
    t.onerror = (e) => void errors.push(e.message)
    await t.start()
    await expect(t.send({jsonrpc: '2.0', method: 'notifications/claude/channel', params: {content: 'x', meta: {}}})).resolves.toBeUndefined()
    fail = true
    await expect(t.send({jsonrpc: '2.0', method: 'notifications/claude/channel', params: {content: 'y', meta: {}}})).rejects.toThrow('EPIPE')
    await tick()
    expect(t.closedBy).toBe('error')
    // After the failure nothing counts as sent.
    await expect(t.send({jsonrpc: '2.0', method: 'notifications/claude/channel', params: {content: 'z', meta: {}}})).rejects.toThrow()
  })
})
