/**
 * Issue 32, items 8 and 9 in the pure core and the operation table: the
 * page a listing may return (list_limit, --limit 0, MCP's small page), the
 * surfaces' wiring of list and search, comment keys, and the canonical
 * title as the fallback idempotency key of batch and MCP creates.
 */
import {describe, expect, it} from 'vitest'
import {pageLimit} from '../../src/app/list-query'
import {list, MCP_PAGE} from '../../src/operations/reads'
import {search} from '../../src/operations/history'
import {add} from '../../src/operations/cards'
import {addComment} from '../../src/core/ops/comment'
import {addTask} from '../../src/core/ops/add'
import {canonicalTitle} from '../../src/core/title'
import {withChanges} from '../../src/core/apply'
import {parseConfig, serialiseConfig} from '../../src/core/task-file'
import {parseConfigValue} from '../../src/core/ops/config'
import {DEFAULT_CONFIG} from '../../src/core/task'
import {ConflictError, InvalidError} from '../../src/core/errors'
import {ctx, snapshot, task} from '../helpers/snapshot'

describe('list_limit', () => {
  it('caps every page; --limit 0 is every row only where the caller may ask for it', () => {
    expect(pageLimit({}, 2000)).toBe(2000)
    expect(pageLimit({limit: 50}, 2000)).toBe(50)
    expect(pageLimit({limit: 5000}, 2000)).toBe(2000)
    expect(pageLimit({limit: 0, unbounded: true}, 2000)).toBeUndefined()
    expect(pageLimit({limit: 0}, 2000)).toBe(2000)
    expect(pageLimit({defaultLimit: 50}, 2000)).toBe(50)
    expect(pageLimit({defaultLimit: 50}, 10)).toBe(10)
  })

  it('is a setting with a default of 2000, bounded 1 to 100,000, written only when set', () => {
    expect(DEFAULT_CONFIG.list_limit).toBe(2000)
    expect(serialiseConfig(DEFAULT_CONFIG)).not.toContain('list_limit')
    expect(parseConfigValue('list_limit', '500')).toBe(500)
    expect(() => parseConfigValue('list_limit', '100001')).toThrow(InvalidError)
    expect(() => parseConfigValue('list_limit', '0')).toThrow(InvalidError)
    expect(() => parseConfigValue('list_limit', '1k')).toThrow(InvalidError)
    const back = parseConfig(serialiseConfig({...DEFAULT_CONFIG, list_limit: 7}))
    expect(back.ok && back.value.list_limit).toBe(7)
    expect(parseConfig('list_limit: 100001\n').ok).toBe(false)
  })

  it('MCP list and search ask for a small page, capped; the command line may ask for every row', async () => {
    const calls: Array<[string, Record<string, unknown>]> = []
    // The present (no --at): the read runs on the session it is given.
    const timeTravel = {readAt: (s: unknown, _when: unknown, read: (s: unknown) => unknown) => read(s)}
    const engine = {timeTravel, listing: {list: async (_s: unknown, a: Record<string, unknown>) => (calls.push(['list', a]), {})}, search: {search: async (_s: unknown, a: Record<string, unknown>) => (calls.push(['search', a]), {})}} as never
    await list.run(engine, {} as never, {cursor: 'C'} as never, {surface: 'mcp', output: 'json'})
    await list.run(engine, {} as never, {limit: 0} as never, {surface: 'cli', output: 'text'})
    await search.run(engine, {} as never, {query: 'q'} as never, {surface: 'mcp', output: 'json'})
    await search.run(engine, {} as never, {query: 'q', limit: 0} as never, {surface: 'cli', output: 'text'})
    expect(calls[0]![1]).toMatchObject({after: 'C', defaultLimit: MCP_PAGE, unbounded: false})
    expect(MCP_PAGE).toBe(50)
    expect(calls[1]![1]).toMatchObject({limit: 0, unbounded: true, defaultLimit: undefined})
    expect(calls[2]![1]).toMatchObject({defaultLimit: MCP_PAGE, unbounded: false})
    expect(calls[3]![1]).toMatchObject({limit: 0, unbounded: true})
  })
})

