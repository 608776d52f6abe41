/**
 * Spec ownership and revisions (issue 32, item 2) and task types with
 * deeper nesting (item 12), through the built CLI, a batch, the MCP server
 * and the server guard: a non-holder's spec change of a live claim is
 * refused with nothing written unless forced with a reason, the reason
 * shows in `show --revisions`; a forged spec edit is refused by `verify`;
 * types are validated and listed; max_depth 3 nests three levels and a
 * parent is not done while a grandchild is open.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {initializedRepo} from '../helpers/list-repo'
import {putFileOnRef, taskPath} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const ALICE = {env: {TASKS_ACTOR: 'alice'}}
const BOB = {env: {TASKS_ACTOR: 'bob'}}
const tip = (dir: string) => gitSync(dir, ['rev-parse', REF]).trim()

describe('spec ownership and revisions', {timeout: 120_000}, () => {
  it('refuses a non-holder\'s edit, deps and check add (exit 6, nothing written); --force --reason goes through and shows in show --revisions', async () => {
    const dir = await initializedRepo()
    const id = (await runJson(dir, ['add', 'Parse dates', '--body', 'ISO only'], ALICE)).task.id as string
    const other = (await runJson(dir, ['add', 'Other'], ALICE)).task.id as string
    await runJson(dir, ['claim', id], ALICE)
    const before = tip(dir)
    for (const args of [
      ['edit', id, '--title', 'Retitled'],
      ['edit', id, '--type', 'bug'],
      ['deps', id, other],
      ['check', 'add', id, '--test', 'npm test'],
    ]) {
      const r = await run(dir, [...args, '--json'], BOB)
      expect(r.code, args.join(' ')).toBe(6)
      expect(jsonError(r)).toMatchObject({code: 'not_owner'})
      expect(tip(dir), args.join(' ')).toBe(before)
    }
    // The same through a batch: all or nothing, nothing written.
    const batch = await run(dir, ['batch', '-', '--json'], {...BOB, input: JSON.stringify([{op: 'edit', id, title: 'Batched'}])})
    expect(batch.code).toBe(6)
    expect(tip(dir)).toBe(before)
    // --force without a reason is a usage error; with one it goes through.
    expect((await run(dir, ['edit', id, '--title', 'Retitled', '--force'], BOB)).code).toBe(2)
    await runJson(dir, ['edit', id, '--title', 'Parse ISO dates', '--force', '--reason', 'alice is away, the title was wrong'], BOB)
    // The holder needs no force; a reason is recorded all the same.
    await runJson(dir, ['edit', id, '--body', 'ISO and RFC 2822', '--type', 'feature', '--reason', 'RFC 2822 is needed too'], ALICE)
    await runJson(dir, ['deps', id, other, '--reason', 'needs the other first'], ALICE)
    await runJson(dir, ['check', 'add', id, '--acceptance', 'both formats parse', '--reason', 'make it checkable'], ALICE)
    const shown = await runJson(dir, ['show', id, '--revisions'], ALICE)
    expect(shown.task.type).toBe('feature')
    const revs = shown.revisions as Array<{revision: number; actor: string; reason: string | null; forced: boolean; changes: Array<{field: string; before: unknown; after: unknown}>; commit: string}>
    expect(revs.map((r) => [r.revision, r.actor, r.reason, r.forced])).toEqual([
      [1, 'alice', null, false],
      [2, 'bob', 'alice is away, the title was wrong', true],
      [3, 'alice', 'RFC 2822 is needed too', false],
      [4, 'alice', 'needs the other first', false],
      [5, 'alice', 'make it checkable', false],
    ])
    expect(revs[1]!.changes).toEqual([{field: 'title', before: 'Parse dates', after: 'Parse ISO dates'}])
    expect(revs[2]!.changes).toEqual([
      {field: 'description', before: 'ISO only', after: 'ISO and RFC 2822'},
      {field: 'type', before: 'task', after: 'feature'},
    ])
    expect(revs[3]!.changes).toEqual([{field: 'depends_on', before: [], after: [other]}])
    expect(revs[4]!.changes[0]).toMatchObject({field: 'check', before: null, after: {kind: 'acceptance', text: 'both formats parse'}})
    // Each revision names its commit: the reason is in that commit's trailers (never stored twice).
    expect(gitSync(dir, ['log', '-1', '--format=%B', revs[1]!.commit])).toMatch(/Tasks-Override: alice is away, the title was wrong/)
    const text = await run(dir, ['show', id, '--revisions'], ALICE)
    expect(text.stdout).toMatch(/r2 .* bob .*override: alice is away/)
    expect(text.stdout).toContain('title: "Parse dates" → "Parse ISO dates"')
  })

  it('the MCP edit tool refuses a non-holder and takes force with a reason', async () => {
    const dir = await initializedRepo()
    const id = (await runJson(dir, ['add', 'Held'], ALICE)).task.id as string
    await runJson(dir, ['claim', id], ALICE)
    const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'bob', '--toolsets', 'all'], cwd: dir, env: {...TEST_ENV}, stderr: 'pipe'})
    const client = new Client({name: 'test-agent', version: '1.0.0'})
    await client.connect(transport)
    try {
      const refused = (await client.callTool({name: 'edit', arguments: {id, title: 'Hijacked'}})) as {isError?: boolean; content: Array<{text?: string}>}
      expect(refused.isError).toBe(true)
      expect(JSON.parse(refused.content[0]!.text!).error).toMatchObject({code: 'not_owner', exit: 6})
      const forced = (await client.callTool({name: 'edit', arguments: {id, title: 'Fixed', type: 'bug', force: true, reason: 'on call', format: 'json'}})) as {isError?: boolean; content: Array<{text?: string}>}
      expect(forced.isError, forced.content[0]?.text).toBeFalsy()
      expect(JSON.parse(forced.content[0]!.text!).task).toMatchObject({title: 'Fixed', type: 'bug'})
    } finally {
      await client.close()
    }
  })

  it('the guard refuses a forged spec edit of someone else\'s live claim, and accepts the forced one', async () => {
    const dir = await initializedRepo()
    const id = (await runJson(dir, ['add', 'Guarded', '--body', 'the plan'], ALICE)).task.id as string
    await runJson(dir, ['claim', id], ALICE)
    const good = tip(dir)
    const path = taskPath(dir, id)
    const text = gitSync(dir, ['cat-file', '-p', `${REF}:${path}`])
    const revision = Number(/^revision: (\d+)$/m.exec(text)![1])
    const forge = (edit: (t: string) => string, message: string) => {
      gitSync(dir, ['update-ref', REF, good])
      const bumped = edit(text).replace(/^revision: .*$/m, `revision: ${revision + 1}`).replace(/^updated_by: .*$/m, 'updated_by: "bob"')
      return putFileOnRef(dir, path, bumped, message)
    }
    for (const [what, edit] of [
      ['title', (t: string) => t.replace(/^title: .*$/m, 'title: "Hijacked"')],
      ['description', (t: string) => t.replace(/the plan/, 'another plan')],
    ] as const) {
      const forged = forge(edit, `edit ${id}: forged\n\nTasks-Op: edit\nActor: bob`)
      const r = await run(dir, ['verify', good, forged, '--json'])
      expect(r.code, what).toBe(5)
      const refusals = JSON.parse(r.stdout).refusals as Array<{rule: string; commit: string}>
      expect(refusals.map((x) => x.rule), what).toEqual(['not_owner'])
      expect(refusals[0]!.commit).toBe(forged)
    }
    const overridden = forge((t) => t.replace(/^title: .*$/m, 'title: "Fixed"'), `edit ${id}: forced\n\nTasks-Op: edit\nActor: bob\nTasks-Reason: alice is away\nTasks-Override: alice is away`)
    expect((await runJson(dir, ['verify', good, overridden])).refusals).toEqual([])
    gitSync(dir, ['update-ref', REF, good])
  })
})

describe('task types and nesting depth', {timeout: 120_000}, () => {
  it('add --type, bad types refused with nothing written, list --type and the type in JSON rows', async () => {
    const dir = await initializedRepo()
    const epic = (await runJson(dir, ['add', 'Billing', '--type', 'epic'], ALICE)).task
    expect(epic.type).toBe('epic')
    await runJson(dir, ['add', 'Plain'], ALICE)
    await runJson(dir, ['add', 'Crash on save', '--type', 'bug'], ALICE)
    const before = tip(dir)
    const bad = await run(dir, ['add', 'Saga', '--type', 'saga', '--json'], ALICE)
    expect(bad.code).toBe(5)
    expect(jsonError(bad)).toMatchObject({code: 'bad_type'})
    expect(tip(dir)).toBe(before)
    const listed = await runJson(dir, ['list', '--type', 'epic,bug'], ALICE)
    expect(listed.tasks.map((t: {title: string; type: string}) => [t.title, t.type]).sort()).toEqual([['Billing', 'epic'], ['Crash on save', 'bug']])
    expect((await runJson(dir, ['list'], ALICE)).tasks.find((t: {title: string}) => t.title === 'Plain').type).toBe('task')
    expect((await run(dir, ['list', '--type', 'saga'], ALICE)).code).toBe(5)
    // The list may allow fewer types.
    await runJson(dir, ['config', 'set', 'types', 'task,bug'], ALICE)
    const narrow = await run(dir, ['add', 'Another epic', '--type', 'epic', '--json'], ALICE)
    expect(jsonError(narrow)).toMatchObject({code: 'bad_type'})
    expect((await run(dir, ['show', epic.id], ALICE)).stdout).toMatch(/type: +epic/)
  })

  it('max_depth 1 refuses a grandchild; at 3 three levels nest, and the top is not done while a grandchild is open', async () => {
    const dir = await initializedRepo()
    const top = (await runJson(dir, ['add', 'Delivery', '--type', 'feature'], ALICE)).task.id as string
    const sub = (await runJson(dir, ['add', 'Subtask', '--parent', top], ALICE)).task.id as string
    const refused = await run(dir, ['add', 'Leaf', '--parent', sub, '--json'], ALICE)
    expect(refused.code).toBe(5)
    expect(jsonError(refused)).toMatchObject({code: 'nesting_too_deep'})
    await runJson(dir, ['config', 'set', 'max_depth', '3'], ALICE)
    const leaf = (await runJson(dir, ['add', 'Leaf', '--parent', sub], ALICE)).task.id as string
    const deepest = (await runJson(dir, ['add', 'Leaf step', '--parent', leaf], ALICE)).task.id as string
    expect((await run(dir, ['add', 'Too deep', '--parent', deepest, '--json'], ALICE)).code).toBe(5)
    const rows = (await runJson(dir, ['list'], ALICE)).tasks as Array<{id: string; depth: number}>
    expect(rows.map((r) => [r.id, r.depth])).toEqual([
      [top, 0],
      [sub, 1],
      [leaf, 2],
      [deepest, 3],
    ])
    // The sub-item's own sub-items are still open: the top cannot finish (nor the sub-item).
    const before = tip(dir)
    for (const id of [top, sub]) {
      const r = await run(dir, ['done', id, '--json'], ALICE)
      expect(r.code).toBe(4)
      expect(jsonError(r)).toMatchObject({code: 'open_subitems'})
    }
    expect(tip(dir)).toBe(before)
    await runJson(dir, ['done', deepest], ALICE)
    await runJson(dir, ['done', leaf], ALICE)
    await runJson(dir, ['done', sub], ALICE)
    expect((await runJson(dir, ['done', top], ALICE)).task.status).toBe('done')
    expect((await runJson(dir, ['verify', '0'.repeat(40), tip(dir)])).refusals).toEqual([])
  })
})
