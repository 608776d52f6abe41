/**
 * Issue 32, items 8 to 11 through the real command: list_limit and
 * cursors on list and search, search in check text and evidence, comment
 * keys and the same-title warning of add, and the export of a subtree
 * taken back by import. Refusals write nothing (the ref does not move).
 */
import {describe, expect, it} from 'vitest'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gitSync, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'

const tip = (dir: string) => gitSync(dir, ['rev-parse', 'refs/tasks/main']).trim()

describe('limits, paging, idempotency, subtree export', () => {
  it('list_limit caps list and search; cursors continue; --limit 0 is everything; search finds checks', async () => {
    const dir = makeRepo()
    await runJson(dir, ['init'])
    const batch = Array.from({length: 7}, (_, i) => ({op: 'create', title: `Paging item ${i}`, priority: i % 5}))
    await runJson(dir, ['batch', '-'], {input: JSON.stringify(batch)})
    // A bad value is refused and nothing is written.
    const before = tip(dir)
    const bad = await run(dir, ['config', 'set', 'list_limit', '100001', '--json'])
    expect(bad.code).toBe(5)
    expect(tip(dir)).toBe(before)
    await runJson(dir, ['config', 'set', 'list_limit', '3'])

    const first = await run(dir, ['list', '--json'])
    const page = JSON.parse(first.stdout)
    expect(page.tasks).toHaveLength(3)
    expect(page.total).toBe(7)
    expect(page.limit).toBe(3)
    expect(page.next_cursor).toEqual(expect.any(String))
    expect(first.stderr).toContain('--cursor')
    // An asked-for limit above list_limit is capped too.
    expect((await runJson(dir, ['list', '--limit', '5'])).tasks).toHaveLength(3)
    const seen = [...page.tasks.map((t: {id: string}) => t.id)]
    let cursor = page.next_cursor
    while (cursor) {
      const next = await runJson(dir, ['list', '--cursor', cursor])
      seen.push(...next.tasks.map((t: {id: string}) => t.id))
      cursor = next.next_cursor
    }
    expect(new Set(seen).size).toBe(7)
    const all = await run(dir, ['list', '--json', '--limit', '0'])
    expect(JSON.parse(all.stdout).tasks).toHaveLength(7)
    expect(JSON.parse(all.stdout).next_cursor).toBeNull()
    expect(all.stderr).toBe('')
    const text = await run(dir, ['list'])
    expect(text.stdout).toMatch(/more: 4 more rows; pass --cursor \S+ for the next page, or --limit 0/)

    // search pages with a cursor bound to its query.
    const s1 = await runJson(dir, ['search', 'paging', '--limit', '5'])
    expect(s1.results).toHaveLength(3)
    expect(s1.total).toBe(7)
    const s2 = await runJson(dir, ['search', 'paging', '--limit', '5', '--cursor', s1.next_cursor])
    expect(s2.offset).toBe(3)
    const s3 = await runJson(dir, ['search', 'paging', '--cursor', s2.next_cursor])
    expect(new Set([...s1.results, ...s2.results, ...s3.results].map((h: {task: {id: string}}) => h.task.id)).size).toBe(7)
    expect(s3.next_cursor).toBeNull()
    const other = await run(dir, ['search', 'item', '--cursor', s1.next_cursor, '--json'])
    expect(other.code).toBe(2)
    expect(jsonError(other).code).toBe('bad_cursor')
    const filtered = await run(dir, ['search', 'paging', '--status', 'open', '--cursor', s1.next_cursor, '--json'])
    expect(filtered.code).toBe(2)
    expect((await runJson(dir, ['search', 'paging', '--limit', '0'])).results).toHaveLength(7)

    // Check text and evidence are searched, and the hit says where.
    const added = await runJson(dir, ['add', 'Checked card', '--acceptance', 'the flamingo dances'])
    const check = added.checks[0].id
    await runJson(dir, ['claim', added.task.id])
    await runJson(dir, ['check', 'pass', added.task.id, check, '--evidence', 'saw a pelican in the log'])
    const inCheck = await runJson(dir, ['search', 'flamingo'])
    expect(inCheck.results.map((h: {task: {id: string}; fields: string[]}) => [h.task.id, h.fields])).toEqual([[added.task.id, ['checks']]])
    expect(inCheck.results[0].snippet).toEqual({field: 'checks', text: 'the flamingo dances'})
    const inEvidence = await runJson(dir, ['search', 'pelican'])
    expect(inEvidence.results[0].fields).toEqual(['evidence'])
    expect(inEvidence.results[0].snippet.field).toBe('evidence')
  })

  it('comment --key records once; add warns on a repeated title; export of a parent carries its subtree back through import', async () => {
    const dir = makeRepo()
    await runJson(dir, ['init'])
    const parent = (await runJson(dir, ['add', 'Deliver the report'])).task.id
    const child = (await runJson(dir, ['add', 'Draft section', '--parent', parent, '--test', 'spell check'])).task.id
    const first = await runJson(dir, ['comment', child, 'draft done', '--key', 'turn-7'])
    expect(first.created).toBe(true)
    const at = tip(dir)
    const again = await runJson(dir, ['comment', child, 'draft done', '--key', 'turn-7'])
    expect(again).toMatchObject({created: false, commit: null, comment: {id: first.comment.id, key: 'turn-7'}})
    expect(tip(dir)).toBe(at)
    const clash = await run(dir, ['comment', child, 'something else', '--key', 'turn-7', '--json'])
    expect(clash.code).toBe(4)
    expect(jsonError(clash).code).toBe('key_mismatch')
    expect(tip(dir)).toBe(at)
    expect((await runJson(dir, ['show', child])).comments).toHaveLength(1)
    // In a batch, a retried keyed comment is recorded once too.
    await runJson(dir, ['batch', '-'], {input: JSON.stringify([{op: 'comment', id: child, text: 'b', key: 'k2'}, {op: 'comment', id: child, text: 'b', key: 'k2'}, {op: 'create', title: 'deliver THE report'}])})
    expect((await runJson(dir, ['show', child])).comments).toHaveLength(2)
    // The batch's create of the same title returned the open item: still one.
    expect((await runJson(dir, ['list'])).total).toBe(2)

    const dup = await run(dir, ['add', 'Deliver  the REPORT', '--json'])
    expect(dup.code).toBe(0)
    const made = JSON.parse(dup.stdout)
    expect(made.created).toBe(true)
    expect(made.warnings).toEqual([expect.stringContaining(parent)])
    expect(dup.stderr).toContain('same_title')
    await runJson(dir, ['rm', made.task.id, '--confirm', made.task.id, '--reason', 'made again below'])

    const out = join(tempDir('export-'), 'sub.json')
    await run(dir, ['export', parent, '-o', out])
    const other = makeRepo()
    await runJson(other, ['init'])
    const imported = await runJson(other, ['import', out])
    expect(imported.created).toBe(2)
    const shown = await runJson(other, ['show', child])
    expect(shown.task.parent).toBe(parent)
    expect(shown.comments.map((c: {key?: string}) => c.key)).toEqual(['turn-7', 'k2'])
    expect(shown.checks.map((c: {text: string}) => c.text)).toEqual(['spell check'])
    // The round trip: the other list exports the same cards.
    const back = join(tempDir('export-'), 'back.json')
    await run(other, ['export', parent, '-o', back])
    const a = JSON.parse(require('node:fs').readFileSync(out, 'utf8'))
    const b = JSON.parse(require('node:fs').readFileSync(back, 'utf8'))
    // Each card carries its history: spec revisions and events, oldest first (the other list's are its own).
    const sub = a.tasks.find((t: {id: string}) => t.id === child)
    expect(sub.revisions[0]).toMatchObject({revision: 1, op: 'add'})
    expect(sub.events.map((e: {op: string}) => e.op)).toEqual(expect.arrayContaining(['add', 'comment']))
    expect(sub.events[0].op).toBe('add')
    const withoutHistory = (ts: Array<Record<string, unknown>>) => ts.map(({revisions, events, ...t}) => t)
    expect(withoutHistory(b.tasks)).toEqual(withoutHistory(a.tasks))
    expect(b.tasks.find((t: {id: string}) => t.id === child).events.map((e: {op: string}) => e.op)).toEqual(['import'])
    writeFileSync(out, '')
  })
})
