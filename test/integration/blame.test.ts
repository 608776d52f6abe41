/**
 * `tasks blame` on hand-made histories with known answers: several actors
 * at pinned times, --at, a removed card, an unknown id, and a field set on
 * another clone that arrived through a `sync` merge.
 */
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanupAll, gitSync, jsonError, makeBareRepo, makeRepo, run, runJson, type RunOptions} from '../helpers/cli'
import {cloneOf} from '../remote/support'

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
})

/** Act as `actor` at minute `minutes` after 2030-01-01T00:00Z. */
function as(actor: string, minutes: number, env: Record<string, string> = {}): RunOptions {
  return {env: {TASKS_ACTOR: actor, TASKS_NOW: time(minutes), ...env}}
}

const time = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()
/** The author date git records for minute `minutes` (%aI). */
const date = (minutes: number) => time(minutes).replace(/\.000Z$/, '+00:00')
const tip = (repo: string) => gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()

type By = {commit: string; actor: string; date: string; op: string}

describe('blame on one clone', () => {
  let repo: string
  let id: string
  const c = {} as Record<'add' | 'bob' | 'carol' | 'dave' | 'erin', By>

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    const by = (actor: string, minutes: number, op: string): By => ({commit: tip(repo), actor, date: date(minutes), op})
    id = (await runJson(repo, ['add', 'Write the parser', '--body', 'one\ntwo\nthree\n', '--priority', '2', '--tags', 'api'], as('alice', 0))).task.id
    c.add = by('alice', 0, 'add')
    await runJson(repo, ['add', 'Unrelated', '--body', 'noise'], as('alice', 1))
    await runJson(repo, ['edit', id, '--priority', '1', '--field', 'team=core'], as('bob', 10))
    c.bob = by('bob', 10, 'edit')
    await runJson(repo, ['edit', id, '--body', 'one\nTWO, said carol\nthree\nfour\n'], as('carol', 20))
    c.carol = by('carol', 20, 'edit')
    await runJson(repo, ['claim', id, '--lease', '1h'], as('dave', 30))
    c.dave = by('dave', 30, 'claim')
    await runJson(repo, ['edit', id, '--priority', '2'], as('erin', 40))
    c.erin = by('erin', 40, 'edit')
  })

  it('names the commit, actor, time and op of every field and every description line', async () => {
    const r = await runJson(repo, ['blame', id.slice(0, 8)], as('zed', 100))
    expect(r).toMatchObject({list: 'main', task: id, at: null, commit: c.erin.commit})
    expect(r.fields).toEqual([
      {field: 'title', value: 'Write the parser', ...c.add},
      {field: 'status', value: 'in_progress', ...c.dave},
      // Set back to 2 by erin: she set the value it holds now.
      {field: 'priority', value: 2, ...c.erin},
      {field: 'tags', value: ['api'], ...c.add},
      {field: 'depends_on', value: [], ...c.add},
      {field: 'owner', value: 'dave', ...c.dave},
      {field: 'epoch', value: 1, ...c.dave},
      {field: 'claimed_at', value: time(30), ...c.dave},
      {field: 'lease_expires', value: time(90), ...c.dave},
      {field: 'created_at', value: time(0), ...c.add},
      {field: 'created_by', value: 'alice', ...c.add},
      {field: 'fields.team', value: 'core', ...c.bob},
    ])
    expect(r.description).toEqual([
      {line: 1, text: 'one', ...c.add},
      {line: 2, text: 'TWO, said carol', ...c.carol},
      {line: 3, text: 'three', ...c.add},
      {line: 4, text: 'four', ...c.carol},
    ])
    // Every change of the card, back to its creation (created_at is never set again); the unrelated card is not read.
    expect(r.walked).toBe(5)
  })

  it('--at blames the card as it was then (a time, or a commit prefix)', async () => {
    const r = await runJson(repo, ['blame', id, '--at', time(25)], as('zed', 100))
    expect(r.at).toMatchObject({input: time(25), commit: c.carol.commit})
    expect(r.commit).toBe(c.carol.commit)
    const fields = Object.fromEntries(r.fields.map((f: By & {field: string; value: unknown}) => [f.field, [f.value, f.actor]]))
    expect(fields).toEqual({
      title: ['Write the parser', 'alice'],
      status: ['todo', 'alice'],
      priority: [1, 'bob'],
      tags: [['api'], 'alice'],
      depends_on: [[], 'alice'],
      epoch: [0, 'alice'],
      created_at: [time(0), 'alice'],
      created_by: ['alice', 'alice'],
      'fields.team': ['core', 'bob'],
    })
    const byPrefix = await runJson(repo, ['blame', id, '--at', c.bob.commit.slice(0, 8)], as('zed', 100))
    expect(byPrefix.description.map((l: By) => l.actor)).toEqual(['alice', 'alice', 'alice'])
    expect(byPrefix.fields.find((f: {field: string}) => f.field === 'priority')).toEqual({field: 'priority', value: 1, ...c.bob})
  })

  it('prints a table and the description lines as git blame does', async () => {
    const r = await run(repo, ['blame', id], {env: {...as('zed', 100).env, COLUMNS: '200', TZ: 'UTC'}})
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^priority +2 +${c.erin.commit.slice(0, 10)} +erin +2030-01-01 00:40 \\+00:00 +edit$`, 'm'))
    expect(r.stdout).toContain(`${c.carol.commit.slice(0, 10)} (carol 2030-01-01 00:20 +00:00 2) TWO, said carol`)
    expect(r.stdout).not.toContain('\u001b[')
    const compact = await run(repo, ['blame', id, '--format', 'compact'], as('zed', 100))
    expect(compact.stdout).toContain(`priority|2|${c.erin.commit.slice(0, 12)}|erin|${c.erin.date}|edit`)
    expect(compact.stdout).toContain(`description[4]{line,commit,actor,date,op,text}:`)
  })

  it('an unknown id is not found (exit 3); a removed card asks for --at, and is blamed with it', async () => {
    const unknown = await run(repo, ['blame', 'tsk-zzzzzzzz', '--json'], as('zed', 100))
    expect(unknown.code).toBe(3)
    expect(jsonError(unknown).code).toBe('task_not_found')
    const gone = (await runJson(repo, ['add', 'Short-lived', '--body', 'a\nb'], as('alice', 200))).task.id
    const before = tip(repo)
    await runJson(repo, ['rm', gone, '--confirm', gone, '--reason', 'a test'], as('bob', 210))
    const removed = await run(repo, ['blame', gone, '--json'], as('zed', 220))
    expect(removed.code).toBe(3)
    const e = jsonError(removed)
    expect(e).toMatchObject({code: 'task_not_found', id: gone, removed: true, at: before})
    expect(e.message).toContain(`--at ${before.slice(0, 10)}`)
    const then = await runJson(repo, ['blame', gone, '--at', before.slice(0, 10)], as('zed', 220))
    expect(then.fields.find((f: {field: string}) => f.field === 'title')).toMatchObject({value: 'Short-lived', actor: 'alice', op: 'add'})
    expect(then.description.map((l: By & {text: string}) => l.text)).toEqual(['a', 'b'])
    // At a time before the card was made: not found, nothing written.
    const tipBefore = tip(repo)
    const early = await run(repo, ['blame', id, '--at', time(-5), '--json'], as('zed', 220))
    expect(early.code).toBe(3)
    expect(tip(repo)).toBe(tipBefore)
  })
})

describe('blame through a sync merge', () => {
  it('a field set on the other clone is blamed on that clone\'s commit, not on the merge', async () => {
    const bare = makeBareRepo()
    const [one, two] = [cloneOf(bare), cloneOf(bare)]
    await runJson(one, ['init', '--remote', 'origin'])
    await runJson(two, ['init', '--remote', 'origin'])
    // The card is made by a clock running an hour ahead, so git's date order shows it before a later edit of it.
    const id = (await runJson(one, ['add', 'Shared card', '--body', 'first\nsecond\n'], as('alice', 60))).task.id
    const added = tip(one)
    await runJson(two, ['sync'], as('bob', 61))
    const off = (actor: string, minutes: number) => as(actor, minutes, {TASKS_OFFLINE: '1'})
    // Both clones change the card while apart: one its title, two its priority and a new last line.
    await runJson(one, ['edit', id, '--title', 'Shared card, renamed on one'], off('alice', 10))
    const titled = tip(one)
    await runJson(two, ['edit', id, '--priority', '0', '--body', 'first\nsecond\nthird, from two\n'], off('bob', 5))
    const prioritised = tip(two)
    await runJson(one, ['sync'], as('alice', 70))
    await runJson(two, ['sync'], as('bob', 71))
    const merge = tip(two)
    expect(gitSync(two, ['rev-list', '--parents', '-n1', merge]).trim().split(' ')).toEqual([merge, prioritised, titled])
    // The order blame reads the card's history in (git's date order): the add (dated 60) before two's edit of it
    // (dated 5), which passes the values it kept (created_at, the first lines) on to the add after the add was read.
    const path = `tasks/${createHash('sha1').update(id).digest('hex').slice(0, 2)}/${id}/task.md`
    expect(gitSync(two, ['log', '--format=%H', 'refs/tasks/main', '--', path]).trim().split('\n')).toEqual([merge, titled, added, prioritised])
    await runJson(one, ['sync'], as('alice', 72))
    for (const clone of [two, one]) {
      const r = await runJson(clone, ['blame', id], as('zed', 80))
      expect(r.commit).toBe(merge)
      const by = Object.fromEntries(r.fields.map((f: By & {field: string}) => [f.field, f.commit]))
      expect(by.title).toBe(titled)
      expect(by.priority).toBe(prioritised)
      expect(by.created_at).toBe(added)
      expect(r.fields.find((f: {field: string}) => f.field === 'title')).toMatchObject({actor: 'alice', op: 'edit', date: date(10)})
      expect(r.fields.find((f: {field: string}) => f.field === 'priority')).toMatchObject({actor: 'bob', op: 'edit', date: date(5)})
      expect(r.description.map((l: By) => [l.commit, l.actor])).toEqual([
        [added, 'alice'],
        [added, 'alice'],
        [prioritised, 'bob'],
      ])
      expect(r.fields.some((f: By) => f.commit === merge)).toBe(false)
    }
  })
})
