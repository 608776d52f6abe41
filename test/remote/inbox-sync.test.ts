/**
 * Inbox records, seen markers, registry entries and reminder latches across
 * clones: records and acks made offline on two clones merge to the union
 * through `tasks sync` (nothing lost, nothing comes back unseen, both
 * clones end with the same tree), and `remind` run from two clones agrees
 * on what was already sent.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, runJson} from '../helpers/cli'
import {filesOf, shared, treeOf} from './support'

afterAll(() => cleanupAll())

const off = (actor: string, now?: string) => ({env: {TASKS_ACTOR: actor, TASKS_OFFLINE: '1', ...(now ? {TASKS_NOW: now} : {})}})
const on = (actor: string, now?: string) => ({env: {TASKS_ACTOR: actor, ...(now ? {TASKS_NOW: now} : {})}})

describe('inbox across clones', () => {
  it('offline records and acks from two clones merge without loss', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'Shared card'], on('alice'))).task.id
    await runJson(a, ['watch', x], on('sue'))
    await runJson(a, ['comment', x, 'published one'], on('bob'))
    await runJson(b, ['sync'], on('bob'))
    const seenBoth = await runJson(b, ['inbox'], on('sue'))
    expect(seenBoth.records).toHaveLength(1)
    // Offline on both clones: new records for sue, and sue acks on each side.
    await runJson(a, ['comment', x, 'typed on A'], off('bob'))
    await runJson(b, ['comment', x, 'typed on B'], off('carol'))
    await runJson(a, ['inbox', 'ack', seenBoth.records[0].id], off('sue'))
    const onB = await runJson(b, ['inbox'], off('sue'))
    expect(onB.records).toHaveLength(2)
    await runJson(b, ['inbox', 'ack', onB.records[1].id], off('sue'))
    await runJson(b, ['actor', 'add', 'sue', '--mute', 'heartbeat'], off('sue'))
    await runJson(a, ['actor', 'add', 'sue', '--watch', 'claim'], off('sue'))
    await runJson(a, ['sync'], on('sue'))
    await runJson(b, ['sync'], on('sue'))
    await runJson(a, ['sync'], on('sue'))
    expect(treeOf(a)).toBe(treeOf(b))
    const all = await runJson(a, ['inbox', '--all'], on('sue'))
    expect(all.records.map((r: any) => r.body.split('\n').pop())).toEqual(['> published one', '> typed on A', '> typed on B'])
    // Both acks survived: only the record acked on neither side is unseen.
    expect(all.records.map((r: any) => r.seen)).toEqual([true, false, true])
    const files = filesOf(a)
    expect(files.get('actors/sue.yaml')).toMatch(/mute:\n  - "heartbeat"\nwatch:\n  - "claim"\n/)
  })

  it('remind run from two clones sends one digest; offline digests both survive and the latch converges', async () => {
    const T0 = '2026-11-29T08:00:00.000Z'
    const at = (h: number) => new Date(Date.parse(T0) + h * 3600_000).toISOString()
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'Slow work'], on('carol', T0))).task.id
    await runJson(a, ['claim', id], on('olga', T0))
    const first = await runJson(a, ['remind'], on('bot-a', at(3)))
    expect(first.digests.map((d: any) => d.to)).toEqual(['olga'])
    const second = await runJson(b, ['remind'], on('bot-b', at(3.5)))
    expect(second.digests).toEqual([])
    expect(second.skipped.map((s: any) => s.to)).toEqual(['olga'])
    // A day later, both remind offline before syncing: each sends one; both are kept, the latch takes the later time.
    await runJson(b, ['sync'], on('bot-b'))
    await runJson(a, ['remind'], off('bot-a', at(30)))
    await runJson(b, ['remind'], off('bot-b', at(31)))
    await runJson(a, ['sync'], on('bot-a', at(32)))
    await runJson(b, ['sync'], on('bot-b', at(32)))
    await runJson(a, ['sync'], on('bot-a', at(32)))
    expect(treeOf(a)).toBe(treeOf(b))
    const digests = (await runJson(a, ['inbox', '--all'], on('olga', at(32)))).records.filter((r: any) => r.event === 'digest')
    expect(digests).toHaveLength(3)
    expect(filesOf(a).get('reminders/olga.yaml')).toContain(`last_digest: "${at(31)}"`)
    const third = await runJson(a, ['remind'], on('bot-a', at(33)))
    expect(third.digests).toEqual([])
  })
})
