/**
 * Issue 32, items 3, 5 and 6 through the built CLI on real repositories:
 * max_claims_per_actor refusing claim, next --another, a batch and a
 * takeover with nothing written (the ref compared before and after) while
 * `next` resumes, and `tasks verify` refusing a hand-made second live
 * claim; leases renewed by comments, checks and checkpoints, never
 * shortened by a heartbeat (text and JSON say so); a stale --epoch on
 * cancel and edit; require_epoch for an agent session; the takeover's
 * confirmation, revision, expiry and owner refusals, and the old owner's
 * inbox record and refusal telling it the live claim was taken over, and why.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {putFileOnRef, taskPath} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const T0 = Date.parse('2026-03-02T09:00:00.000Z')
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()
const as = (actor: string, minutes?: number, extra: Record<string, string> = {}) => ({env: {TASKS_ACTOR: actor, ...(minutes === undefined ? {} : {TASKS_NOW: iso(minutes)}), ...extra}})
const tip = (repo: string) => gitSync(repo, ['rev-parse', REF]).trim()

async function fresh(titles: string[]): Promise<{repo: string; ids: string[]}> {
  const repo = makeRepo()
  await runJson(repo, ['init'])
  const r = await runJson(repo, ['batch', '-'], {...as('alice', 0), input: JSON.stringify(titles.map((title) => ({op: 'add', title})))})
  return {repo, ids: r.results.map((x: {id: string}) => x.id)}
}

/** Run a command that must be refused with `exit` and `code`, and leave the ref where it was. */
async function refused(repo: string, args: string[], exit: number, code: string, options: {env: Record<string, string>; input?: string}) {
  const before = tip(repo)
  const r = await run(repo, [...args, '--json'], options)
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(exit)
  const e = jsonError(r)
  expect(e.code).toBe(code)
  expect(tip(repo)).toBe(before)
  return e
}

describe('one live claim per actor (max_claims_per_actor)', {timeout: 120_000}, () => {
  it('claim, next --another, a batch and a takeover are refused at the limit with nothing written; next resumes; the guard refuses a forged second claim', async () => {
    const {repo, ids} = await fresh(['first', 'second', 'third'])
    const [a, b, c] = ids as [string, string, string]
    expect((await runJson(repo, ['config', 'set', 'max_claims_per_actor', '1'], as('alice'))).value).toBe(1)
    await runJson(repo, ['claim', a], as('alice'))
    const limitGuard = tip(repo)
    const e = await refused(repo, ['claim', b], 4, 'claim_limit', as('alice'))
    expect(e.message).toContain(a)
    expect(e.held).toEqual([expect.objectContaining({id: a, status: 'in_progress'})])
    await refused(repo, ['next', '--another'], 4, 'claim_limit', as('alice'))
    await refused(repo, ['batch', '-'], 4, 'claim_limit', {...as('alice'), input: JSON.stringify([{op: 'claim', id: b}])})
    const resumed = await runJson(repo, ['next'], as('alice'))
    expect(resumed).toMatchObject({resumed: true, task: {id: a, owner: 'alice'}})
    // bob's live claim: alice, at her limit, may not take it over either.
    const bobs = await runJson(repo, ['claim', c], as('bob'))
    await refused(repo, ['takeover', c, '--reason', 'bob is gone', '--confirm', c], 4, 'claim_limit', as('alice'))

    // The guard: a hand-made commit giving alice c as a second live claim (bob's legitimate claim of c, restamped as
    // hers, on top of the tip before it) is refused by `tasks verify`, by the same rule; bob's own claim passes.
    const bobsClaim = tip(repo)
    const claimedText = gitSync(repo, ['cat-file', '-p', `${bobsClaim}:${taskPath(repo, c)}`]).replace(/"bob"/g, '"alice"')
    expect(bobs.task.owner).toBe('bob')
    const beforeBob = gitSync(repo, ['rev-parse', `${bobsClaim}^`]).trim()
    gitSync(repo, ['update-ref', 'refs/tasks/forged', beforeBob])
    const forged = putFileOnRef(repo, taskPath(repo, c), claimedText, `claim ${c}: third\n\nTasks-Op: claim\nTask: ${c}\nActor: alice\nTasks-Epoch: 1`, 'refs/tasks/forged')
    const verdict = await run(repo, ['verify', beforeBob, forged, '--json'])
    expect(verdict.code).toBe(5)
    expect(JSON.parse(verdict.stdout).refusals).toEqual([expect.objectContaining({rule: 'claim_limit', message: expect.stringContaining(a)})])
    expect((await runJson(repo, ['verify', limitGuard, bobsClaim])).ok).toBe(true)
  })
})

