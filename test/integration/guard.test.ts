/**
 * The server guard (issue 10): `tasks server install-hook` on a plain bare
 * remote, `tasks verify` as its pre-receive. Legal histories go through,
 * sync merges included; a forged claim, a hand-broken file, an illegal
 * transition and, with require_signed, an unsigned or wrongly signed commit
 * are refused with a message the pusher sees naming the commit and the
 * rule. Signing keys are real ssh keys made with ssh-keygen.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {TEST_ENV, cleanupAll, gitSync, makeBareRepo, run, runJson, tempDir} from '../helpers/cli'
import {cloneOf, gitTry, guarded, putFileOnRef, taskPath, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}
/** Alice, committing locally only (published later by one sync: one push, one guard run). */
const OFF = {...ALICE, TASKS_OFFLINE: '1'}
const REF = 'refs/tasks/main'

function pushRef(clone: string): {code: number; stderr: string} {
  return gitTry(clone, ['push', 'origin', `${REF}:${REF}`])
}

/** Replace task.md of `id` on the clone's ref with `edit(old)`, committed by plumbing with these trailers. */
function forgeTask(clone: string, id: string, edit: (text: string) => string, trailers: string): string {
  const path = taskPath(clone, id)
  const old = gitSync(clone, ['cat-file', '-p', `${REF}:${path}`])
  return putFileOnRef(clone, path, edit(old), `forged ${id}\n\n${trailers}`)
}