describe('comment --key', () => {
  const card = task({id: 'tsk-aaaa000001', title: 'one'})
  it('records once: a retry returns the comment already there and writes nothing', () => {
    const snap = {...snapshot([card]), comments: new Map([[card.id, []]])}
    const first = addComment(snap, ctx('alice'), {id: card.id, text: 'tests pass', key: 'run-1'})
    expect(first.result.created).toBe(true)
    expect(first.result.comment.key).toBe('run-1')
    const again = addComment(withChanges(snap, first.changes), ctx('alice', undefined, {entropy: 'other'}), {id: card.id, text: 'tests pass', key: 'run-1'})
    expect(again.result).toEqual({comment: first.result.comment, created: false})
    expect(again.changes).toEqual([])
    // Another key records another comment.
    expect(addComment(withChanges(snap, first.changes), ctx('alice'), {id: card.id, text: 'tests pass', key: 'run-2'}).changes).toHaveLength(1)
  })

  it('refuses the same key with another text (key_mismatch) and an empty key, writing nothing', () => {
    const snap = {...snapshot([card]), comments: new Map([[card.id, []]])}
    const first = addComment(snap, ctx('alice'), {id: card.id, text: 'tests pass', key: 'run-1'})
    const after = withChanges(snap, first.changes)
    expect(() => addComment(after, ctx('alice'), {id: card.id, text: 'tests fail', key: 'run-1'})).toThrow(ConflictError)
    try {
      addComment(after, ctx('alice'), {id: card.id, text: 'tests fail', key: 'run-1'})
    } catch (e) {
      expect((e as ConflictError).code).toBe('key_mismatch')
    }
    expect(() => addComment(snap, ctx('alice'), {id: card.id, text: 'x', key: '  '})).toThrow(InvalidError)
  })

  it('without a key, every comment is recorded (no comments need reading)', () => {
    const snap = snapshot([card])
    expect(addComment(snap, ctx('alice'), {id: card.id, text: 'same'}).result.created).toBe(true)
  })
})

describe('the canonical title as the fallback idempotency key', () => {
  const open = task({id: 'tsk-bbbb000001', title: 'Fix  the Login'})
  const done = task({id: 'tsk-bbbb000002', title: 'Ship it', status: 'done'})
  const child = task({id: 'tsk-bbbb000003', title: 'Write tests', parent: 'tsk-bbbb000001'})

  it('folds case and whitespace', () => {
    expect(canonicalTitle('  Fix\tthe   LOGIN ')).toBe('fix the login')
  })

  it('reuse: an open item with the title under the same parent is returned, nothing written', () => {
    const snap = snapshot([open, done, child])
    const r = addTask(snap, ctx('agent'), {title: 'fix the login', sameTitle: 'reuse'})
    expect(r.result.created).toBe(false)
    expect(r.result.task.id).toBe(open.id)
    expect(r.changes).toEqual([])
    expect(r.result.warnings?.[0]).toContain(open.id)
    // A finished item, or one under another parent, is not the same item.
    expect(addTask(snap, ctx('agent'), {title: 'ship it', sameTitle: 'reuse'}).result.created).toBe(true)
    expect(addTask(snap, ctx('agent'), {title: 'Write tests', sameTitle: 'reuse'}).result.created).toBe(true)
    expect(addTask(snap, ctx('agent'), {title: 'Write tests', parent: open.id, sameTitle: 'reuse'}).result.task.id).toBe(child.id)
  })

  it('warn: the command line creates another and names the open one', () => {
    const snap = snapshot([open])
    const r = addTask(snap, ctx('alice'), {title: 'FIX THE LOGIN', sameTitle: 'warn'})
    expect(r.result.created).toBe(true)
    expect(r.result.task.id).not.toBe(open.id)
    expect(r.result.warnings).toEqual([expect.stringContaining(open.id)])
    expect(addTask(snap, ctx('alice'), {title: 'Something else', sameTitle: 'warn'}).result.warnings).toBeUndefined()
  })

  it('the operation table: batch and MCP reuse, the command line warns', async () => {
    const seen: unknown[] = []
    const engine = {cards: {add: async (_s: unknown, a: {sameTitle?: string}) => (seen.push(a.sameTitle), {})}} as never
    await add.run(engine, {sessionName: () => undefined} as never, {title: 't'} as never, {surface: 'mcp', output: 'json'})
    await add.run(engine, {sessionName: () => undefined} as never, {title: 't'} as never, {surface: 'cli', output: 'json'})
    expect(seen).toEqual(['reuse', 'warn'])
    const snap = snapshot([open])
    const step = add.batch!.plan(await import('../../src/core/ops/index'), snap, ctx('agent'), {title: 'fix the login'} as never)
    expect(step.id).toBe(open.id)
    expect(step.plan.changes).toEqual([])
  })
})
