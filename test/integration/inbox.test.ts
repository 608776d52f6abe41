/**
 * Roles and inbox records on a real repository: every mutation writes, in
 * its own commit, records for exactly the people the three layers of rules
 * name and never for the actor; aliases fold into one inbox; acks are seen
 * markers; `stale` groups by owner; `remind` sends one digest per owner
 * per cadence and escalates once per streak.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'

afterAll(() => cleanupAll())

const as = (actor: string, now?: string) => ({env: {TASKS_ACTOR: actor, ...(now ? {TASKS_NOW: now} : {})}})
const REF = 'refs/tasks/main'

/** Every record in an actor's inbox, as `event by actor` strings (seen ones too). */
async function events(repo: string, actor: string): Promise<string[]> {
  const r = await runJson(repo, ['inbox', '--all'], as(actor))
  return r.records.map((x: any) => `${x.event} by ${x.actor}`)
}

/** Recipients of the records the tip commit wrote: the inbox directories it added files to. */
function recipientsOfTip(repo: string): string[] {
  const names = gitSync(repo, ['diff-tree', '--no-commit-id', '--name-only', '-r', '--root', REF]).split('\n')
  return names.filter((p) => /^inbox\/[^/]+\/[^/]+\.md$/.test(p)).map((p) => p.split('/')[1]!).sort()
}

describe('inbox records: who hears of what', () => {
  let repo: string
  let x: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    x = (await runJson(repo, ['add', 'Card X'], as('alice'))).task.id
  })

  it('layer 1: the list decides by event; the actor is never told', async () => {
    await runJson(repo, ['collab', 'add', x, 'cole'], as('alice'))
    expect(recipientsOfTip(repo)).toEqual(['cole'])
    await runJson(repo, ['watch', x], as('sue'))
    expect(recipientsOfTip(repo)).toEqual([])
    await runJson(repo, ['claim', x], as('olga'))
    expect(recipientsOfTip(repo)).toEqual(['sue'])
    await runJson(repo, ['comment', x, 'first'], as('bob'))
    expect(recipientsOfTip(repo)).toEqual(['cole', 'olga', 'sue'])
    await runJson(repo, ['comment', x, 'mine'], as('cole'))
    expect(recipientsOfTip(repo)).toEqual(['olga', 'sue'])
    // The records are in the same commit as the comment itself.
    const files = gitSync(repo, ['diff-tree', '--no-commit-id', '--name-only', '-r', REF])
    expect(files).toMatch(/comments\//)
    expect(files).toMatch(/^inbox\/olga\//m)
  })

  it('layer 2: a person mutes an event (or watches one); layer 3: the card replaces the roles and mutes', async () => {
    await runJson(repo, ['actor', 'add', 'sue', '--mute', 'comment'], as('sue'))
    await runJson(repo, ['comment', x, 'second'], as('bob'))
    expect(recipientsOfTip(repo)).toEqual(['cole', 'olga'])
    await runJson(repo, ['notify', x, 'comment:creator'], as('alice'))
    await runJson(repo, ['comment', x, 'third'], as('bob'))
    expect(recipientsOfTip(repo)).toEqual(['alice'])
    await runJson(repo, ['notify', x, '--clear'], as('alice'))
    await runJson(repo, ['unwatch', x, '--mute'], as('cole'))
    // done: creator, collaborators, subscribers; cole muted the card; olga finishes.
    await runJson(repo, ['actor', 'add', 'bob', '--watch', 'done'], as('bob'))
    await runJson(repo, ['done', x], as('olga'))
    expect(recipientsOfTip(repo)).toEqual(['alice', 'sue'])
    // bob watches done, but holds no role on X: a watch reaches only cards you are on.
    expect(await events(repo, 'bob')).toEqual([])
    expect(await events(repo, 'sue')).toEqual(['claim by olga', 'comment by bob', 'comment by cole', 'done by olga'])
  })

  it('layer 1 is config.yaml: config set notify.EVENT ROLES, refused when a role is unknown, unset restores the built-in rule', async () => {
    const before = gitSync(repo, ['rev-parse', REF]).trim()
    const bad = await run(repo, ['config', 'set', 'notify.comment', 'boss', '--json'], as('alice'))
    expect([bad.code, jsonError(bad).code]).toEqual([5, 'bad_config_value'])
    expect(gitSync(repo, ['rev-parse', REF]).trim()).toBe(before)
    const set = await runJson(repo, ['config', 'set', 'notify.comment', 'creator,collaborators'], as('alice'))
    expect(set.value.comment).toEqual(['collaborators', 'creator'])
    await runJson(repo, ['comment', x, 'under the list rule'], as('bob'))
    expect(recipientsOfTip(repo)).toEqual(['alice']) // cole muted the card
    await runJson(repo, ['config', 'unset', 'notify.comment'], as('alice'))
    await runJson(repo, ['comment', x, 'under the built-in rule'], as('bob'))
    expect(recipientsOfTip(repo)).toEqual(['olga'])
  })

  it('aliases fold into one inbox; ack by id suffix or --all; an unknown id writes nothing', async () => {
    await runJson(repo, ['actor', 'alias', 'olga', 'olga-session'], as('alice'))
    const y = (await runJson(repo, ['add', 'Card Y', '--assignee', 'olga-session'], as('alice'))).task.id
    expect(recipientsOfTip(repo)).toEqual(['olga'])
    await runJson(repo, ['comment', y, 'from the session'], as('olga-session'))
    expect(recipientsOfTip(repo)).not.toContain('olga')
    const inbox = await runJson(repo, ['inbox'], as('olga-session'))
    expect(inbox.actor).toBe('olga')
    expect(inbox.records.map((r: any) => r.event)).toEqual(['comment', 'comment', 'comment', 'comment', 'add'])
    const before = gitSync(repo, ['rev-parse', REF]).trim()
    const bad = await run(repo, ['inbox', 'ack', 'deadbeef', '--json'], as('olga'))
    expect(bad.code).toBe(3)
    expect(jsonError(bad).code).toBe('record_not_found')
    expect(gitSync(repo, ['rev-parse', REF]).trim()).toBe(before)
    const one = await runJson(repo, ['inbox', 'ack', inbox.records[0].id.slice(-8)], as('olga'))
    expect(one.acked).toEqual([inbox.records[0].id])
    expect((await runJson(repo, ['inbox'], as('olga'))).unseen).toBe(4)
    expect((await runJson(repo, ['inbox', 'ack', '--all'], as('olga'))).acked).toHaveLength(4)
    const after = await runJson(repo, ['inbox', '--all'], as('olga'))
    expect([after.unseen, after.total, after.records.every((r: any) => r.seen)]).toEqual([0, 5, true])
    expect((await runJson(repo, ['inbox', 'ack', '--all'], as('olga'))).commit).toBeNull()
    const actors = await runJson(repo, ['actor', 'list'], as('alice'))
    const olga = actors.actors.find((a: any) => a.id === 'olga')
    expect(olga.aliases).toEqual(['olga-session'])
    expect(olga.last_seen).not.toBeNull()
  })
})

