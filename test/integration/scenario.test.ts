/**
 * Scenarios through the CLI (issue 33, item 2): `scenario start` makes the
 * list and seeds it in one commit, a retry writes nothing, a different
 * retry is refused with nothing written; `scenario status` follows the
 * members as they finish; `scenario list`; online, the scenario is
 * published through the remote and a second clone's retry finds it. And a
 * parent's progress in `list` and `show`, JSON and text.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

const as = (actor: string) => ({env: {TASKS_ACTOR: actor}})
const START = ['scenario', 'start', 'strath', '--member', 'api=Build the API', '--member', 'ui=Build the UI', '--member', 'docs=Write the docs', '--depends', 'ui:api', '--depends', 'docs:api,ui']
const commits = (repo: string, ref = 'refs/tasks/strath') => gitSync(repo, ['rev-list', '--count', ref]).trim()

describe('tasks scenario', () => {
  it('starts in one commit, retries idempotently, refuses another scenario under the name, and derives completion', async () => {
    const repo = makeRepo()
    const started = await runJson(repo, START, as('lead'))
    expect(started).toMatchObject({scenario: 'strath', ref: 'refs/tasks/strath', created: true, published: false})
    // The deterministic root (as init --list strath makes it) and ONE commit with every seed and the marker.
    expect(commits(repo)).toBe('2')
    const files = gitSync(repo, ['show', '--name-only', '--format=%s', 'refs/tasks/strath']).trim().split('\n')
    expect(files[0]).toBe('scenario_start: strath (3 members)')
    expect(files.filter((f) => f.endsWith('/task.md'))).toHaveLength(3)
    expect(files).toContain('scenario.yaml')
    const item = Object.fromEntries(started.members.map((m: any) => [m.member, m.item]))
    expect(item.api.assignee).toBe('api')
    expect(item.ui.depends_on).toEqual([item.api.id])
    expect([...item.docs.depends_on].sort()).toEqual([item.api.id, item.ui.id].sort())

    // The same command again: the scenario as it is, nothing written.
    const tip = gitSync(repo, ['rev-parse', 'refs/tasks/strath']).trim()
    const again = await runJson(repo, START, as('someone'))
    expect(again).toMatchObject({created: false, commit: null})
    expect(again.members.map((m: any) => m.item.id)).toEqual(started.members.map((m: any) => m.item.id))
    // Another task for a member: refused (exit 4), the ref unchanged.
    const other = await run(repo, [...START.slice(0, -4), '--json'], as('lead'))
    expect(other.code).toBe(4)
    expect(jsonError(other)).toMatchObject({code: 'scenario_mismatch'})
    const renamed = await run(repo, ['scenario', 'start', 'strath', '--member', 'api=Build the API', '--member', 'ui=Build the UI', '--member', 'docs=Other docs', '--depends', 'ui:api', '--depends', 'docs:api,ui'], as('lead'))
    expect(renamed.code).toBe(4)
    expect(renamed.stderr).toContain('member "docs" was given "Write the docs", not "Other docs"')
    expect(gitSync(repo, ['rev-parse', 'refs/tasks/strath']).trim()).toBe(tip)

    // Status as the members finish.
    const status = async () => runJson(repo, ['scenario', 'status', 'strath'], as('lead'))
    const row = (s: any, m: string) => s.members.find((r: any) => r.member === m)
    let s = await status()
    expect(s).toMatchObject({done: 0, total: 3, complete: false})
    expect(row(s, 'docs')).toMatchObject({state: 'waiting', waiting_on: ['api', 'ui'], done: 0, total: 1})
    const text = await run(repo, ['scenario', 'status', 'strath'], as('lead'))
    expect(text.stdout).toMatch(/^scenario strath: 0\/3 done, not complete\n/)
    expect(text.stdout).toMatch(/docs +tsk-\w+ +waiting +0\/1 +api, ui +Write the docs/)
    // api breaks its item down and finishes it; its own next hands it its seed.
    expect((await runJson(repo, ['--list', 'strath', 'next'], as('api'))).task.id).toBe(item.api.id)
    const sub = (await runJson(repo, ['--list', 'strath', 'add', 'The schema', '--parent', item.api.id], as('api'))).task
    expect((await runJson(repo, ['--list', 'strath', 'show', item.api.id], as('api'))).task.progress).toEqual({done: 0, total: 1})
    await runJson(repo, ['--list', 'strath', 'done', sub.id], as('api'))
    await runJson(repo, ['--list', 'strath', 'done', item.api.id], as('api'))
    s = await status()
    expect(row(s, 'api')).toMatchObject({state: 'done', done: 2, total: 2, complete: true})
    expect(row(s, 'ui')).toMatchObject({state: 'ready', waiting_on: []})
    expect(row(s, 'docs').waiting_on).toEqual(['ui'])
    for (const m of ['ui', 'docs']) {
      await runJson(repo, ['--list', 'strath', 'claim', item[m].id], as(m))
      await runJson(repo, ['--list', 'strath', 'done', item[m].id], as(m))
    }
    s = await status()
    expect(s).toMatchObject({done: 4, total: 4, complete: true})

    const listed = await runJson(repo, ['scenario', 'list'], as('lead'))
    expect(listed.scenarios).toEqual([expect.objectContaining({scenario: 'strath', members: ['api', 'docs', 'ui'], done: 4, total: 4, complete: true})])
    expect((await run(repo, ['scenario', 'status', 'nothing'], as('lead'))).code).toBe(3)
  })

  it('online: publishes through the remote; another clone retrying finds it', async () => {
    const bare = makeBareRepo()
    const one = makeRepo()
    gitSync(one, ['remote', 'add', 'origin', bare])
    gitSync(one, ['config', 'tasks.remote', 'origin'])
    const started = await runJson(one, START, as('lead'))
    expect(started).toMatchObject({created: true, published: true})
    expect(gitSync(bare, ['rev-parse', 'refs/tasks/strath']).trim()).toBe(started.commit)
    const two = tempDir('clone-')
    gitSync(two, ['init', '-q'])
    gitSync(two, ['remote', 'add', 'origin', bare])
    gitSync(two, ['config', 'tasks.remote', 'origin'])
    const again = await runJson(two, START, as('other'))
    expect(again).toMatchObject({created: false, published: true})
    expect(again.members.map((m: any) => m.item.id)).toEqual(started.members.map((m: any) => m.item.id))
    expect(commits(bare)).toBe('2')
    const refused = await run(two, ['scenario', 'start', 'strath', '--member', 'api=Build the API', '--json'], as('other'))
    expect(refused.code).toBe(4)
    expect(commits(bare)).toBe('2')
  })

  it('over MCP: scenario_start (and its retry), scenario_status, scenario_list from one long-lived server', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], as('lead'))
    const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'lead', '--toolsets', 'all'], cwd: repo, env: TEST_ENV, stderr: 'pipe'})
    const client = new Client({name: 'test-agent', version: '1.0.0'})
    await client.connect(transport)
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({name, arguments: {format: 'json', ...args}})) as {isError?: boolean; content: Array<{text?: string}>}
        return {error: r.isError === true, body: JSON.parse(r.content[0]!.text!)}
      }
      const args = {name: 'mcp-run', member: ['api=Build the API', 'ui=Build the UI'], depends: ['ui:api']}
      const first = await call('scenario_start', args)
      expect(first).toMatchObject({error: false, body: {created: true, published: false}})
      expect((await call('scenario_start', args)).body).toMatchObject({created: false, commit: null})
      expect((await call('scenario_start', {...args, depends: []})).body.error).toMatchObject({code: 'scenario_mismatch', exit: 4})
      const status = await call('scenario_status', {name: 'mcp-run', format: 'json'})
      expect(status.body.members.map((m: any) => [m.member, m.state, m.waiting_on])).toEqual([['api', 'ready', []], ['ui', 'waiting', ['api']]])
      expect((await call('scenario_list', {format: 'json'})).body.scenarios.map((x: any) => x.scenario)).toEqual(['mcp-run'])
    } finally {
      await client.close()
    }
    expect(commits(repo, 'refs/tasks/mcp-run')).toBe('2')
    // The server's own list is untouched.
    expect(commits(repo, 'refs/tasks/main')).toBe('1')
  })

  it('parents show done/total of their sub-items in list and show, JSON and text', async () => {
    const repo = makeRepo()
    const A = as('alice')
    await runJson(repo, ['init'], A)
    const parent = (await runJson(repo, ['add', 'Parent'], A)).task
    const kids = []
    for (const t of ['one', 'two', 'three']) kids.push((await runJson(repo, ['add', t, '--parent', parent.id], A)).task)
    await runJson(repo, ['done', kids[0].id], A)
    await runJson(repo, ['cancel', kids[1].id, '--reason', 'not needed'], A)
    const list = await runJson(repo, ['list', '--all'], A)
    const byId = Object.fromEntries(list.tasks.map((t: any) => [t.id, t.progress]))
    expect(byId[parent.id]).toEqual({done: 1, total: 2})
    expect(byId[kids[2].id]).toBeNull()
    expect((await runJson(repo, ['show', parent.id], A)).task.progress).toEqual({done: 1, total: 2})
    expect((await run(repo, ['list'], A)).stdout).toMatch(/Parent \[1\/2\]/)
    const shown = (await run(repo, ['show', parent.id], A)).stdout
    expect(shown).toMatch(/progress: +1\/2 sub-items done/)
    expect(shown).toContain('Sub-items  [1/2]')
  })
})
