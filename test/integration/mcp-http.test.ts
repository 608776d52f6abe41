/**
 * `tasks mcp --http`: the built CLI serving MCP over Streamable HTTP, driven
 * by the official SDK's Client over its StreamableHTTPClientTransport on a
 * real repository. Tools are listed, a read tool and a write tool called
 * (the CLI sees the write), an inbox record written by another process
 * arrives as a Claude Code channel event on the session's event stream; a
 * request body over TASKS_MCP_MAX_MESSAGE_BYTES is answered 413 and a
 * request naming another host 421. Beyond loopback: no start without a
 * token; with one, a request without it is refused (401) and the client
 * that sends it works.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {request} from 'node:http'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import Ajv from 'ajv'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {z} from 'zod'
import {BIN, ROOT, TEST_ENV, cleanupAll, makeRepo, run, runJson} from '../helpers/cli'

const ChannelSchema = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({content: z.string(), meta: z.record(z.string(), z.string())}),
})

const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM')
  cleanupAll()
})

/** Start `tasks mcp --http --json …` and wait for the line it prints once it listens. */
function serve(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{child: ChildProcess; started: any}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--json', '--toolsets', 'all', ...args], {cwd, env: {...TEST_ENV, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
    children.push(child)
    let out = ''
    let err = ''
    child.stdout!.on('data', (b) => {
      out += b
      const nl = out.indexOf('\n')
      if (nl >= 0) resolve({child, started: JSON.parse(out.slice(0, nl))})
    })
    child.stderr!.on('data', (b) => (err += b))
    child.on('close', (code) => reject(new Error(`tasks mcp --http exited ${code}: ${err}`)))
  })
}

async function until(check: () => boolean | Promise<boolean>, ms = 15000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A raw request (the Host header as given, which fetch would not send). */
function raw(url: string, options: {method?: string; headers?: Record<string, string>; body?: string}): Promise<{status: number; body: string}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: options.method ?? 'POST', headers: options.headers}, (res) => {
      let body = ''
      res.on('data', (b) => (body += b))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const initialize = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}})
const mcpHeaders = {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream'}

describe('tasks mcp --http on loopback', () => {
  let repo: string
  let url: string
  let client: Client
  let task: string
  const events: Array<{content: string; meta: Record<string, string>}> = []
  const asA = {env: {TASKS_ACTOR: 'agent-a'}}

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'], asA)
    task = (await runJson(repo, ['add', 'Serve over HTTP'], asA)).task.id
    await runJson(repo, ['claim', task], asA)
    await runJson(repo, ['inbox', 'ack', '--all'], asA)
    const {started} = await serve(repo, ['--agent', 'agent-a', '--poll', '1s'], {TASKS_MCP_MAX_MESSAGE_BYTES: '65536'})
    const ajv = new Ajv({strict: true})
    const valid = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'mcp-http.schema.json'), 'utf8')))
    expect(valid(started), ajv.errorsText(valid.errors)).toBe(true)
    expect(started).toMatchObject({host: '127.0.0.1', exposed: false, token_required: false, agent: 'agent-a', list: 'main'})
    url = started.url
    client = new Client({name: 'http-client', version: '1'})
    client.setNotificationHandler(ChannelSchema, (n) => void events.push(n.params))
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  }, 30000)

  afterAll(async () => {
    await client?.close()
  })

  it('lists the tools, answers a read tool and a write tool; the CLI sees the write', async () => {
    expect(client.getServerCapabilities()?.experimental).toEqual({'claude/channel': {}})
    const {tools} = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['list', 'show', 'add', 'claim', 'done', 'poll_inbox']))
    const listed = (await client.callTool({name: 'list', arguments: {format: 'json'}})) as any
    expect(JSON.parse(listed.content[0].text).tasks.map((t: any) => t.title)).toContain('Serve over HTTP')
    const added = (await client.callTool({name: 'add', arguments: {title: 'Written over HTTP', format: 'json'}})) as any
    expect(added.isError).toBeFalsy()
    const id = JSON.parse(added.content[0].text).task.id
    expect((await runJson(repo, ['show', id])).task).toMatchObject({title: 'Written over HTTP', created_by: 'agent-a'})
  })

  it("pushes a record another process wrote for the agent as a claude/channel event, then it is seen", async () => {
    await runJson(repo, ['comment', task, 'HTTP push works'], {env: {TASKS_ACTOR: 'agent-b'}})
    await until(() => events.length >= 1)
    await until(async () => (await runJson(repo, ['inbox', '--as', 'agent-a'])).unseen === 0)
    expect(events).toHaveLength(1)
    expect(events[0]!.meta).toMatchObject({card: task, kind: 'comment', actor: 'agent-b', list: 'main'})
    expect(events[0]!.content).toContain('HTTP push works')
  }, 30000)

  it('refuses a body over the message limit (413), another Host (421), an unknown session (404), another path (404)', async () => {
    const big = JSON.stringify({jsonrpc: '2.0', id: 9, method: 'tools/call', params: {name: 'add', arguments: {title: 'x'.repeat(70000)}}})
    const tooBig = await raw(url, {headers: mcpHeaders, body: big})
    expect(tooBig.status).toBe(413)
    expect(JSON.parse(tooBig.body).error.data).toMatchObject({code: 'message_too_large', limit: 65536})
    const port = new URL(url).port
    expect((await raw(url, {headers: {...mcpHeaders, Host: `evil.example:${port}`}, body: initialize})).status).toBe(421)
    expect((await raw(url, {headers: {...mcpHeaders, 'Mcp-Session-Id': 'no-such-session'}, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}'})).status).toBe(404)
    expect((await raw(url.replace(/\/mcp$/, '/other'), {headers: mcpHeaders, body: initialize})).status).toBe(404)
    // Nothing of the oversized call was written.
    expect((await runJson(repo, ['list', '--all'])).tasks.some((t: any) => t.title.startsWith('xxxx'))).toBe(false)
  })
})

describe('tasks mcp --http beyond loopback', () => {
  it('does not start without a token; with one, every request needs it', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], {env: {TASKS_ACTOR: 'lead'}})
    const refused = await run(repo, ['mcp', '--http', '--host', '0.0.0.0', '--port', '0', '--json'])
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(JSON.parse(refused.stderr).error).toMatchObject({code: 'token_required', exit: 2})

    const token = 'tok-0123456789abcdef0123'
    const {started} = await serve(repo, ['--host', '0.0.0.0'], {TASKS_MCP_TOKEN: token, TASKS_ACTOR: 'lead'})
    expect(started).toMatchObject({exposed: true, token_required: true})
    const url = `http://127.0.0.1:${started.port}/mcp`
    // No token, a wrong one: 401, and the SDK's client cannot connect.
    expect((await raw(url, {headers: mcpHeaders, body: initialize})).status).toBe(401)
    expect((await raw(url, {headers: {...mcpHeaders, Authorization: 'Bearer tok-0123456789abcdef0124'}, body: initialize})).status).toBe(401)
    const anonymous = new Client({name: 'anonymous', version: '1'})
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow()
    // With the token: tools work.
    const client = new Client({name: 'with-token', version: '1'})
    await client.connect(new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers: {Authorization: `Bearer ${token}`}}}))
    try {
      const r = (await client.callTool({name: 'add', arguments: {title: 'Added with the token'}})) as any
      expect(r.isError).toBeFalsy()
      expect((await runJson(repo, ['list'])).tasks.map((t: any) => t.title)).toContain('Added with the token')
    } finally {
      await client.close()
    }
  }, 30000)
})
