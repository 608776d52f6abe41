/**
 * The wiring on the CLI side: `--if-revision` on the check and flag
 * commands and `if_revision` in `tasks batch` operations (a stale revision
 * is refused with exit 4 and nothing written, a current one applies), and
 * `--format compact` on `search` and `inbox` (parsed back).
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {parseCompact} from '../../src/render/compact'

afterAll(() => cleanupAll())

const env = {env: {TASKS_ACTOR: 'alice'}}
const tip = (repo: string) => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()

describe('--if-revision on check, flag and batch', () => {
  it('refuses a stale revision with nothing written and applies a current one', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const id = (await runJson(repo, ['add', 'Guarded card'], env)).task.id
    const rev = (await runJson(repo, ['show', id], env)).task.revision
    await runJson(repo, ['edit', id, '--title', 'Guarded card, renamed'], env)
    const stale = rev
    const current = (await runJson(repo, ['show', id], env)).task.revision
    expect(current).toBe(rev + 1)

    const cases: string[][] = [
      ['check', 'add', id, '--acceptance', 'works'],
      ['flag', id, 'stuck'],
      ['unflag', id],
    ]
    for (const args of cases) {
      const before = tip(repo)
      const r = await run(repo, [...args, '--if-revision', String(stale), '--json'], env)
      expect(r.code, args.join(' ')).toBe(4)
      expect(jsonError(r)).toMatchObject({code: 'revision_mismatch'})
      expect(tip(repo)).toBe(before)
    }
    const chk = (await runJson(repo, ['check', 'add', id, '--test', 'npm test', '--if-revision', String(current)], env)).check.id
    for (const args of [
      ['check', 'pass', id, chk, '--evidence', 'green'],
      ['check', 'fail', id, chk, '--evidence', 'red'],
      ['check', 'supersede', id, chk, '--reason', 'gone'],
    ]) {
      const before = tip(repo)
      const r = await run(repo, [...args, '--if-revision', String(stale), '--json'], env)
      expect(r.code, args.join(' ')).toBe(4)
      expect(tip(repo)).toBe(before)
    }
    const rev2 = (await runJson(repo, ['show', id], env)).task.revision
    expect((await runJson(repo, ['check', 'pass', id, chk, '--evidence', 'green', '--if-revision', String(rev2)], env)).check.status).toBe('passed')
    const flagged = await runJson(repo, ['flag', id, 'stuck', '--if-revision', String((await runJson(repo, ['show', id], env)).task.revision)], env)
    expect(flagged.task.flag).toMatchObject({reason: 'stuck'})

    // batch: one stale if_revision aborts the whole batch, nothing written; a current one applies.
    const now = (await runJson(repo, ['show', id], env)).task.revision
    const before = tip(repo)
    const bad = await run(repo, ['batch', '-', '--json'], {...env, input: JSON.stringify([{op: 'comment', id, text: 'ok'}, {op: 'unflag', id, if_revision: now - 1}])})
    expect(bad.code).toBe(4)
    expect(jsonError(bad)).toMatchObject({code: 'revision_mismatch'})
    expect(tip(repo)).toBe(before)
    const good = await runJson(repo, ['batch', '-'], {...env, input: JSON.stringify([{op: 'unflag', id, if_revision: now}, {op: 'edit', id, title: 'Third title', if_revision: now + 1}])})
    expect(good).toMatchObject({applied: 2, failed: 0})
    expect((await runJson(repo, ['show', id], env)).task.title).toBe('Third title')
  }, 60000)
})

describe('--if-revision on flag and check, online', () => {
  it('a change published from another clone since makes the stale revision refused on the remote tip', async () => {
    const bare = makeBareRepo()
    const clone = (): string => {
      const dir = tempDir('clone-')
      gitSync(dir, ['clone', '-q', bare, '.'])
      return dir
    }
    const c1 = clone()
    await runJson(c1, ['init', '--remote', 'origin'])
    const id = (await runJson(c1, ['add', 'Shared card'], env)).task.id
    const read = (await runJson(c1, ['show', id], env)).task.revision
    const c2 = clone()
    await runJson(c2, ['init', '--remote', 'origin'])
    await runJson(c2, ['edit', id, '--title', 'Shared card, renamed by bob'], {env: {TASKS_ACTOR: 'bob'}})
    // c1 has not fetched bob's edit: the guard runs on the remote's tip the push is leased on.
    const before = gitSync(bare, ['rev-parse', 'refs/tasks/main']).trim()
    for (const args of [['flag', id, 'stuck'], ['check', 'add', id, '--test', 'npm test']]) {
      const r = await run(c1, [...args, '--if-revision', String(read), '--json'], env)
      expect(r.code, r.stderr).toBe(4)
      expect(jsonError(r)).toMatchObject({code: 'revision_mismatch', revision: read + 1, updated_by: 'bob'})
      expect(gitSync(bare, ['rev-parse', 'refs/tasks/main']).trim()).toBe(before)
    }
    const flagged = await runJson(c1, ['flag', id, 'stuck', '--if-revision', String(read + 1)], env)
    expect(flagged).toMatchObject({published: true, task: {flag: {reason: 'stuck'}}})
  }, 60000)
})

describe('--format compact on search and inbox', () => {
  it('prints documents that parse back to the JSON content', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const id = (await runJson(repo, ['add', 'Compact parser for search'], env)).task.id
    await runJson(repo, ['claim', id], env)
    await runJson(repo, ['comment', id, 'a note | with a pipe'], {env: {TASKS_ACTOR: 'bob'}})

    const json = await runJson(repo, ['search', 'parser'], env)
    const text = (await run(repo, ['search', 'parser', '--format', 'compact'], env)).stdout
    const doc = parseCompact(text)
    expect(text.startsWith('# git-tasks compact 1: search')).toBe(true)
    expect(doc.scalars.total).toBe(String(json.total))
    expect(doc.tables.results!.map((r) => `tsk-${r.id}`)).toEqual(json.results.map((h: any) => h.task.short_id.startsWith('tsk-') ? h.task.short_id : `tsk-${h.task.short_id}`))
    expect(doc.tables.tasks![0]!.title).toBe('Compact parser for search')

    const inboxJson = await runJson(repo, ['inbox', '--all'], env)
    const inboxText = (await run(repo, ['inbox', '--all', '--format', 'compact'], env)).stdout
    const idoc = parseCompact(inboxText)
    expect(idoc.scalars.actor).toBe('alice')
    expect(idoc.tables.records!.map((r) => r.id)).toEqual(inboxJson.records.map((r: any) => r.id))
    expect(idoc.tables.records!.find((r) => r.event === 'comment')!.body).toBe(inboxJson.records.find((r: any) => r.event === 'comment').body)
    // --json with another --format is a usage error, as on list.
    expect((await run(repo, ['inbox', '--json', '--format', 'compact'], env)).code).toBe(2)
  }, 60000)
})
