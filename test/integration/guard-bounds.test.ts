/**
 * The guard keeps its own clock and bounds what it does not judge (issue 31,
 * items 1 and 8). A real bare remote with the pre-receive guard installed:
 * - a commit dated in the future (bob takes over alice's live claim by
 *   dating his commit after her lease) is refused `clock_skew`, the same
 *   commit dated now `not_owner`; a commit dated before its parent by more
 *   than the skew is refused `clock_skew`; `tasks verify --now` judges as of
 *   a given time (an audit);
 * - a file outside the known kinds (a 3 MB blob under junk/, an executable
 *   .githooks/post-checkout) is refused unless `allowed_paths` allows it,
 *   and any blob over `max_file_bytes` is refused by its size, which the
 *   guard asks git for before it reads anything.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, cleanupAll, gitSync, run, runJson, tempDir} from '../helpers/cli'
import {gitTry, guarded, putFileOnRef, taskPath, tipOf} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const ALICE = {TASKS_ACTOR: 'alice'}
const BOB = {TASKS_ACTOR: 'bob'}
const HOUR = 3600_000

const field = (text: string, key: string, value: string) => text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`)
const show = (clone: string, path: string): string => gitSync(clone, ['cat-file', '-p', `${REF}:${path}`])
const git = (cwd: string, args: string[], env: Record<string, string> = {}, input?: string): string =>
  execFileSync('git', args, {cwd, env: {...TEST_ENV, ...env}, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe']})

/** The ref's tip commit made again with the same tree, parent and message, but committed (and authored) at `at`. */
function redate(clone: string, at: Date): string {
  const tip = gitSync(clone, ['rev-parse', REF]).trim()
  const message = gitSync(clone, ['log', '-1', '--format=%B', tip])
  const date = `@${Math.floor(at.getTime() / 1000)} +0000`
  const commit = git(clone, ['commit-tree', `${tip}^{tree}`, '-p', `${tip}^`, '-F', '-'], {GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date}, message).trim()
  gitSync(clone, ['update-ref', REF, commit, tip])
  return commit
}

/** A commit on the ref adding `path` (a blob from `file`, with `mode`) by plumbing, through a scratch index. */
function addFile(clone: string, path: string, file: string, mode: '100644' | '100755', message: string): string {
  const index = join(tempDir('index-'), 'index')
  const env = {GIT_INDEX_FILE: index}
  const blob = git(clone, ['hash-object', '-w', '--', file]).trim()
  git(clone, ['read-tree', REF], env)
  git(clone, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${path}`], env)
  const tree = git(clone, ['write-tree'], env).trim()
  const commit = git(clone, ['commit-tree', tree, '-p', REF, '-m', message]).trim()
  gitSync(clone, ['update-ref', REF, commit])
  return commit
}

const push = (clone: string) => gitTry(clone, ['push', 'origin', `${REF}:${REF}`])

describe('the guard keeps its own clock', {timeout: 120_000}, () => {
  it('refuses a commit dated beyond the server\'s now + clock_skew_seconds or before its parent, and judges leases at the server\'s clock', async () => {
    const {bare, clones} = await guarded(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'Alice\'s work'], {env: ALICE})).task.id as string
    const claimed = await runJson(a, ['claim', id, '--lease', '2h'], {env: ALICE})
    expect(claimed.task.owner).toBe('alice')
    await runJson(b, ['sync'], {env: BOB})
    const good = tipOf(bare)!
    expect(tipOf(b)).toBe(good)
    const path = taskPath(b, id)
    /** Bob takes alice's card by hand: owner bob, epoch 2, a higher revision, as a claim. */
    const takeOver = () => {
      gitSync(b, ['update-ref', REF, good])
      const text = show(b, path)
      const revision = Number(/^revision: (\d+)$/m.exec(text)![1])
      putFileOnRef(b, path, field(field(field(field(text, 'owner', '"bob"'), 'updated_by', '"bob"'), 'revision', String(revision + 1)), 'epoch', '2'), `claim ${id}\n\nTasks-Op: claim\nActor: bob`)
    }

    // Dated three hours ahead, after alice's lease: refused for its date, naming the commit.
    takeOver()
    const ahead = redate(b, new Date(Date.now() + 3 * HOUR))
    let r = push(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${ahead.slice(0, 12)}`)
    expect(r.stderr).toContain('[clock_skew]')
    expect(tipOf(bare)).toBe(good)

    // The same change dated now: the claim is alice's and live.
    takeOver()
    const now = gitSync(b, ['rev-parse', REF]).trim()
    r = push(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${now.slice(0, 12)}`)
    expect(r.stderr).toContain('[not_owner]')
    expect(r.stderr).not.toContain('[clock_skew]')
    expect(tipOf(bare)).toBe(good)

    // Back-dated: a legal comment of bob's, dated an hour before its parent.
    gitSync(b, ['update-ref', REF, good])
    await runJson(b, ['comment', id, 'looks good', '--offline'], {env: BOB})
    const parentTime = Number(gitSync(b, ['log', '-1', '--format=%ct', good]).trim()) * 1000
    const back = redate(b, new Date(parentTime - HOUR))
    r = push(b)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${back.slice(0, 12)}`)
    expect(r.stderr).toContain('[clock_skew]')
    expect(tipOf(bare)).toBe(good)

    // Within the skew either way is fine: the same comment dated 10 s ahead of now goes through.
    const slightly = redate(b, new Date(Date.now() + 10_000))
    expect(push(b).code).toBe(0)
    expect(tipOf(bare)).toBe(slightly)

    // By hand, an audit judges as of --now: at three hours from now bob's dated take-over is a claim of a lapsed card.
    takeOver()
    const forged = redate(b, new Date(Date.now() + 3 * HOUR))
    const later = new Date(Date.now() + 4 * HOUR).toISOString()
    const audit = await runJson(b, ['verify', good, forged, '--now', later])
    expect(audit.ok).toBe(true)
    expect(audit.now).toBe(later)
    // Without --now, the machine's clock: refused, exit 5, the rule in --json.
    const today = await run(b, ['verify', good, forged, '--json'])
    expect(today.code).toBe(5)
    expect(JSON.parse(today.stdout).refusals).toContainEqual(expect.objectContaining({commit: forged, rule: 'clock_skew', path: null}))
    // As of a time before alice's claim: her own commits are then in the future.
    const early = await run(b, ['verify', '0'.repeat(40), good, '--now', '2001-01-01T00:00:00Z', '--json'])
    expect(early.code).toBe(5)
    expect(JSON.parse(early.stdout).refusals.every((x: any) => x.rule === 'clock_skew')).toBe(true)
    // TASKS_NOW (the test clock) stands in for the machine's clock, as everywhere else.
    expect((await runJson(b, ['verify', good, forged], {env: {TASKS_NOW: later}})).ok).toBe(true)
    const bad = await run(b, ['verify', good, forged, '--now', 'yesterday-ish', '--json'])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.stderr).error.code).toBe('bad_now')
  })
})

