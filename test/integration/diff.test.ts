/**
 * `tasks diff [FROM [TO]]` on hand-made histories with known answers: a
 * list built at pinned times (TASKS_NOW), the diff of a window exactly as
 * JSON (cards added, removed, changed field by field, the description's
 * unified diff, a check passed, a comment added), --actor, the defaults,
 * a bad WHEN; and a history holding a `sync` merge of two clones through a
 * bare remote, where each actor's changes count for them once merged and
 * the merge itself counts for nobody.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {shared} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const DAY1 = '2026-12-01T10:00:00.000Z'
const DAY2 = '2026-12-02T09:00:00.000Z'
const at = (now: string, actor = 'alice') => ({env: {TASKS_NOW: now, TASKS_ACTOR: actor}})
const tip = (repo: string) => gitSync(repo, ['rev-parse', REF]).trim()

describe('tasks diff', {timeout: 120_000}, () => {
  it('a day of changes, exactly: added, removed, changed field by field, description diff, check passed, comment; --actor; defaults; bad WHEN', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'], at(DAY1))
    const a = (await runJson(repo, ['add', 'Write the parser', '--body', 'one\ntwo\nthree\n', '--test', 'parser tests pass'], at(DAY1))).task.id as string
    const b = (await runJson(repo, ['add', 'Old idea'], at(DAY1))).task.id as string
    const c = (await runJson(repo, ['add', 'Docs'], at(DAY1))).task.id as string
    const yesterday = tip(repo)
    const check = (await runJson(repo, ['check', 'list', a], at(DAY1))).checks[0].id as string
    // The next morning.
    await runJson(repo, ['claim', a], at(DAY2, 'bob'))
    await runJson(repo, ['edit', a, '--priority', '1', '-t', 'parser'], at(DAY2))
    await runJson(repo, ['edit', a, '--body', 'one\n2\nthree\n'], at(DAY2, 'bob'))
    await runJson(repo, ['check', 'pass', a, check, '--evidence', 'ci run 42'], at(DAY2, 'bob'))
    await runJson(repo, ['comment', c, 'Started on the outline\nmore later'], at(DAY2, 'bob'))
    await runJson(repo, ['rm', b, '--confirm', b, '--reason', 'dropped'], at(DAY2))
    const d = (await runJson(repo, ['add', 'Release notes', '-p', '1'], at(DAY2, 'carol'))).task.id as string

    // FROM defaults to one day ago (DAY2 + 3h - 1d: after DAY1's commits), TO to the tip.
    const later = '2026-12-02T12:00:00.000Z'
    const out = await runJson(repo, ['diff'], at(later))
    expect(out.from).toMatchObject({commit: yesterday, date: '2026-12-01T10:00:00+00:00', input: null})
    expect(out.to).toMatchObject({commit: tip(repo), input: null})
    expect(out.actors).toBeNull()
    expect(out.summary).toEqual({added: 1, removed: 1, changed: 2, checks_added: 0, checks_passed: 1, checks_failed: 0, comments: 1})
    const byId = new Map<string, any>(out.cards.map((x: any) => [x.id, x]))
    expect(byId.get(a)).toEqual({
      id: a,
      short_id: expect.stringMatching(/^tsk-/),
      title: 'Write the parser',
      change: 'changed',
      fields: [
        {field: 'status', before: 'todo', after: 'in_progress'},
        {field: 'priority', before: 2, after: 1},
        {field: 'tags', before: [], after: ['parser']},
        {field: 'owner', after: 'bob'},
        {field: 'description', before: 'one\ntwo\nthree\n', after: 'one\n2\nthree\n', diff: ['@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']},
      ],
      checks: [{id: check, kind: 'test', text: 'parser tests pass', before: 'pending', after: 'passed', event: 'passed', by: 'bob', evidence: 'ci run 42'}],
      comments: [],
    })
    expect(byId.get(b)).toMatchObject({change: 'removed', title: 'Old idea', short_id: b, fields: expect.arrayContaining([{field: 'title', before: 'Old idea'}])})
    expect(byId.get(c)).toMatchObject({change: 'changed', title: 'Docs', fields: [], checks: [], comments: [{author: 'bob', kind: 'note', first_line: 'Started on the outline'}]})
    expect(byId.get(d)).toMatchObject({change: 'added', title: 'Release notes', fields: expect.arrayContaining([{field: 'priority', after: 1}, {field: 'created_by', after: 'carol'}])})
    expect(out.cards.map((x: any) => x.id)).toEqual([...out.cards.map((x: any) => x.id)].sort())

    // The same window named explicitly (a commit prefix, a time) gives the same cards.
    const explicit = await runJson(repo, ['diff', yesterday.slice(0, 8), '2026-12-02T09:30:00Z'], at(later))
    expect(explicit.cards).toEqual(out.cards)
    expect(explicit.from.input).toBe(yesterday.slice(0, 8))

    // --actor: only what bob's commits changed (not alice's priority and tags, not carol's card).
    const bob = await runJson(repo, ['diff', '--actor', 'bob'], at(later))
    expect(bob.actors).toEqual(['bob'])
    expect(bob.cards.map((x: any) => [x.id, x.fields.map((f: any) => f.field), x.checks.length, x.comments.length])).toEqual(
      [
        [a, ['status', 'owner', 'description'], 1, 0],
        [c, [], 0, 1],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    )
    const alice = await runJson(repo, ['diff', '--actor', 'alice,carol'], at(later))
    expect(alice.summary).toMatchObject({added: 1, removed: 1, changed: 1, checks_passed: 0, comments: 0})

    // A window before anything happened that day: nothing.
    const none = await runJson(repo, ['diff', '2026-12-01T11:00:00Z', '2026-12-01T12:00:00Z'], at(later))
    expect(none.cards).toEqual([])

    // Human text: the standup report; compact: the versioned document.
    const text = await run(repo, ['diff'], at(later))
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('4 cards: 1 added, 1 removed, 2 changed · 1 passed · 1 comment')
    expect(text.stdout).toContain('    status: todo → in_progress')
    expect(text.stdout).toContain('      -two')
    expect(text.stdout).toContain('    check passed by bob  "parser tests pass": ci run 42')
    const compact = await run(repo, ['diff', '--format', 'compact'], at(later))
    expect(compact.stdout.split('\n')[0]).toBe('# git-tasks compact 1: diff (docs/compact.md; ids without tsk-)')
    expect(compact.stdout).toContain('checks_passed: 1')

    // Bad WHEN: exit 2, bad_when; a commit not of the list: exit 3.
    const bad = await run(repo, ['diff', 'yesterday-ish', '--json'], at(later))
    expect(bad.code).toBe(2)
    expect(jsonError(bad).code).toBe('bad_when')
    const badTo = await run(repo, ['diff', '1d', 'nope!', '--json'], at(later))
    expect(badTo.code).toBe(2)
    const head = gitSync(repo, ['commit-tree', '-m', 'x', gitSync(repo, ['mktree'], '').trim()]).trim()
    const foreign = await run(repo, ['diff', head, '--json'], at(later))
    expect(foreign.code).toBe(3)
    expect(tip(repo)).toBe(out.to.commit) // nothing written
  })

  it('through a sync merge of two clones: the net change, and each actor their own changes', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const x = (await runJson(a, ['add', 'Shared card', '--body', 'base\n'], at(DAY1))).task.id as string
    await runJson(b, ['sync'], at(DAY1, 'bob'))
    const base = tip(b)
    expect(tip(a)).toBe(base)
    // Diverged: alice edits offline here, bob comments and adds on the remote; alice's sync merges.
    await runJson(a, ['edit', x, '--priority', '0', '--offline'], at(DAY2))
    await runJson(b, ['comment', x, 'From the other clone'], at(DAY2, 'bob'))
    const y = (await runJson(b, ['add', 'Bob card'], at(DAY2, 'bob'))).task.id as string
    expect((await runJson(a, ['sync'], at(DAY2))).action).toBe('merged')
    const merged = tip(a)
    expect(gitSync(a, ['rev-list', '--parents', '-n1', merged]).trim().split(' ')).toHaveLength(3)

    const net = await runJson(a, ['diff', base, merged], at(DAY2))
    expect(net.summary).toMatchObject({added: 1, changed: 1, comments: 1})
    expect(net.cards.find((c: any) => c.id === x)).toMatchObject({fields: [{field: 'priority', before: 2, after: 0}], comments: [{author: 'bob', first_line: 'From the other clone'}]})

    const bob = await runJson(a, ['diff', base, merged, '--actor', 'bob'], at(DAY2))
    expect(bob.cards.map((c: any) => [c.id, c.change, c.fields.filter((f: any) => f.field === 'priority').length, c.comments.length]).sort()).toEqual(
      [
        [x, 'changed', 0, 1],
        [y, 'added', 1, 0], // an added card lists its priority as set
      ].sort(),
    )
    // Alice merged, but the merge brings bob's work: it is not hers.
    const alice = await runJson(a, ['diff', base, merged, '--actor', 'alice'], at(DAY2))
    expect(alice.cards).toEqual([expect.objectContaining({id: x, change: 'changed', fields: [{field: 'priority', before: 2, after: 0}], comments: []})])
    // The other clone, once synced, sees the same history the same way.
    await runJson(b, ['sync'], at(DAY2, 'bob'))
    expect((await runJson(b, ['diff', base, merged, '--actor', 'alice'], at(DAY2))).cards).toEqual(alice.cards)
  })
})
