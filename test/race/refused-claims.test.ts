/**
 * A host that refuses the pending-change refs (`refs/tasks-claims/*`), as a
 * gitolite host does where agents have `RW refs/tasks/` only: here a plain
 * shell hook on a bare remote refuses every such ref and appends one line
 * to a file for each ref it refused, so the test can count what the host
 * was asked.
 *
 * A clone learns it from the first refusal and remembers it for an hour in
 * `<common-dir>/git-tasks/pending-refused-<remote>`; that change and every
 * later one of the clone (other processes included) go straight to the
 * list's ref. So a drain costs at most one refused push per clone, not one
 * per item (docs/remote.md). A refusal in the guard's own words (`[rule]`)
 * is about the change, not the namespace, and is not remembered.
 *
 * Real processes, real git; agents never re-run a command.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, run, runJson} from '../helpers/cli'
import {type FleetLog, describeRun, fleet, expectEachOnce, expectHandedTo, expectLinearHistory, expectOneCommitEach, expectStoppedEmpty, history} from './support'
import {expectSchema, figure, tipOf} from '../remote/support'

type Refusal = 'pre-receive' | 'update' | 'guard'

/**
 * Install a hook on `bare` that refuses every `refs/tasks-claims/*` ref and
 * logs each one; returns the log's path. `pre-receive` and `update` speak
 * as a host does (gitolite's words); `guard` as the pre-receive guard does
 * when it refuses a change by one of its rules.
 */
function refuseClaims(bare: string, how: Refusal): string {
  const log = join(bare, 'refused-claims.log')
  writeFileSync(log, '')
  const say =
    how === 'guard'
      ? `echo "git-tasks refused the update of $ref:" >&2; echo "  commit 0123456789ab tasks/x/task.md: [not_owner] not the owner" >&2`
      : `echo "FATAL: W $ref agent DENIED by fallthru" >&2`
  const script =
    how === 'update'
      ? `#!/bin/sh\nref="$1"\ncase "$ref" in\n  refs/tasks-claims/*) echo "$ref" >> '${log}'; ${say}; exit 1 ;;\nesac\nexit 0\n`
      : `#!/bin/sh\ns=0\nwhile read -r old new ref; do\n  case "$ref" in\n    refs/tasks-claims/*) echo "$ref" >> '${log}'; ${say}; s=1 ;;\n  esac\ndone\nexit $s\n`
  writeFileSync(join(bare, 'hooks', how === 'update' ? 'update' : 'pre-receive'), script, {mode: 0o755})
  return log
}

function refusedLines(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean)
}

function notePath(clone: string): string {
  return join(clone, '.git', 'git-tasks', 'pending-refused-origin')
}

/** Two changes of others pending on the remote, written there directly (past the hook): the list looks busy. */
function busyList(bare: string, ids: string[]): void {
  const tip = tipOf(bare)!
  for (const id of ids) gitSync(bare, ['update-ref', `refs/tasks-claims/main/${id}`, tip])
}

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe('a host that refuses the pending-change refs', () => {
  it.each(['pre-receive', 'update'] as const)('(%s hook) is remembered: one refusal, said once, shown by tasks remote, not asked again', async (how) => {
    const {bare, clones, ids} = await fleet(2, 3)
    const log = refuseClaims(bare, how)
    busyList(bare, [ids[1]!, ids[2]!])
    const clone = clones[1]!

    // On a busy list the claim goes to its pending ref; the host refuses it, and the same claim lands on the list.
    const claim = await run(clone, ['claim', ids[0]!, '--json', '--as', 'bob'])
    expect(claim.code, describeRun('claim', claim)).toBe(0)
    expect(JSON.parse(claim.stdout).task).toMatchObject({id: ids[0], owner: 'bob'})
    expect(refusedLines(log)).toEqual([`refs/tasks-claims/main/${ids[0]}`])
    const warnings = claim.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l).warning)
    expect(warnings.map((w) => w.kind)).toEqual(['pending_refs_refused'])
    expect(warnings[0]).toMatchObject({remote: 'origin'})
    expect(warnings[0].detail).toMatch(/DENIED by fallthru|declined/)
    expect(tipOf(bare)).toBe(JSON.parse(claim.stdout).commit)

    // The note: under the git directory, with a timestamp.
    const note = JSON.parse(readFileSync(notePath(clone), 'utf8'))
    expect(note).toMatchObject({remote: 'origin'})
    expect(Math.abs(Date.parse(note.at) - Date.now())).toBeLessThan(60_000)

    // The next command (another process) goes straight to the list's ref: nothing more refused, nothing said.
    const done = await run(clone, ['done', ids[0]!, '--as', 'bob'])
    expect(done.code, describeRun('done', done)).toBe(0)
    expect(done.stderr).toBe('')
    expect(refusedLines(log)).toHaveLength(1)

    const status = await runJson(clone, ['remote'])
    expectSchema('remote-status', status)
    expect(status.pending_refs_refused).toMatchObject({since: note.at})
    expect(Date.parse(status.pending_refs_refused.until) - Date.parse(note.at)).toBe(3_600_000)
    expect((await run(clone, ['remote'])).stdout).toMatch(/refused the pending-change refs/)

    // The other clone knows nothing of it (no note there), and says so.
    expect(existsSync(notePath(clones[0]!))).toBe(false)
    const other = await runJson(clones[0]!, ['remote'])
    expectSchema('remote-status', other)
    expect(other.pending_refs_refused).toBeNull()
  }, 120_000)

  it('a note older than an hour is not honoured: the next change asks the host again', async () => {
    const {bare, clones, ids} = await fleet(2, 3)
    const log = refuseClaims(bare, 'pre-receive')
    busyList(bare, [ids[1]!, ids[2]!])
    const clone = clones[1]!
    const old = new Date(Date.now() - 61 * 60_000).toISOString()
    writeFileSync(notePath(clone), `${JSON.stringify({remote: 'origin', at: old, detail: 'long ago'})}\n`)
    expect((await runJson(clone, ['remote'])).pending_refs_refused).toBeNull()
    const claim = await run(clone, ['claim', ids[0]!, '--json', '--as', 'bob'])
    expect(claim.code, describeRun('claim', claim)).toBe(0)
    expect(refusedLines(log)).toHaveLength(1)
    expect(claim.stderr).toMatch(/pending_refs_refused/)
    expect(JSON.parse(readFileSync(notePath(clone), 'utf8')).at).not.toBe(old)
  }, 120_000)

  it('a refusal in the guard\'s words ([rule]) is about the change, not the namespace: not remembered', async () => {
    const {bare, clones, ids} = await fleet(2, 3)
    const log = refuseClaims(bare, 'guard')
    busyList(bare, [ids[1]!, ids[2]!])
    const clone = clones[1]!
    const claim = await run(clone, ['claim', ids[0]!, '--json', '--as', 'bob'])
    expect(claim.code, describeRun('claim', claim)).toBe(0)
    expect(refusedLines(log)).toHaveLength(1)
    expect(claim.stderr).not.toMatch(/pending_refs_refused/)
    expect(existsSync(notePath(clone))).toBe(false)
    expect((await runJson(clone, ['remote'])).pending_refs_refused).toBeNull()
  }, 120_000)
})

