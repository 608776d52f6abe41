/**
 * `tasks mcp` survives any message (issue 31, item 2). The SDK's own stdio
 * transport gives up on a line of 10 MiB or more and leaves a live, silent
 * process; our transport bounds each line, answers an oversized one with a
 * JSON-RPC error (with the request's id when it can be found), answers a
 * line that is not JSON with a parse error, and keeps serving. Every wait
 * here is bounded: a wedged server fails the test instead of hanging it.
 */
import {type ChildProcessWithoutNullStreams, execFileSync, spawn} from 'node:child_process'
import {symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, makeRepo, runJson, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

const MiB = 1024 * 1024
type ToolResult = {isError?: boolean; structuredContent?: any; content: Array<{type: string; text?: string}>}

/** `work`, or 'timeout' after `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function connect(repo: string, env: Record<string, string> = {}): Promise<{client: Client; transport: StdioClientTransport; stderr: () => string}> {
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--toolsets', 'all'], cwd: repo, env: {...TEST_ENV, TASKS_ACTOR: 'agent-a', ...env}, stderr: 'pipe'})
  let stderr = ''
  transport.stderr?.on('data', (b) => (stderr += b))
  const client = new Client({name: 'bounds-client', version: '1'})
  await client.connect(transport)
  return {client, transport, stderr: () => stderr}
}

describe('tasks mcp: one oversized message does not wedge the server', () => {
  let repo: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
  })

  it('an 11 MiB title is refused like any long title, and the next ping is answered', async () => {
    const {client} = await connect(repo)
    try {
      const answer = await within(client.callTool({name: 'add', arguments: {title: 'x'.repeat(11 * MiB)}}, undefined, {timeout: 30000}) as Promise<ToolResult>, 30000)
      expect(answer).not.toBe('timeout')
      const result = answer as ToolResult
      expect(result.isError).toBe(true)
      expect(JSON.parse(result.content[0]!.text!).error.code).toBe('title_too_long')
      expect(await within(client.ping(), 10000)).toEqual({})
      // And the server still writes.
      const added = (await client.callTool({name: 'add', arguments: {title: 'After the big one'}})) as ToolResult
      expect(added.isError).toBeFalsy()
    } finally {
      await client.close()
    }
  }, 60000)

  it('a message over the line limit gets a JSON-RPC error with its id; the server keeps serving', async () => {
    const {client, stderr} = await connect(repo, {TASKS_MCP_MAX_MESSAGE_BYTES: String(MiB)})
    try {
      const call = client.callTool({name: 'add', arguments: {title: 'y'.repeat(11 * MiB)}}, undefined, {timeout: 30000}).then(
        () => ({ok: true}),
        (error: {code?: number; message?: string}) => ({ok: false, code: error.code, message: error.message}),
      )
      const answer = await within(call, 30000)
      expect(answer).toMatchObject({ok: false, code: -32600})
      expect((answer as {message: string}).message).toMatch(/larger than|limit/)
      expect(await within(client.ping(), 10000)).toEqual({})
      const added = (await client.callTool({name: 'add', arguments: {title: 'Still serving'}})) as ToolResult
      expect(added.isError).toBeFalsy()
      expect(stderr()).toMatch(/message of more than 1048576 bytes/)
    } finally {
      await client.close()
    }
  }, 60000)
})

/** A raw stdio conversation: write lines, read the answers as they come. */
function rawServer(repo: string, env: Record<string, string> = {}): {child: ChildProcessWithoutNullStreams; answers: any[]; stderr: () => string; exited: Promise<number | null>} {
  const child = spawn(process.execPath, [BIN, 'mcp'], {cwd: repo, env: {...TEST_ENV, TASKS_ACTOR: 'agent-a', ...env}, stdio: ['pipe', 'pipe', 'pipe']})
  const answers: any[] = []
  let out = ''
  let err = ''
  child.stdout.on('data', (b) => {
    out += b
    let i: number
    while ((i = out.indexOf('\n')) >= 0) {
      answers.push(JSON.parse(out.slice(0, i)))
      out = out.slice(i + 1)
    }
  })
  child.stderr.on('data', (b) => (err += b))
  child.stdin.on('error', () => {})
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {child, answers, stderr: () => err, exited}
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 25))
  }
  return true
}

