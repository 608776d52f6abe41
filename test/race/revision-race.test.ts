/**
 * Optimistic edits under real concurrency: several processes edit the same
 * card at once, each with `--if-revision` of the revision they read. The
 * revision check runs inside the op, so a process whose compare-and-swap
 * lost re-runs the op on the fresh snapshot and is refused there
 * (revision_mismatch) instead of writing over the winner's change. Each
 * refused agent re-reads the revision from the error and tries again: in
 * the end every change is on the card, none lost and none applied twice.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanupAll, jsonError, run, runJson} from '../helpers/cli'
import {copyRepo, describeRun, history, initRepo} from './support'

const EDITORS = 6
/** Agents in the retry run: each retry is another whole process, so fewer keep the suite quick. */
const RETRIERS = 4

let seed: string
let id: string

beforeAll(async () => {
  seed = await initRepo()
  id = (await runJson(seed, ['add', 'contended card'])).task.id
})

afterAll(() => {
  if (!process.env.KEEP_RACE_REPOS) cleanupAll()
})

describe(`${EDITORS} processes edit one card at once with --if-revision`, {timeout: 120_000}, () => {
  it('exactly one applies; the others are refused with the current revision and the winner; nothing is written for them', async () => {
    const repo = copyRepo(seed)
    const before = history(repo).length
    const results = await Promise.all(
      Array.from({length: EDITORS}, (_, i) => run(repo, ['edit', id, '--tag', `t${i}`, '--if-revision', '1', '--json', '--as', `agent-${i}`])),
    )
    const winners = results.map((r, i) => (r.code === 0 ? i : -1)).filter((i) => i >= 0)
    expect(winners.length, results.map((r, i) => describeRun(`#${i}`, r)).join('\n')).toBe(1)
    const w = winners[0]!
    for (const [i, r] of results.entries()) {
      if (i === w) continue
      expect(r.code, describeRun(`#${i}`, r)).toBe(4)
      const e = jsonError(r)
      expect(e).toMatchObject({code: 'revision_mismatch', id, revision: 2, expected: 1, updated_by: `agent-${w}`})
      expect((e.changes_since as Array<{actor: string; op: string}>)[0]).toMatchObject({actor: `agent-${w}`, op: 'edit'})
    }
    const card = (await runJson(repo, ['show', id])).task
    expect(card.tags).toEqual([`t${w}`])
    expect(card.revision).toBe(2)
    expect(history(repo).length).toBe(before + 1)
  })

  it('agents that retry with the revision from the error all land: every change is on the card exactly once', async () => {
    const repo = copyRepo(seed)
    const attempts = await Promise.all(
      Array.from({length: RETRIERS}, async (_, i) => {
        let revision = 1
        for (let attempt = 1; attempt <= 3 * RETRIERS; attempt++) {
          const r = await run(repo, ['edit', id, '--tag', `t${i}`, '--if-revision', String(revision), '--json', '--as', `agent-${i}`])
          if (r.code === 0) return attempt
          expect(r.code, describeRun(`agent-${i}`, r)).toBe(4)
          const e = jsonError(r)
          expect(e.code).toBe('revision_mismatch')
          expect(e.revision as number).toBeGreaterThan(revision)
          revision = e.revision as number
        }
        throw new Error(`agent-${i} never landed its edit`)
      }),
    )
    expect(attempts.some((a) => a > 1)).toBe(true)
    const card = (await runJson(repo, ['show', id])).task
    expect([...card.tags].sort()).toEqual(Array.from({length: RETRIERS}, (_, i) => `t${i}`).sort())
    expect(card.revision).toBe(1 + RETRIERS)
  })
})
