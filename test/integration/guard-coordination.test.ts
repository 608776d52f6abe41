/**
 * The server guard and the coordination records (issue 11): checks, flags,
 * takeovers, inbox records and seen markers, actor entries. Histories the
 * real CLI makes on two clones (sync merges included) go through the
 * pre-receive guard; forgeries of each record kind are refused with the
 * commit, the file and the rule named.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expectForgeriesRefused, gitTry, guarded, putFileOnRef, taskPath, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}
const OFF_A = {...ALICE, TASKS_OFFLINE: '1'}
const OFF_B = {...BOB, TASKS_OFFLINE: '1'}

const files = (clone: string, under: string): string[] => gitSync(clone, ['ls-tree', '-r', '--name-only', REF, '--', under]).split('\n').filter(Boolean)
const show = (clone: string, path: string): string => gitSync(clone, ['cat-file', '-p', `${REF}:${path}`])
const field = (text: string, key: string, value: string) => text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`)

describe('the guard judges checks, flags, takeovers, inbox records and actor entries', {timeout: 120_000}, () => {
  let shared: {bare: string; a: string; b: string; id: string; chk: string; good: string}

  it('accepts what the CLI writes on two clones, sync merges of checks and inbox records included', async () => {
    const {bare, clones} = await guarded(2)
    const [a, b] = clones as [string, string]
    // Alice (offline, one push later): a card with a check, claimed, bob a collaborator (he gets inbox records).
    const id = (await runJson(a, ['add', 'Guarded work'], {env: OFF_A})).task.id as string
    const chk = (await runJson(a, ['check', 'add', id, '--test', 'npm test'], {env: OFF_A})).check.id as string
    const spare = (await runJson(a, ['check', 'add', id, '--acceptance', 'docs updated'], {env: OFF_A})).check.id as string
    await runJson(a, ['claim', id], {env: OFF_A})
    await runJson(a, ['collab', 'add', id, 'bob'], {env: OFF_A})
    const other = (await runJson(a, ['add', 'Held by bob'], {env: OFF_A})).task.id as string
    const flagged = (await runJson(a, ['add', 'Will be flagged'], {env: OFF_A})).task.id as string
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('pushed')
    await runJson(b, ['sync'], {env: BOB})
    // Offline on both clones: bob passes the check and comments (records for alice), alice comments and supersedes the other check.
    await runJson(b, ['check', 'pass', id, chk, '--evidence', 'CI run 7 green'], {env: OFF_B})
    await runJson(b, ['comment', id, 'tests pass on my side'], {env: OFF_B})
    await runJson(b, ['claim', other], {env: OFF_B})
    await runJson(b, ['claim', flagged], {env: OFF_B})
    await runJson(a, ['comment', id, 'docs are not needed'], {env: OFF_A})
    await runJson(a, ['check', 'supersede', id, spare, '--reason', 'no docs change'], {env: OFF_A})
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('pushed')
    expect((await runJson(b, ['sync'], {env: BOB})).action).toBe('merged')
    await runJson(a, ['sync'], {env: ALICE})
    // Online from here: each mutation is one push through the guard.
    const inbox = await runJson(b, ['inbox'], {env: BOB})
    expect(inbox.records.length).toBeGreaterThan(0)
    await runJson(b, ['inbox', 'ack', '--all'], {env: BOB})
    await runJson(a, ['inbox', 'ack', '--all'], {env: ALICE})
    await runJson(a, ['actor', 'add', 'alice', '--mute', 'watch'], {env: ALICE})
    await runJson(a, ['takeover', other, '--reason', 'bob is away this week', '--confirm', other], {env: ALICE})
    await runJson(a, ['flag', flagged, 'spec is wrong'], {env: ALICE})
    await runJson(a, ['claim', flagged], {env: ALICE}) // anyone may take a flagged card over; the claim clears the flag
    await runJson(a, ['done', id], {env: ALICE})
    const all = await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])
    expect(all.refusals).toEqual([])
    expect(all.unjudged).toEqual([])
    const kinds = gitSync(bare, ['ls-tree', '-r', '--name-only', REF]).split('\n')
    expect(kinds.some((p) => /\/checks\/chk-/.test(p))).toBe(true)
    expect(kinds.some((p) => /^inbox\/bob\/.*\.seen$/.test(p))).toBe(true)
    expect(kinds.some((p) => /^actors\/alice\.yaml$/.test(p))).toBe(true)
    shared = {bare, a, b, id, chk, good: tipOf(bare)!}
  })

  it('refuses a forged check pass, a done with a pending check, an edited inbox record and someone else\'s seen marker, naming commit, file and rule', async () => {
    const {bare, a} = shared
    // A card of alice's with a pending check, and an inbox record for alice: the ground for the forgeries.
    const card = (await runJson(a, ['add', 'Needs a check'], {env: ALICE})).task.id as string
    const pending = (await runJson(a, ['check', 'add', card, '--test', 'e2e'], {env: ALICE})).check.id as string
    await runJson(a, ['claim', card], {env: ALICE})
    await runJson(a, ['collab', 'add', card, 'bob'], {env: ALICE})
    await runJson(a, ['comment', card, 'bob, please look'], {env: BOB}) // a record for alice (owner), written by bob
    const good = tipOf(bare)!
    const checkFile = files(a, 'tasks').find((p) => p.endsWith(`/${card}/checks/${pending}.md`))!
    const record = files(a, 'inbox/alice').filter((p) => p.endsWith('.md')).pop()!
    const cases: Array<{name: string; path: string; forge: () => string; rule: string}> = [
      {
        name: 'bob passes the check in alice\'s name',
        path: checkFile,
        forge: () => putFileOnRef(a, checkFile, field(field(show(a, checkFile), 'status', '"passed"'), 'updated_by', '"alice"').replace(/^updated_by:/m, 'evidence: "x"\npassed_by: "alice"\npassed_at: "2030-01-01T00:00:00.000Z"\nupdated_by:'), 'check: forged\n\nTasks-Op: check\nActor: bob'),
        rule: 'forged_actor',
      },
      {
        name: 'a pass without evidence',
        path: checkFile,
        forge: () => putFileOnRef(a, checkFile, field(show(a, checkFile), 'status', '"passed"').replace(/^updated_by:/m, 'passed_by: "alice"\npassed_at: "2030-01-01T00:00:00.000Z"\nupdated_by:'), 'check: no evidence\n\nTasks-Op: check\nActor: alice'),
        rule: 'check_evidence',
      },
      {name: 'a check removed while its card stays', path: checkFile, forge: () => putFileOnRef(a, checkFile, null, 'check: gone\n\nTasks-Op: check\nActor: alice'), rule: 'check_removed'},
      {
        name: 'done with a pending check',
        path: taskPath(a, card),
        forge: () => putFileOnRef(a, taskPath(a, card), field(field(show(a, taskPath(a, card)), 'status', '"done"'), 'revision', '99'), `done ${card}\n\nTasks-Op: done\nActor: alice`),
        rule: 'checks_pending',
      },
      {name: 'an inbox record edited', path: record, forge: () => putFileOnRef(a, record, `${show(a, record)}edited\n`, 'ack\n\nTasks-Op: ack\nActor: alice'), rule: 'inbox_rewritten'},
      {name: 'bob marks alice\'s record seen', path: record.replace(/\.md$/, '.seen'), forge: () => putFileOnRef(a, record.replace(/\.md$/, '.seen'), '', 'ack\n\nTasks-Op: ack\nActor: bob'), rule: 'not_recipient'},
      {
        name: 'bob rewrites alice\'s actor entry',
        path: 'actors/alice.yaml',
        forge: () => putFileOnRef(a, 'actors/alice.yaml', 'id: "alice"\nmute:\n  - "comment"\n', 'actor\n\nTasks-Op: actor\nActor: bob'),
        rule: 'not_own_actor',
      },
    ]
    expectForgeriesRefused(a, bare, good, cases)
  })

  it('accepts the sweep of an expired lease, a release of a stopped session and a prune, as the CLI writes them', async () => {
    const {bare, clones} = await guarded(1)
    const [c] = clones as [string]
    // Pinned times a day back (the guard refuses a commit dated after its own clock: docs/verify.md, "The clock").
    const base = Math.floor(Date.now() / 1000) * 1000 - 86_400_000
    const t = (seconds: number) => new Date(base + seconds * 1000).toISOString()
    const at = (actor: string, now: string, more: Record<string, string> = {}) => ({env: {TASKS_ACTOR: actor, TASKS_NOW: now, TASKS_OFFLINE: '1', ...more}})
    const x = (await runJson(c, ['add', 'Swept'], at('alice', t(0)))).task.id as string
    const y = (await runJson(c, ['add', 'Session work'], at('alice', t(0)))).task.id as string
    await runJson(c, ['claim', x, '--lease', '60s'], at('bob', t(1)))
    await runJson(c, ['claim', y], at('bob', t(2), {TASKS_SESSION: 'run-7'}))
    expect(JSON.stringify(await runJson(c, ['release', '--session', 'run-7', '--force', '--reason', 'run-7 stopped'], at('runner', t(30))))).toContain(y)
    expect(JSON.stringify(await runJson(c, ['sweep'], at('alice', t(3600))))).toContain(x)
    await runJson(c, ['claim', x], at('alice', t(3601)))
    await runJson(c, ['done', x], at('alice', t(3602)))
    expect((await runJson(c, ['prune', '--older-than', '1h'], at('alice', t(10800)))).removed.map((t: any) => t.id)).toEqual([x])
    expect(gitSync(c, ['log', '-1', '--format=%B', REF])).toContain('Tasks-Op: prune')
    expect((await runJson(c, ['sync'], {env: ALICE})).action).toBe('pushed')
    // One batch commit (online, through the guard): a takeover of bob's live claim, an unflag and a done.
    const held = (await runJson(c, ['add', 'Held by bob'], {env: ALICE})).task.id as string
    const mine = (await runJson(c, ['add', 'Flagged then done'], {env: ALICE})).task.id as string
    await runJson(c, ['claim', held], {env: BOB})
    await runJson(c, ['claim', mine], {env: ALICE})
    await runJson(c, ['flag', mine, 'wrong spec'], {env: ALICE})
    const ops = [{op: 'takeover', id: held, reason: 'bob is away', confirm: held}, {op: 'unflag', id: mine}, {op: 'done', id: mine}]
    const batch = await runJson(c, ['batch', '-'], {env: ALICE, input: JSON.stringify(ops)})
    expect(batch.published).toBe(true)
    expect(tipOf(bare)).toBe(batch.commit)
    const all = await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])
    expect(all.refusals).toEqual([])
    // The same sweep with the epoch left as it was is refused.
    const before = tipOf(bare)!
    const z = (await runJson(c, ['add', 'Forged sweep'], {env: ALICE})).task.id as string
    await runJson(c, ['claim', z, '--lease', '60s'], {env: BOB})
    const path = taskPath(c, z)
    const text = show(c, path)
    const forged = putFileOnRef(c, path, field(field(text, 'status', '"todo"'), 'revision', '99').replace(/^(owner|claimed_at|lease_expires): .*\n/gm, '').replace(/^updated_by: .*$/m, 'updated_by: "alice"'), `sweep\n\nTasks-Op: sweep\nActor: alice`)
    const r = gitTry(c, ['push', 'origin', `${REF}:${REF}`])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${forged.slice(0, 12)}`)
    expect(r.stderr).toContain('[sweep]')
    expect(tipOf(bare)).not.toBe(forged)
    expect(tipOf(bare)).not.toBe(before)
  })
  it('accepts an import of another list\'s export as that list recorded it; once the list has admins, only they import', async () => {
    // Another list: carol's and dave's cards, a claim, a comment, a check passed with evidence, a finished card.
    const elsewhere = makeRepo()
    const as = (actor: string) => ({env: {TASKS_ACTOR: actor}})
    await runJson(elsewhere, ['init'], as('carol'))
    const held = (await runJson(elsewhere, ['add', 'Held by carol'], as('carol'))).task.id as string
    await runJson(elsewhere, ['claim', held], as('carol'))
    await runJson(elsewhere, ['comment', held, 'halfway there'], as('carol'))
    const finished = (await runJson(elsewhere, ['add', 'Finished by dave'], as('dave'))).task.id as string
    const chk = (await runJson(elsewhere, ['check', 'add', finished, '--test', 'npm test'], as('dave'))).check.id as string
    await runJson(elsewhere, ['claim', finished], as('dave'))
    await runJson(elsewhere, ['check', 'pass', finished, chk, '--evidence', 'CI run 12 green'], as('dave'))
    await runJson(elsewhere, ['done', finished], as('dave'))
    const doc = join(tempDir('export-'), 'export.json')
    writeFileSync(doc, JSON.stringify(await runJson(elsewhere, ['export'])))

    // Alice imports it into a guarded list, online: one push through the guard, accepted.
    const {bare, clones} = await guarded(1)
    const [c] = clones as [string]
    const imported = await runJson(c, ['import', doc], {env: ALICE})
    expect(imported.created).toBe(2)
    expect(tipOf(bare)).toBe(imported.commit)
    expect(show(c, taskPath(c, held))).toContain('owner: "carol"')
    expect(show(c, taskPath(c, finished))).toContain('updated_by: "dave"')
    expect((await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])).refusals).toEqual([])

    // With admins listed, the CLI refuses a non-admin's import before writing, and the guard refuses one made by hand.
    await runJson(c, ['config', 'set', 'admins', 'bob'], {env: ALICE})
    const good = tipOf(bare)!
    const refused = await run(c, ['import', doc, '--json'], {env: ALICE})
    expect(refused.code).toBe(6)
    expect(JSON.parse(refused.stderr).error.code).toBe('not_admin')
    expect(tipOf(bare)).toBe(good)
    const card = taskPath(c, held)
    const forged = putFileOnRef(c, card, field(show(c, card), 'revision', '99'), 'import 1 task\n\nTasks-Op: import\nActor: alice')
    const r = gitTry(c, ['push', 'origin', `${REF}:${REF}`])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${forged.slice(0, 12)}`)
    expect(r.stderr).toContain('[not_admin]')
    expect(tipOf(bare)).toBe(good)
    gitSync(c, ['update-ref', REF, good])
    // Bob, the admin, may: the same document changed is an update, judged as the document's record.
    const changed = JSON.parse(JSON.stringify(await runJson(elsewhere, ['export'])))
    changed.tasks.find((t: any) => t.id === held).title = 'Held by carol, renamed'
    writeFileSync(doc, JSON.stringify(changed))
    const byBob = await runJson(c, ['import', doc], {env: BOB})
    expect(byBob.updated).toBe(1)
    expect(tipOf(bare)).toBe(byBob.commit)
  })
})