const field = (text: string, key: string, value: string) => text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`)

describe('the pre-receive guard', {timeout: 90_000}, () => {
  it('passes branches untouched and chains to an existing pre-receive', async () => {
    const bare = makeBareRepo()
    const mark = join(bare, 'chained-ran')
    writeFileSync(join(bare, 'hooks', 'pre-receive'), `#!/bin/sh\ncat > '${mark}'\n`, {mode: 0o755})
    await runJson(tempDir(), ['server', 'install-hook', bare])
    const clone = cloneOf(bare)
    gitSync(clone, ['commit', '-q', '--allow-empty', '-m', 'code'])
    expect(gitTry(clone, ['push', '-q', 'origin', 'HEAD:refs/heads/main']).code).toBe(0)
    expect(readFileSync(mark, 'utf8')).toMatch(/ refs\/heads\/main\n$/)
    const un = await runJson(tempDir(), ['server', 'install-hook', bare, '--uninstall'])
    expect(un.hook.state).toBe('foreign')
    expect(readFileSync(join(bare, 'hooks', 'pre-receive'), 'utf8')).toContain(`cat > '${mark}'`)
    expect(existsSync(join(bare, 'hooks', 'pre-receive.git-tasks-chained'))).toBe(false)
  })

  it('accepts legal histories from several clones, sync merges (with a lost claim repaired) included', async () => {
    const {bare, clones} = await guarded(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'Shared work'], {env: OFF})).task.id as string
    const other = (await runJson(a, ['add', 'Other work', '--depends-on', id], {env: OFF})).task.id as string
    await runJson(a, ['claim', id], {env: OFF})
    await runJson(a, ['comment', id, 'going well'], {env: ALICE})
    await runJson(b, ['sync'], {env: BOB})
    // Both claim the same item offline; each also changes something else; then both sync: two merges.
    await runJson(a, ['done', id, '--offline'], {env: ALICE})
    await runJson(b, ['comment', other, 'offline note', '--offline'], {env: BOB})
    await runJson(b, ['edit', other, '--title', 'Other work, renamed', '--offline'], {env: BOB})
    const third = (await runJson(a, ['add', 'Third', '--offline'], {env: ALICE})).task.id as string
    expect((await runJson(a, ['sync'], {env: ALICE})).action).toBe('pushed')
    const merged = await runJson(b, ['sync'], {env: BOB})
    expect(merged.action).toBe('merged')
    expect(tipOf(bare)).toBe(merged.commit)
    // A claim race across clones resolved by the merge and its reconciler.
    await runJson(a, ['sync'], {env: ALICE})
    const race = (await runJson(a, ['add', 'Raced'], {env: ALICE})).task.id as string
    await runJson(b, ['sync'], {env: BOB})
    await runJson(a, ['claim', race, '--offline'], {env: ALICE})
    await runJson(b, ['claim', race, '--offline'], {env: BOB})
    await runJson(a, ['sync'], {env: ALICE})
    const raced = await runJson(b, ['sync'], {env: BOB})
    expect(raced.action).toBe('merged')
    expect(raced.notes.length + raced.repairs.length).toBeGreaterThan(0)
    expect(tipOf(bare)).toBe(raced.commit)
    // verify by hand over the whole history agrees.
    const all = await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])
    expect(all.ok).toBe(true)
    expect(all.commits).toBeGreaterThan(10)
  })

  it('refuses a forged claim, a takeover of a live claim, a hand-broken file and an illegal transition, naming commit and rule', async () => {
    const {bare, clones} = await guarded(1)
    const [c] = clones as [string]
    const todo = (await runJson(c, ['add', 'Free item'], {env: OFF})).task.id as string
    const held = (await runJson(c, ['add', 'Held item'], {env: OFF})).task.id as string
    await runJson(c, ['claim', held, '--lease', '1h'], {env: OFF})
    const cancelled = (await runJson(c, ['add', 'Cancelled item'], {env: OFF})).task.id as string
    await runJson(c, ['cancel', cancelled, '--reason', 'not needed'], {env: OFF})
    const needed = (await runJson(c, ['add', 'Needed item'], {env: OFF})).task.id as string
    await runJson(c, ['add', 'Needs it', '--depends-on', needed], {env: OFF})
    const gone = (await runJson(c, ['add', 'Removed item'], {env: OFF})).task.id as string
    const gonePath = taskPath(c, gone)
    const goneText = gitSync(c, ['cat-file', '-p', `${REF}:${gonePath}`])
    await runJson(c, ['rm', gone, '--confirm', gone, '--reason', 'gone'], {env: OFF})
    // An undo of one's own change is legal, also when it moves a card back (done → in_progress).
    await runJson(c, ['done', held], {env: OFF})
    await runJson(c, ['undo'], {env: OFF})
    expect((await runJson(c, ['show', held])).task.status).toBe('in_progress')
    // Published in one push: the guard judges all of it (adds, claim, cancel, rm, done, undo) at once.
    expect((await runJson(c, ['sync'], {env: ALICE})).action).toBe('pushed')
    const good = tipOf(bare)!
    const cases: Array<{name: string; forge: () => string; rule: string}> = [
      {
        name: 'bob claims in alice\'s name',
        forge: () => forgeTask(c, todo, (t) => field(field(field(field(t, 'status', '"in_progress"'), 'updated_by', '"bob"'), 'revision', '9'), 'epoch', '1').replace(/^epoch: 1$/m, 'owner: "alice"\nepoch: 1'), 'Tasks-Op: claim\nActor: bob'),
        rule: 'forged_claim',
      },
      {
        name: 'bob takes over alice\'s live claim',
        forge: () => forgeTask(c, held, (t) => field(field(field(field(t, 'owner', '"bob"'), 'updated_by', '"bob"'), 'revision', '9'), 'epoch', '2'), 'Tasks-Op: claim\nActor: bob'),
        rule: 'not_owner',
      },
      {name: 'a hand-broken file', forge: () => putFileOnRef(c, taskPath(c, todo), '---\nid: [oops\n---\n', 'hand edit\n\nActor: bob'), rule: 'schema'},
      {
        name: 'a cancelled item reopened',
        forge: () => forgeTask(c, cancelled, (t) => field(field(field(t, 'status', '"todo"'), 'updated_by', '"alice"'), 'revision', '9'), 'Tasks-Op: reopen\nActor: alice'),
        rule: 'illegal_transition',
      },
      {name: 'removing an item another depends on', forge: () => putFileOnRef(c, taskPath(c, needed), null, `rm ${needed}\n\nTasks-Op: rm\nActor: alice`), rule: 'has_dependents'},
      {name: 'a removed id used again', forge: () => putFileOnRef(c, gonePath, goneText, `add ${gone}\n\nTasks-Op: add\nActor: alice`), rule: 'id_reused'},
    ]
    for (const k of cases) {
      gitSync(c, ['update-ref', REF, good])
      const forged = k.forge()
      const r = pushRef(c)
      expect(r.code, k.name).not.toBe(0)
      expect(r.stderr, k.name).toContain(`commit ${forged.slice(0, 12)}`)
      expect(r.stderr, k.name).toContain(`[${k.rule}]`)
      expect(r.stderr, k.name).toContain('pre-receive hook declined')
      expect(tipOf(bare), k.name).toBe(good)
    }
    // The same checks by hand (a CI job on the ref): exit 5 with the refusals in --json.
    gitSync(c, ['update-ref', REF, good])
    const forged = cases[0]!.forge()
    const r = await run(c, ['verify', good, forged, '--json'])
    expect(r.code).toBe(5)
    expect(JSON.parse(r.stdout).refusals[0]).toMatchObject({commit: forged, rule: 'forged_claim'})
    // A non-fast-forward of the ref is refused too.
    gitSync(c, ['update-ref', REF, good])
    const rewound = gitSync(c, ['rev-parse', `${good}~1`]).trim()
    gitSync(c, ['update-ref', REF, rewound])
    const nff = gitTry(c, ['push', '--force', 'origin', `${REF}:${REF}`])
    expect(nff.code).not.toBe(0)
    expect(nff.stderr).toContain('[non_fast_forward]')
  })

  it('with require_signed, accepts commits signed by the actor\'s ssh key and refuses unsigned and wrongly signed ones', async () => {
    const {bare, clones} = await guarded(2)
    const [a, b] = clones as [string, string]
    const keys = tempDir('keys-')
    const key = (name: string) => {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', join(keys, name)], {env: TEST_ENV})
      return readFileSync(join(keys, `${name}.pub`), 'utf8').trim()
    }
    const alicePub = key('alice')
    const bobPub = key('bob')
    key('mallory')
    writeFileSync(join(bare, 'allowed_signers'), `alice ${alicePub}\nbob ${bobPub}\n`)
    const signWith = (clone: string, name: string) => {
      gitSync(clone, ['config', 'tasks.signCommits', 'true'])
      gitSync(clone, ['config', 'gpg.format', 'ssh'])
      gitSync(clone, ['config', 'user.signingKey', join(keys, name)])
    }
    // Alice turns signing on (a config change, itself legal: the list has no admins yet).
    signWith(a, 'alice')
    // Alice turns signing on with `tasks config set` (online: each change goes through the guard).
    await runJson(a, ['config', 'set', 'allowed_signers', 'allowed_signers'], {env: ALICE})
    expect((await runJson(a, ['config', 'set', 'require_signed', 'true'], {env: ALICE})).value).toBe(true)
    expect(gitSync(bare, ['cat-file', '-p', `${REF}:config.yaml`])).toContain('require_signed: true')
    // Signed by alice's key, acting as alice: accepted (an online mutation, pushed through the guard).
    const id = (await runJson(a, ['add', 'Signed work'], {env: ALICE})).task.id as string
    expect(gitSync(bare, ['cat-file', '-p', REF])).toContain('-----BEGIN SSH SIGNATURE-----')
    expect(gitSync(bare, ['-c', `gpg.ssh.allowedSignersFile=${join(bare, 'allowed_signers')}`, 'log', '-1', '--format=%G? %GS', REF]).trim()).toBe('G alice')
    await runJson(b, ['sync'], {env: BOB})
    // Unsigned, from bob's clone.
    await runJson(b, ['comment', id, 'unsigned note', '--offline'], {env: BOB})
    let r = pushRef(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${tipOf(b)!.slice(0, 12)}`)
    expect(r.stderr).toContain('[unsigned]')
    // Signed with alice's key while acting as bob.
    gitSync(b, ['update-ref', REF, tipOf(bare)!])
    signWith(b, 'alice')
    await runJson(b, ['comment', id, 'signed with someone else\'s key', '--offline'], {env: BOB})
    r = pushRef(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('[wrong_signer]')
    // Signed with a key nobody allowed.
    gitSync(b, ['update-ref', REF, tipOf(bare)!])
    signWith(b, 'mallory')
    await runJson(b, ['comment', id, 'signed by an unknown key', '--offline'], {env: BOB})
    r = pushRef(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('[bad_signature]')
    // Bob's own key: accepted.
    gitSync(b, ['update-ref', REF, tipOf(bare)!])
    signWith(b, 'bob')
    await runJson(b, ['comment', id, 'properly signed', '--offline'], {env: BOB})
    expect(pushRef(b).code).toBe(0)
  })
})