describe('leases that activity renews, and fencing', {timeout: 120_000}, () => {
  it('a comment, a check and a checkpoint by the holder renew the lease; heartbeat --lease 1m keeps a 2-hour lease and says so', async () => {
    const {repo, ids} = await fresh(['long job'])
    const [a] = ids as [string]
    const claim = await runJson(repo, ['claim', a, '--lease', '2h'], as('alice', 0))
    expect(claim.task.lease_expires).toBe(iso(120))
    const before = tip(repo)
    const kept = await runJson(repo, ['heartbeat', a, '--lease', '1m'], as('alice', 10))
    expect(kept).toMatchObject({lease_kept: true, lease_asked: iso(11), commit: null, task: {lease_expires: iso(120)}})
    const text = await run(repo, ['heartbeat', a, '--lease', '1m'], as('alice', 10))
    expect(text.stdout).toMatch(/lease kept .*never shortens/)
    expect(tip(repo)).toBe(before)
    // Someone else's comment does not renew; the holder's comment, check add and pass, and checkpoint do (now + 1h).
    await runJson(repo, ['comment', a, 'looks good'], as('bob', 80))
    expect((await runJson(repo, ['show', a])).task.lease_expires).toBe(iso(120))
    await runJson(repo, ['comment', a, 'half way'], as('alice', 90))
    expect((await runJson(repo, ['show', a])).task.lease_expires).toBe(iso(150))
    const chk = (await runJson(repo, ['check', 'add', a, '--test', 'npm test'], as('alice', 100))).check.id
    expect((await runJson(repo, ['show', a])).task.lease_expires).toBe(iso(160))
    const passed = await runJson(repo, ['check', 'pass', a, chk, '--evidence', 'green'], as('alice', 110))
    expect(passed.task.lease_expires).toBe(iso(170))
    const cp = await runJson(repo, ['checkpoint', a, '--summary', 'tests pass', '--next', 'docs'], as('alice', 120))
    expect(cp.task.lease_expires).toBe(iso(180))
    // A stale fencing token on cancel and edit is refused (exit 6), nothing written; the current one goes through.
    const epoch = claim.task.epoch as number
    await refused(repo, ['cancel', a, '--reason', 'no longer needed', '--epoch', String(epoch - 1)], 6, 'stale_epoch', as('alice', 121))
    await refused(repo, ['edit', a, '--title', 'renamed', '--epoch', String(epoch + 1)], 6, 'stale_epoch', as('alice', 121))
    expect((await runJson(repo, ['edit', a, '--title', 'renamed', '--epoch', String(epoch)], as('alice', 121))).task.title).toBe('renamed')
    // require_epoch: an agent session must give it on the card it holds (exit 2, nothing written); a person need not.
    await runJson(repo, ['config', 'set', 'require_epoch', 'true'], as('alice', 122))
    const agent = as('alice', 123, {TASKS_SESSION: 'run-7'})
    const e = await refused(repo, ['comment', a, 'from the agent'], 2, 'epoch_required', agent)
    expect(e.message).toContain('require_epoch')
    await refused(repo, ['cancel', a, '--reason', 'stop'], 2, 'epoch_required', agent)
    await runJson(repo, ['comment', a, 'from the agent', '--epoch', String(epoch)], agent)
    await runJson(repo, ['comment', a, 'from the person'], as('alice', 124))
  })
})

