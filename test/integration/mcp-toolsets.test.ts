/**
 * Issue 35, MCP toolsets: the default surface (core) is small enough for
 * every agent's context, `--toolsets all` reaches every operation, writes
 * answer compactly unless asked for JSON, and error hints name tools. A
 * key a tool does not declare is refused, not dropped.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, makeRepo, runJson} from '../helpers/cli'
import {OPERATIONS} from '../../src/operations/table'
import {toolName} from '../../src/operations/spec'

async function connect(cwd: string, extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'agent-a', ...extra], cwd, env: TEST_ENV, stderr: 'pipe'})
  const client = new Client({name: 'test', version: '1'})
  await client.connect(transport)
  return client
}

const text = (r: any): string => r.content.map((c: any) => c.text ?? '').join('')

afterAll(() => cleanupAll())

describe('tasks mcp toolsets', () => {
  it('serves core by default within 14,000 characters of tools/list, and writes answer compactly', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const added = await runJson(repo, ['add', 'Wire the parser'])
    const id = added.task?.id ?? added.id
    const check = await runJson(repo, ['check', 'add', id, '--test', 'npm test passes'])
    const checkId = check.check.id
    const c = await connect(repo, [])
    try {
      const listed = await c.listTools()
      const chars = JSON.stringify(listed).length
      expect(chars).toBeLessThanOrEqual(14_000)
      const names = listed.tools.map((t) => t.name).sort()
      expect(names).toEqual(['block', 'check_pass', 'checkpoint', 'claim', 'comment', 'done', 'heartbeat', 'inbox', 'list', 'next', 'poll_inbox', 'release', 'show', 'toolsets'].sort())
      // The discovery tool names the other toolsets and what they hold.
      const sets = text(await c.callTool({name: 'toolsets', arguments: {}}))
      expect(sets).toMatch(/^served: core$/m)
      expect(sets).toMatch(/^planning\|\|.*\badd\b/m)
      // A tool outside core is unknown here.
      expect((await c.callTool({name: 'add', arguments: {title: 'x'}})).isError).toBe(true)
      await c.callTool({name: 'next', arguments: {}})
      // done before the check passed: the hint names the tool and its parameters, not the CLI.
      const refused = JSON.parse(text(await c.callTool({name: 'done', arguments: {id}})))
      expect(refused.error.code).toBe('checks_pending')
      expect(refused.error.message).toContain('check_pass {id: ')
      expect(refused.error.message).not.toContain('tasks check pass')
      const cp = text(await c.callTool({name: 'checkpoint', arguments: {id, summary: 'written', next: 'test'}}))
      expect(cp).toMatch(/^# git-tasks compact 1: checkpoint/)
      expect(cp).toMatch(/^task\.state: in_progress$/m)
      const passed = await c.callTool({name: 'check_pass', arguments: {id, check: checkId, evidence: 'npm test: 12 passed', format: 'json'}})
      expect(JSON.parse(text(passed)).check.status).toBe('passed')
      const done = text(await c.callTool({name: 'done', arguments: {id}}))
      expect(done).toMatch(/^task\.state: done$/m)
      expect(done.length).toBeLessThan(400)
      // A page that stops short says how to get the next one, and that call gets it.
      await runJson(repo, ['add', 'Second'])
      await runJson(repo, ['add', 'Third'])
      const first = text(await c.callTool({name: 'list', arguments: {limit: 1}}))
      const cursor = /^# more: call list again with the same arguments and cursor: "([^"]+)"$/m.exec(first)?.[1]
      expect(cursor).toBeTruthy()
      const second = text(await c.callTool({name: 'list', arguments: {limit: 1, cursor}}))
      expect(second).toMatch(/^tasks\[1\]/m)
      expect(second.split('\n').find((l) => /^[0-9a-z]{4,}\|/.test(l))).not.toBe(first.split('\n').find((l) => /^[0-9a-z]{4,}\|/.test(l)))
    } finally {
      await c.close()
    }
  })

  it('--toolsets all reaches every operation; an unknown toolset is a usage error', async () => {
    const repo = makeRepo()
    const c = await connect(repo, ['--toolsets', 'all'])
    try {
      const names = new Set((await c.listTools()).tools.map((t) => t.name))
      for (const spec of OPERATIONS.filter((s) => s.mcp !== false)) expect(names.has(toolName(spec)), toolName(spec)).toBe(true)
    } finally {
      await c.close()
    }
    const bad = await runJson(repo, ['mcp', 'list-tools', '--toolsets', 'nope'], {expect: 2})
    expect(bad.error.code).toBe('usage')
    // mcp install writes the flag into the client's command line (nothing for the default).
    const installed = await runJson(repo, ['mcp', 'install', '--toolsets', 'planning,history'])
    expect(installed.entries[0].server.args).toEqual(['mcp', '--toolsets', 'core,planning,history'])
    expect((await runJson(repo, ['mcp', 'install'])).entries[0].server.args).toEqual(['mcp'])
  })

  it('a key a tool does not declare is refused (usage, exit 2), naming the key and the tool; nothing is written', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const id = (await runJson(repo, ['add', 'Wire the parser'])).task.id
    const tip = () => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
    const before = tip()
    const shown = (await runJson(repo, ['show', id])).task
    const c = await connect(repo, [])
    try {
      // A misspelt lease on a write: refused before anything runs, the item stays open and the ref where it was.
      const refused = await c.callTool({name: 'claim', arguments: {id, lesae: '2h'}})
      expect(refused.isError).toBe(true)
      const error = JSON.parse(text(refused)).error
      expect(error).toMatchObject({code: 'usage', exit: 2, field: 'lesae'})
      expect(error.message).toMatch(/^claim does not take "lesae": its arguments are id, .*\blease\b.*; nothing was written$/)
      expect(tip()).toBe(before)
      expect((await runJson(repo, ['show', id])).task).toEqual(shown)
      // Every unknown key is named; a read tool says nothing was done.
      const read = JSON.parse(text(await c.callTool({name: 'list', arguments: {stat: 'open', colour: 'red'}}))).error
      expect(read).toMatchObject({code: 'usage', exit: 2, field: 'stat'})
      expect(read.message).toMatch(/^list does not take "stat", "colour": .*; nothing was done$/)
      // The same call with the declared key goes through; format: "json" is taken by every tool.
      const claimed = JSON.parse(text(await c.callTool({name: 'claim', arguments: {id, lease: '2h', format: 'json'}})))
      expect(claimed.task.state).toBe('in_progress')
      expect(tip()).not.toBe(before)
    } finally {
      await c.close()
    }
  })
})