interface AgentLog extends FleetLog {
  finished: string[]
  gaveUp: string[]
  /** Lines its commands wrote to stderr. */
  said: string[]
}

async function agent(clone: string, actor: string, limit: number): Promise<AgentLog> {
  const log: AgentLog = {actor, claimed: [], finished: [], last: null, gaveUp: [], said: []}
  for (let i = 0; i <= limit; i++) {
    const r = await run(clone, ['next', '--json', '--as', actor])
    log.said.push(...r.stderr.split('\n').filter(Boolean))
    if (r.code !== 0) {
      log.last = r
      if (r.code === 4) log.gaveUp.push(describeRun(`${actor} next`, r))
      return log
    }
    const id = expectHandedTo(actor, r)
    log.claimed.push(id)
    const d = await run(clone, ['done', id, '--json', '--as', actor])
    log.said.push(...d.stderr.split('\n').filter(Boolean))
    expect(d.code, describeRun(`${actor} done ${id}`, d)).toBe(0)
    log.finished.push(id)
  }
  throw new Error(`${actor} was handed more than ${limit} items`)
}

/** `agents` agents drain `items` items through `bare`; checks exactly once; returns the logs and the wall time. */
async function drain(agents: number, items: number, refuse: boolean) {
  const {bare, clones, ids} = await fleet(agents, items)
  const log = refuse ? refuseClaims(bare, 'pre-receive') : null
  const before = history(bare)
  const started = Date.now()
  const logs = await Promise.all(clones.map((c, k) => agent(c, `agent-${k + 1}`, items)))
  const seconds = (Date.now() - started) / 1000
  expect(logs.flatMap((l) => l.gaveUp), 'agents that gave up').toEqual([])
  for (const l of logs) {
    expectStoppedEmpty(l)
    expect(l.finished).toEqual(l.claimed)
  }
  const owner = expectEachOnce(logs, ids)
  const commits = history(bare)
  expectLinearHistory(commits)
  expect(commits.length).toBe(before.length + 2 * items)
  expectOneCommitEach(commits, 'claim', owner)
  expectOneCommitEach(commits, 'done', owner)
  expect(gitSync(bare, ['for-each-ref', '--format=%(refname)', 'refs/tasks-claims/'])).toBe('')
  return {bare, clones, logs, seconds, refused: log ? refusedLines(log) : []}
}

describe('agents draining through a host that refuses the pending-change refs', () => {
  const AGENTS = 6
  const ITEMS = 18

  it(`${AGENTS} agents, ${ITEMS} items: one winner per item, at most one refused push per agent, each clone remembers`, async () => {
    const {clones, logs, seconds, refused} = await drain(AGENTS, ITEMS, true)
    figure(`${AGENTS}-agent drain of ${ITEMS} items through a host refusing refs/tasks-claims/*`, `${seconds.toFixed(1)} s wall, ${refused.length} refused pushes`)
    // Not one per item: each clone asks once at most, then remembers.
    expect(refused.length).toBeLessThanOrEqual(AGENTS)
    const noted = clones.filter((c) => existsSync(notePath(c)))
    expect(noted.length, 'clones with the note: one per refused push').toBe(refused.length)
    for (const c of noted) {
      const status = await runJson(c, ['remote'])
      expectSchema('remote-status', status)
      expect(status.pending_refs_refused).not.toBeNull()
    }
    // Said once by the clone that learnt it, never by the commands that honoured the note.
    const said = logs.map((l) => l.said.filter((line) => line.includes('pending_refs_refused')).length)
    expect(said.reduce((a, b) => a + b, 0)).toBe(refused.length)
    for (const n of said) expect(n).toBeLessThanOrEqual(1)
  }, 10 * 60_000)

  it.runIf(process.env.TASKS_SCALE === '1')(`the same drain through a host that grants them, for comparison (TASKS_SCALE=1)`, async () => {
    const {seconds} = await drain(AGENTS, ITEMS, false)
    figure(`${AGENTS}-agent drain of ${ITEMS} items through a host granting refs/tasks-claims/*`, `${seconds.toFixed(1)} s wall`)
  }, 10 * 60_000)
})
