/**
 * Time travel (`--at WHEN`, docs/history.md): a list is built through
 * varied mutations, each at its own pinned time (TASKS_NOW); after each one
 * the commit and what `list --json` and `show --json` said are recorded
 * (in-process, through the same use cases the commands call). Then every
 * recorded commit is read back with `at`, through one MCP server (every
 * commit) and the command line (a few, plus the other forms of WHEN), and
 * must give what was recorded, minus the `at` field. Reading the past must
 * leave the live index and search caches untouched, byte for byte.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import Ajv from 'ajv'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {startBoard} from '../helpers/board'
import {Session} from '../../src/app/session'
import {list, show} from '../../src/app/list-query'

afterAll(() => cleanupAll())

const T0 = Date.parse('2030-01-01T10:00:00.000Z')
const minutes = (n: number) => new Date(T0 + n * 60_000).toISOString()
const as = (actor: string, step: number) => ({env: {TASKS_ACTOR: actor, TASKS_NOW: minutes(step), TZ: 'UTC'}})
const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as Record<string, unknown>
const withoutAt = (x: Record<string, unknown>) => {
  const {at: _at, ...rest} = x
  return rest
}

const ajv = new Ajv({strict: true, allErrors: true})
const SCHEMAS = join(ROOT, 'schemas', 'output')
for (const f of readdirSync(SCHEMAS).filter((n) => n.endsWith('.schema.json'))) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')))
function valid(schema: string, body: unknown): void {
  const v = ajv.getSchema(`https://git-tasks.dev/schemas/output/${schema}.schema.json`)!
  if (!v(body)) throw new Error(`not ${schema}.schema.json: ${ajv.errorsText(v.errors)}`)
}

interface Recorded {
  step: number
  commit: string
  focus: string
  list: Record<string, unknown>
  show: Record<string, unknown>
}

describe('time travel against the states recorded while building a list', () => {
  let repo: string
  const recorded: Recorded[] = []
  const ids: Record<string, string> = {}
  const tip = () => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()

  /** The list and one card as `list --all --json` and `show ID --json` say them now, at the step's time. */
  async function record(step: number, focus: string): Promise<void> {
    Object.assign(process.env, TEST_ENV, {TASKS_ACTOR: 'alice', TASKS_NOW: minutes(step)})
    const session = await Session.open({cwd: repo, list: 'main'})
    try {
      const listed = plain(await list(session, {all: true, unbounded: true}))
      const shown = plain(await show(session, {id: focus}))
      recorded.push({step, commit: tip(), focus, list: listed, show: shown})
    } finally {
      session.close()
    }
  }

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'], as('alice', 0))
    const add = async (key: string, step: number, args: string[], actor = 'alice') => {
      ids[key] = (await runJson(repo, ['add', ...args], as(actor, step))).task.id
      await record(step, ids[key]!)
    }
    const act = async (step: number, focus: string, args: string[], actor = 'alice') => {
      await runJson(repo, args, as(actor, step))
      await record(step, ids[focus]!)
    }
    await add('A', 1, ['Parse the config', '--body', 'Read config.yaml', '--tags', 'backend'])
    await add('B', 2, ['Write the loader', '-p', '1'])
    await add('C', 3, ['Document the format', '--parent', ids.B!])
    await act(4, 'B', ['deps', ids.B!, ids.A!])
    await act(5, 'A', ['claim', ids.A!])
    await act(6, 'A', ['edit', ids.A!, '--title', 'Parse the config file', '--priority', '0'])
    await act(7, 'A', ['comment', ids.A!, 'halfway: the tokenizer works'])
    await act(8, 'A', ['done', ids.A!])
    // A short lease: read at a later clock the claim would be stale; read as of its commit it is live.
    await act(9, 'C', ['claim', ids.C!, '--lease', '5m'], 'bob')
    await act(10, 'C', ['done', ids.C!], 'bob')
    await add('D', 11, ['Throwaway idea', '--tags', 'later'])
    await act(12, 'B', ['rm', ids.D!, '--confirm', ids.D!, '--reason', 'duplicate'])
    await act(13, 'D', ['restore', ids.D!])
    await act(14, 'B', ['assign', ids.B!, 'bob'])
    await act(15, 'B', ['rm', ids.D!, '--confirm', ids.D!, '--reason', 'really a duplicate'])
    // A live search, so the search cache exists (and is current) before the past is read.
    await runJson(repo, ['search', 'config'], as('alice', 16))
  }, 120_000)

  it('reads every recorded commit back as it was, over MCP; the caches stay as they were', async () => {
    expect(new Set(recorded.map((r) => r.commit)).size).toBe(recorded.length)
    const cacheDir = join(gitSync(repo, ['rev-parse', '--git-common-dir']).trim().replace(/^(?!\/)/, `${repo}/`), 'git-tasks')
    const caches = () => readdirSync(cacheDir).sort().map((f) => ({f, bytes: readFileSync(join(cacheDir, f)).toString('base64'), mtime: statSync(join(cacheDir, f)).mtimeMs}))
    const before = caches()
    expect(before.map((c) => c.f)).toEqual(expect.arrayContaining(['index-main', 'search-main.idx']))
    const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'carol', '--toolsets', 'all'], cwd: repo, env: {...TEST_ENV, TASKS_NOW: minutes(60)}, stderr: 'pipe'})
    const client = new Client({name: 'time-travel-test', version: '1'})
    await client.connect(transport)
    try {
      const callJson = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({name, arguments: {...args, format: 'json'}})) as {isError?: boolean; content: Array<{text?: string}>}
        const body = JSON.parse(r.content[0]?.text ?? '')
        if (r.isError) throw new Error(JSON.stringify(body))
        return body as Record<string, unknown>
      }
      for (const r of recorded) {
        // `limit` as the command line's default page (list_limit), so both pages say the same.
        const listed = await callJson('list', {all: true, limit: 2000, at: r.commit})
        expect(listed.at, `step ${r.step}`).toMatchObject({input: r.commit, commit: r.commit})
        expect(withoutAt(listed), `list at step ${r.step}`).toEqual(r.list)
        const shown = await callJson('show', {id: r.focus, at: r.commit.slice(0, 10)})
        expect(withoutAt(shown), `show at step ${r.step}`).toEqual(r.show)
        valid('list', listed)
        valid('show', shown)
      }
      // A write tool never reads the past: `at` is refused, nothing is written.
      const head = tip()
      const refused = (await client.callTool({name: 'claim', arguments: {id: ids.B!, at: recorded[0]!.commit}})) as {isError?: boolean; content: Array<{text?: string}>}
      expect(refused.isError).toBe(true)
      expect(JSON.parse(refused.content[0]!.text!).error).toMatchObject({code: 'usage', exit: 2})
      expect(tip()).toBe(head)
    } finally {
      await client.close()
    }
    // The command line: list, show (by a prefix of a card removed since) and search at past commits.
    const atStep = (n: number) => recorded.find((r) => r.step === n)!
    const cli = (args: string[]) => runJson(repo, args, as('carol', 60))
    const listed = await cli(['list', '--all', '--at', atStep(7).commit])
    expect(withoutAt(listed)).toEqual(atStep(7).list)
    valid('list', listed)
    const removedNow = await run(repo, ['show', ids.D!, '--json'], as('carol', 60))
    expect(removedNow.code).toBe(3)
    const shown = await cli(['show', ids.D!.slice(0, 8), '--at', atStep(14).commit])
    expect(shown.task.id).toBe(ids.D)
    expect(withoutAt(shown)).toEqual(plain((await sessionShow(repo, ids.D!, atStep(14).commit))))
    const found = await cli(['search', 'config', '--at', atStep(2).commit])
    valid('search', found)
    expect(found.at.commit).toBe(atStep(2).commit)
    expect(found.results.map((h: {task: {id: string; title: string; state: string}}) => [h.task.id, h.task.title, h.task.state])).toEqual([[ids.A, 'Parse the config', 'ready']])
    expect((await cli(['search', 'config'])).results[0].task.title).toBe('Parse the config file')
    expect(caches()).toEqual(before)
  }, 120_000)

  it('takes durations, dates and times; says which state it shows; refuses bad WHEN, times before the list and writes', async () => {
    const atStep = (n: number) => recorded.find((r) => r.step === n)!
    const now = as('carol', 20)
    // 13 minutes before 10:20 is 10:07, step 7's commit; a time between two commits names the earlier one.
    const ago = await runJson(repo, ['list', '--all', '--at', '13m'], now)
    expect(ago.at).toMatchObject({input: '13m', commit: atStep(7).commit})
    expect(withoutAt(ago)).toEqual(atStep(7).list)
    const between = await runJson(repo, ['show', ids.A!, '--at', '2030-01-01T10:05:30Z'], now)
    expect(between.at.commit).toBe(atStep(5).commit)
    expect(withoutAt(between)).toEqual(atStep(5).show)
    const local = await runJson(repo, ['list', '--all', '--at', '2030-01-01 10:09'], now)
    expect(local.at.commit).toBe(atStep(9).commit)
    // Text: the first line says which state is shown.
    const text = await run(repo, ['list', '--all', '--at', atStep(3).commit.slice(0, 7)], now)
    expect(text.code).toBe(0)
    expect(text.stdout.split('\n')[0]).toBe(`viewing the list as of 2030-01-01T10:03:00+00:00 (commit ${atStep(3).commit.slice(0, 7)})`)
    expect(text.stdout).toContain('Document the format')
    expect(text.stdout).not.toContain('Throwaway')
    // graph and export at a commit carry `at` too; events stop there.
    const graph = await runJson(repo, ['graph', '--at', atStep(4).commit], now)
    valid('graph', graph)
    expect(graph.commit).toBe(atStep(4).commit)
    expect(graph.nodes.map((n: {id: string}) => n.id).sort()).toEqual([ids.A, ids.B, ids.C].sort())
    const exported = await runJson(repo, ['export', '--at', atStep(11).commit], now)
    valid('export', exported)
    expect(exported.tasks.map((t: {id: string}) => t.id).sort()).toEqual([ids.A, ids.B, ids.C, ids.D].sort())
    const events = await run(repo, ['events', '--json', '--at', atStep(3).commit], now)
    expect(events.stdout.trim().split('\n').map((l) => JSON.parse(l).op)).toEqual(['init', 'add', 'add', 'add'])
    // Refusals: nothing written, the documented exit codes.
    const head = tip()
    const bad = await run(repo, ['list', '--at', 'last tuesday', '--json'], now)
    expect([bad.code, jsonError(bad).code]).toEqual([2, 'bad_when'])
    const early = await run(repo, ['list', '--at', '2029-12-31', '--json'], now)
    expect([early.code, jsonError(early).code]).toEqual([3, 'at_not_found'])
    const unknown = await run(repo, ['show', ids.A!, '--at', 'deadbeef', '--json'], now)
    expect([unknown.code, jsonError(unknown).code]).toEqual([3, 'at_not_found'])
    const follow = await run(repo, ['events', '--follow', '--at', '1h', '--json'], now)
    expect(follow.code).toBe(2)
    const mutation = await run(repo, ['claim', ids.B!, '--at', '1h', '--json'], now)
    expect(mutation.code).toBe(2)
    expect(jsonError(mutation).message).toMatch(/does not take --at: it works on the list as it is now; .*nothing was done/)
    const batch = await run(repo, ['batch', '-', '--json'], {...now, input: JSON.stringify([{op: 'claim', id: ids.B, at: '1h'}])})
    expect([batch.code, jsonError(batch).code]).toEqual([2, 'bad_batch_op'])
    expect(tip()).toBe(head)
  }, 120_000)

  it('the board at ?at=: the pages as of then, a banner back to now, no actions', async () => {
    const atStep = (n: number) => recorded.find((r) => r.step === n)!
    const board = await startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead', TASKS_NOW: minutes(60)})
    try {
      const get = async (path: string) => {
        const r = await fetch(`${board.origin}${path}`, {headers: {'X-Board-Token': board.token, Cookie: `tasks_board_${board.port}=${board.token}`}})
        return {status: r.status, text: await r.text()}
      }
      const c = atStep(13).commit
      const page = await get(`/?at=${c}`)
      expect(page.status).toBe(200)
      expect(page.text).toContain(`viewing the list as of 2030-01-01T10:13:00+00:00 (commit ${c.slice(0, 7)})`)
      expect(page.text).toContain('<a href="/" id="back-to-now">back to now</a>')
      // D was restored at step 13 and removed again since: there then, not now.
      expect(page.text).toContain('Throwaway idea')
      expect(page.text).toContain(`href="/task/${ids.D}?at=${c}"`)
      expect(page.text).toContain('<meta name="board-token" content="">')
      const live = await get('/')
      expect(live.text).not.toContain('Throwaway idea')
      expect(live.text).not.toContain('viewing the list as of')
      expect(live.text).toContain(`<meta name="board-token" content="${board.token}">`)
      const card = await get(`/task/${ids.D}?at=${c}`)
      expect(card.status).toBe(200)
      expect(card.text).toContain('Throwaway idea')
      expect((await get(`/task/${ids.D}`)).status).toBe(404)
      // The filter keeps the point in time, and so does the export link: the export is of the list then.
      expect(page.text).toContain(`<input type="hidden" name="at" value="${c}">`)
      expect(page.text).toContain(`href="/export?at=${c}"`)
      const past = JSON.parse((await get(`/export?at=${c}`)).text)
      expect(past.at).toMatchObject({commit: c})
      expect(past.tasks.map((t: {id: string}) => t.id)).toContain(ids.D)
      expect(JSON.parse((await get('/export')).text).tasks.map((t: {id: string}) => t.id)).not.toContain(ids.D)
      expect((await get('/?at=yesterday-ish')).status).toBe(400)
      expect((await get('/?at=2029-06-01')).status).toBe(404)
    } finally {
      await board.stop()
    }
  }, 60_000)

  it('through a shared remote: a clone reads, at a commit another clone made, what that clone saw', async () => {
    const bare = makeBareRepo()
    const clone = (): string => {
      const dir = tempDir('clone-')
      gitSync(dir, ['clone', '-q', bare, '.'])
      return dir
    }
    const one = clone()
    await runJson(one, ['init', '--remote', 'origin'], as('alice', 0))
    const two = clone()
    await runJson(two, ['init', '--remote', 'origin'], as('bob', 0))
    const a = (await runJson(one, ['add', 'Made on one'], as('alice', 1))).task.id
    const seen = await runJson(one, ['list', '--all'], as('alice', 1))
    // Two writes offline on the other clone, then a sync: its merge joins the two lines.
    await runJson(two, ['add', 'Made on two', '--offline'], as('bob', 2))
    await runJson(two, ['sync'], as('bob', 3))
    const there = await runJson(two, ['list', '--all', '--at', seen.commit], as('bob', 4))
    expect(there.at.commit).toBe(seen.commit)
    expect(withoutAt(there)).toEqual(seen)
    const now = await runJson(two, ['list', '--all'], as('bob', 4))
    expect(now.tasks.map((t: {title: string}) => t.title).sort()).toEqual(['Made on one', 'Made on two'])
    expect((await runJson(two, ['show', a.slice(0, 8), '--at', seen.commit.slice(0, 12)], as('bob', 4))).task.title).toBe('Made on one')
  }, 60_000)

  it('dates a commit found through the batch reader as git log %cI does, whatever its offset', async () => {
    const {committerDate} = await import('../../src/refstore/history')
    const commit = (line: string) => `tree ${'0'.repeat(40)}\nauthor a <a> 1 +0000\ncommitter ${line}\n\nmessage\ncommitter x <x> 9 +0000\n`
    expect(committerDate(commit('Bob <b@x> 1893492000 +0000'))).toBe('2030-01-01T10:00:00+00:00')
    expect(committerDate(commit('Bob <b@x> 1893492000 +0530'))).toBe('2030-01-01T15:30:00+05:30')
    expect(committerDate(commit('Bob <b@x> 1893492000 -0800'))).toBe('2030-01-01T02:00:00-08:00')
    expect(committerDate('tree x\n\nno committer')).toBeNull()
  })

  /** `show` as the in-process use case gives it on a session pinned at `commit` (its own clock). */
  async function sessionShow(cwd: string, id: string, commit: string) {
    const session = await Session.open({cwd, list: 'main'})
    try {
      const {pastSession} = await import('../../src/app/time-travel')
      const {past} = await pastSession(session, commit)
      return await show(past, {id})
    } finally {
      session.close()
    }
  }
})