describe('stale and remind', () => {
  const T0 = '2026-11-29T08:00:00.000Z'
  const at = (hours: number) => new Date(Date.parse(T0) + hours * 3600_000).toISOString()
  let repo: string
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    for (const k of ['held', 'open', 'blocked', 'dep']) ids[k] = (await runJson(repo, ['add', `Item ${k}`], as('carol', T0))).task.id
    await runJson(repo, ['deps', ids.dep!, ids.open!], as('carol', T0))
    await runJson(repo, ['claim', ids.held!], as('olga', T0))
    // Parked on someone (block --on): stale and remind leave it alone (a block naming nobody would be stale).
    await runJson(repo, ['block', ids.blocked!, 'waits on the vendor', '--on', 'vendor'], as('olga', T0))
    await runJson(repo, ['config', 'set', 'escalate_after_seconds', '4h'], as('carol', T0))
    await runJson(repo, ['config', 'set', 'remind_every_seconds', '6h'], as('carol', T0))
  })

  it('stale groups by owner and leaves out parked and waiting items', async () => {
    expect((await runJson(repo, ['stale'], as('carol', at(1)))).total).toBe(0)
    const s = await runJson(repo, ['stale', '--older-than', '2h'], as('carol', at(3)))
    expect(s.groups.map((g: any) => [g.owner, g.items.map((i: any) => i.id)])).toEqual([
      ['olga', [ids.held]],
      [null, [ids.open]],
    ])
  })

  it('one digest per owner per cadence, one escalation per streak', async () => {
    const first = await runJson(repo, ['remind'], as('bot', at(5)))
    expect(first.digests).toEqual([{to: 'olga', tasks: [ids.held]}])
    expect(first.escalations).toEqual([{to: 'carol', task: ids.held, owner: 'olga', last_seen: T0}])
    const again = await runJson(repo, ['remind'], as('bot', at(6)))
    expect([again.digests, again.escalations, again.skipped.map((x: any) => x.to)]).toEqual([[], [], ['olga']])
    expect(again.commit).toBeNull()
    expect((await events(repo, 'carol')).filter((e) => e.startsWith('escalation'))).toHaveLength(1)
    // Olga comes back (a heartbeat), then goes quiet again: a new streak, and a new cadence.
    await runJson(repo, ['heartbeat', ids.held!], as('olga', at(7)))
    const quiet = await runJson(repo, ['remind'], as('bot', at(10)))
    expect(quiet.escalations).toEqual([])
    const gone = await runJson(repo, ['remind'], as('bot', at(12)))
    expect(gone.digests.map((d: any) => d.to)).toEqual(['olga'])
    expect(gone.escalations).toEqual([{to: 'carol', task: ids.held, owner: 'olga', last_seen: at(7)}])
    const olga = await runJson(repo, ['inbox'], as('olga'))
    expect(olga.records.filter((r: any) => r.event === 'digest')).toHaveLength(2)
  })
})