describe('safe takeover', {timeout: 120_000}, () => {
  it('confirmation, revision, own claim and expiry are refused with nothing written; the old owner is told it was live, and why', async () => {
    const {repo, ids} = await fresh(['stuck job'])
    const [x] = ids as [string]
    const held = await runJson(repo, ['claim', x], as('bob', 0))
    const revision = held.task.revision as number
    const noConfirm = await refused(repo, ['takeover', x, '--reason', 'host is gone'], 2, 'not_confirmed', as('alice', 5))
    expect(noConfirm.message).toContain(`--confirm ${x}`)
    await refused(repo, ['takeover', x, '--reason', 'host is gone', '--confirm', `${x}z`], 2, 'not_confirmed', as('alice', 5))
    await refused(repo, ['takeover', x, '--reason', 'host is gone', '--confirm', x, '--if-revision', String(revision - 1)], 4, 'revision_mismatch', as('alice', 5))
    await refused(repo, ['takeover', x, '--reason', 'mine', '--confirm', x], 4, 'already_owned', as('bob', 5))
    const expired = await refused(repo, ['takeover', x, '--reason', 'host is gone', '--confirm', x], 4, 'claim_expired', as('alice', 24 * 60))
    expect(expired.message).toContain('claim it normally')
    const t = await runJson(repo, ['takeover', x, '--reason', 'host is gone', '--confirm', x, '--if-revision', String(revision), '--lease', '2h'], as('alice', 5))
    expect(t).toMatchObject({took_over_from: 'bob', task: {owner: 'alice', epoch: held.task.epoch + 1, lease_expires: iso(125)}})
    const inbox = await runJson(repo, ['inbox'], as('bob', 6))
    const record = inbox.records.find((r: {event: string}) => r.event === 'takeover')
    expect(record.body).toContain("bob's claim was taken over while it was live")
    expect(record.body).toContain('reason: host is gone')
    const displaced = await run(repo, ['done', x, '--json'], as('bob', 7))
    expect(jsonError(displaced)).toMatchObject({code: 'claim_taken_over'})
    expect(jsonError(displaced).message).toContain('taken over while your claim was live: host is gone')
    expect(jsonError(displaced).message).not.toContain('lease had expired')
  })
})

describe('over MCP', {timeout: 120_000}, () => {
  it('every MCP call is an agent\'s: require_epoch asks it for the token; heartbeat keeps a longer lease; takeover needs confirm', async () => {
    const {repo, ids} = await fresh(['agent job', 'bob job'])
    const [a, b] = ids as [string, string]
    await runJson(repo, ['config', 'set', 'require_epoch', 'true'], as('alice'))
    await runJson(repo, ['claim', b], as('bob'))
    const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'alice', '--toolsets', 'all'], cwd: repo, env: {...TEST_ENV}, stderr: 'pipe'})
    const client = new Client({name: 'test-agent', version: '1.0.0'})
    await client.connect(transport)
    try {
      const callTool = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({name, arguments: {format: 'json', ...args}})) as {isError?: boolean; content: Array<{text?: string}>}
        return {error: r.isError === true, body: JSON.parse(r.content[0]?.text ?? '{}')}
      }
      const claimed = await callTool('claim', {id: a, lease: 7200})
      expect(claimed.error).toBe(false)
      const before = tip(repo)
      const refusedComment = await callTool('comment', {id: a, text: 'no token'})
      expect(refusedComment).toMatchObject({error: true, body: {error: {code: 'epoch_required', exit: 2}}})
      expect(tip(repo)).toBe(before)
      expect((await callTool('comment', {id: a, text: 'with token', epoch: claimed.body.task.epoch})).error).toBe(false)
      const kept = await callTool('heartbeat', {id: a, epoch: claimed.body.task.epoch, lease: 60})
      expect(kept.body).toMatchObject({lease_kept: true, commit: null})
      const noConfirm = await callTool('takeover', {id: b, reason: 'bob is gone'})
      expect(noConfirm).toMatchObject({error: true, body: {error: {code: 'not_confirmed', exit: 2}}})
    } finally {
      await client.close()
    }
  })
})