describe('the guard bounds what it does not judge', {timeout: 180_000}, () => {
  it('refuses files outside the known kinds unless allowed_paths allows them, and any blob over max_file_bytes', async () => {
    const {bare, clones} = await guarded(1)
    const [c] = clones as [string]
    await runJson(c, ['add', 'Something'], {env: ALICE})
    const files = tempDir('files-')
    const big = join(files, 'big.bin')
    writeFileSync(big, Buffer.alloc(3 * 1024 * 1024, 'x'))
    const hook = join(files, 'post-checkout')
    writeFileSync(hook, '#!/bin/sh\necho pwned\n', {mode: 0o755})
    const small = join(files, 'notes.txt')
    writeFileSync(small, 'plain notes\n')
    const cases = [
      {name: 'a 3 MB blob under junk/', add: () => addFile(c, 'junk/big.bin', big, '100644', 'junk\n\nActor: alice'), path: 'junk/big.bin', rules: ['path_not_allowed', 'file_too_large']},
      {name: 'an executable git hook', add: () => addFile(c, '.githooks/post-checkout', hook, '100755', 'hook\n\nActor: alice'), path: '.githooks/post-checkout', rules: ['path_not_allowed']},
      {name: 'a small file under junk/', add: () => addFile(c, 'junk/notes.txt', small, '100644', 'notes\n\nActor: alice'), path: 'junk/notes.txt', rules: ['path_not_allowed']},
    ]
    const refused = (k: (typeof cases)[number], expected: string[]) => {
      const good = tipOf(bare)!
      gitSync(c, ['update-ref', REF, good])
      const commit = k.add()
      const r = push(c)
      expect(r.code, k.name).not.toBe(0)
      expect(r.stderr, k.name).toContain(`commit ${commit.slice(0, 12)}`)
      expect(r.stderr, k.name).toContain(k.path)
      for (const rule of expected) expect(r.stderr, `${k.name}: ${rule}`).toContain(`[${rule}]`)
      expect(tipOf(bare), k.name).toBe(good)
      gitSync(c, ['update-ref', REF, good])
    }
    for (const k of cases) refused(k, k.rules)

    // The list allows junk/ (a list setting, pushed through the guard like any config change).
    const set = await runJson(c, ['config', 'set', 'allowed_paths', 'junk/**,docs/*.md'], {env: ALICE})
    expect(set.value).toEqual(['junk/**', 'docs/*.md'])
    expect((await runJson(c, ['config', 'get', 'allowed_paths'])).value).toEqual(['junk/**', 'docs/*.md'])
    expect(show(c, 'config.yaml')).toContain('allowed_paths:')
    // The small one is now accepted; the big one is still refused, by its size alone; the hook is still not allowed.
    const notes = addFile(c, 'junk/notes.txt', small, '100644', 'notes\n\nActor: alice')
    expect(push(c).code).toBe(0)
    expect(tipOf(bare)).toBe(notes)
    refused(cases[0]!, ['file_too_large'])
    const again = (() => {
      gitSync(c, ['update-ref', REF, tipOf(bare)!])
      addFile(c, 'junk/big.bin', big, '100644', 'junk\n\nActor: alice')
      return push(c)
    })()
    expect(again.stderr).not.toContain('[path_not_allowed]')
    gitSync(c, ['update-ref', REF, tipOf(bare)!])
    refused(cases[1]!, ['path_not_allowed'])
    // A list may raise the size limit for what it allows; a task file is still read only up to 2 MiB.
    await runJson(c, ['config', 'set', 'max_file_bytes', '4m'], {env: ALICE})
    expect((await runJson(c, ['config', 'get', 'max_file_bytes'])).value).toBe(4 * 1024 * 1024)
    const bigOk = addFile(c, 'junk/big.bin', big, '100644', 'junk\n\nActor: alice')
    expect(push(c).code).toBe(0)
    expect(tipOf(bare)).toBe(bigOk)
    // Out of bounds and malformed values are refused before anything is written.
    expect((await run(c, ['config', 'set', 'max_file_bytes', '1', '--json'], {env: ALICE})).code).toBe(5)
    expect((await run(c, ['config', 'set', 'allowed_paths', 'a\u0001b', '--json'], {env: ALICE})).code).toBe(5)
    expect((await run(c, ['config', 'set', 'allowed_paths', '/etc/*', '--json'], {env: ALICE})).code).toBe(5)
    // The whole history verifies by hand (the accepted junk listed as unjudged, not refused).
    const all = await runJson(bare, ['verify', '0'.repeat(40), tipOf(bare)!])
    expect(all.refusals).toEqual([])
    expect(all.unjudged.map((u: any) => u.path).sort()).toEqual(['junk/big.bin', 'junk/notes.txt'])
  })

  it('learns a blob\'s size from git before reading it: a 60 MB blob is refused without being loaded', async () => {
    const {bare, clones} = await guarded(1)
    const [c] = clones as [string]
    const good = tipOf(bare)!
    const files = tempDir('files-')
    const huge = join(files, 'huge.bin')
    writeFileSync(huge, Buffer.alloc(60 * 1024 * 1024, 'y'))
    const small = join(files, 'small.bin')
    writeFileSync(small, 'y')
    // Through the guard first: refused by size, naming the path, and the ref unmoved.
    const commit = addFile(c, 'config.yaml', huge, '100644', 'config\n\nActor: alice')
    const r = push(c)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`commit ${commit.slice(0, 12)}`)
    expect(r.stderr).toContain('config.yaml')
    expect(r.stderr).toContain('[file_too_large]')
    expect(tipOf(bare)).toBe(good)
    // By hand, the verify process's own peak memory (Node's maxRSS, reported at exit by a preloaded script) with
    // the 60 MB blob against the same update with a 1-byte one. Under an unknown path the guard never asks for its
    // content: the same peak. As config.yaml, the snapshot reader (refstore/object-reader.ts) lets the content
    // stream past its limit without keeping it: some garbage before the next GC, never the blob whole.
    const probe = join(files, 'peak.js')
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(`PEAK ${process.resourceUsage().maxRSS}\\n`))\n")
    const peak = (path: string, file: string): number => {
      gitSync(c, ['update-ref', REF, good])
      const forged = addFile(c, path, file, '100644', 'blob\n\nActor: alice')
      const r = spawnSync(process.execPath, ['-r', probe, BIN, 'verify', good, forged, '--json'], {cwd: c, env: TEST_ENV, encoding: 'utf8'})
      expect(r.status, path).toBe(5)
      expect(JSON.parse(r.stdout).refusals[0].path, path).toBe(path)
      return Number(/PEAK (\d+)/.exec(r.stderr)![1]) // KiB
    }
    const MiB = 1024
    expect(peak('junk/huge.bin', huge) - peak('junk/huge.bin', small)).toBeLessThan(16 * MiB)
    expect(peak('config.yaml', huge) - peak('config.yaml', small)).toBeLessThan(60 * MiB)
  })
})