describe('tasks mcp: lines that cannot be read', () => {
  let repo: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
  })

  it('an 11 MiB line with no id over the limit: an error with id null, a line on stderr, and the ping after it answered', async () => {
    const s = rawServer(repo, {TASKS_MCP_MAX_MESSAGE_BYTES: String(MiB)})
    try {
      s.child.stdin.write(`${'z'.repeat(11 * MiB)}\n`)
      s.child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id: 7, method: 'ping'})}\n`)
      expect(await until(() => s.answers.some((a) => a.id === 7), 20000)).toBe(true)
      expect(s.answers[0]).toMatchObject({jsonrpc: '2.0', id: null, error: {code: -32600}})
      expect(s.answers.find((a) => a.id === 7)).toEqual({jsonrpc: '2.0', id: 7, result: {}})
      expect(s.stderr()).toMatch(/git-tasks mcp: .*more than 1048576 bytes/)
    } finally {
      s.child.stdin.end()
      expect(await within(s.exited, 10000)).toBe(0)
    }
  }, 60000)

  it('an over-limit request whose id comes first or last is answered with that id', async () => {
    const s = rawServer(repo, {TASKS_MCP_MAX_MESSAGE_BYTES: String(MiB)})
    try {
      const big = 'q'.repeat(2 * MiB)
      s.child.stdin.write(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"add","arguments":{"title":"${big}"}}}\n`)
      // The SDK's client writes the id last.
      s.child.stdin.write(`{"method":"tools/call","params":{"name":"add","arguments":{"title":"${big}","x":{"id":99}}},"jsonrpc":"2.0","id":42}\n`)
      s.child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id: 8, method: 'ping'})}\n`)
      expect(await until(() => s.answers.length >= 3, 20000)).toBe(true)
      const byId = new Map(s.answers.map((a) => [a.id, a]))
      expect([...byId.keys()].sort()).toEqual([42, 8, 'first'].sort())
      expect(byId.get('first').error).toMatchObject({code: -32600, data: {code: 'message_too_large', limit: MiB}})
      expect(byId.get(42).error.code).toBe(-32600)
      expect(byId.get(8).result).toEqual({})
    } finally {
      s.child.stdin.end()
      await within(s.exited, 10000)
    }
  }, 60000)

  it('a line that is not JSON gets a parse error (id null) and the server keeps serving', async () => {
    const s = rawServer(repo)
    try {
      s.child.stdin.write('this is not json\n')
      s.child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id: 9, method: 'ping'})}\n`)
      expect(await until(() => s.answers.some((a) => a.id === 9), 20000)).toBe(true)
      expect(s.answers[0]).toMatchObject({jsonrpc: '2.0', id: null, error: {code: -32700}})
      // The error never quotes the line.
      expect(JSON.stringify(s.answers[0])).not.toContain('this is not json')
    } finally {
      s.child.stdin.end()
      await within(s.exited, 10000)
    }
  }, 30000)
})

describe('tasks mcp: a client that went away', () => {
  it('a write that fails (stdout closed) ends the process with exit 1 and a line on stderr', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const s = rawServer(repo)
    s.child.stdout.destroy()
    s.child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping'})}\n`)
    expect(await within(s.exited, 15000)).toBe(1)
    expect(s.stderr()).toMatch(/git-tasks mcp: .*(EPIPE|failed)/)
  }, 30000)
})

describe('tasks mcp import: no file outside the repository', () => {
  let repo: string
  let client: Client
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({name, arguments: args})) as ToolResult
  const error = (r: ToolResult): any => (expect(r.isError).toBe(true), JSON.parse(r.content[0]!.text!).error)

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    ;({client} = await connect(repo))
  })
  afterAll(async () => {
    await client?.close()
  })

  it('refuses /etc/passwd, /dev/zero, a relative escape and a symlink leaving the work tree, quoting nothing', async () => {
    const outside = join(tempDir('outside-'), 'secret.json')
    writeFileSync(outside, 'root:x:0:0:SECRET-CONTENT\n')
    symlinkSync(outside, join(repo, 'link.json'))
    for (const file of ['/etc/passwd', '/dev/zero', outside, '../../../../../../etc/passwd', 'link.json']) {
      const r = await within(call('import', {file}), 20000)
      expect(r, file).not.toBe('timeout')
      const e = error(r as ToolResult)
      expect(e.code, file).toBe('path_outside_repository')
      expect(JSON.stringify(e), file).not.toMatch(/root:x|SECRET-CONTENT/)
    }
    expect(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe('1')
  }, 60000)

  it('a file in the work tree that is not JSON is bad_import, without its contents', async () => {
    writeFileSync(join(repo, 'notes.txt'), 'root:x:0:0:SECRET-CONTENT\n')
    const e = error(await call('import', {file: 'notes.txt'}))
    expect(e.code).toBe('bad_import')
    expect(JSON.stringify(e)).not.toMatch(/root:x|SECRET-CONTENT/)
  })

  it('a file in the work tree over the import limit is import_too_large; a FIFO is not waited on', async () => {
    const small = await connect(repo, {TASKS_IMPORT_MAX_BYTES: '1024'})
    try {
      writeFileSync(join(repo, 'big.json'), `[${' '.repeat(4096)}]`)
      const r = (await small.client.callTool({name: 'import', arguments: {file: 'big.json'}})) as ToolResult
      expect(error(r)).toMatchObject({code: 'import_too_large', limit: 1024})
      execFileSync('mkfifo', [join(repo, 'pipe.json')])
      const f = await within(small.client.callTool({name: 'import', arguments: {file: 'pipe.json'}}) as Promise<ToolResult>, 10000)
      expect(f).not.toBe('timeout')
      expect(error(f as ToolResult).code).toBe('bad_file')
    } finally {
      await small.client.close()
    }
  }, 30000)

  it('a file in the git directory is refused too', async () => {
    const e = error(await call('import', {file: '.git/config'}))
    expect(e.code).toBe('path_outside_repository')
  })
})
