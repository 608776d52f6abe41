/**
 * Concurrent writers and the inbox: real processes commenting on one card
 * at the same moment race on the ref; each lost compare-and-swap re-runs
 * the op and the inbox step on the new snapshot, so every comment lands
 * with its own records in its own commit, and none is lost or doubled.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, makeRepo, run, runJson} from '../helpers/cli'

afterAll(() => cleanupAll())

describe('inbox under concurrent writers', () => {
  it('six agents comment at once: the subscriber gets six records, each in its comment commit', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const id = (await runJson(repo, ['add', 'Busy card'], {env: {TASKS_ACTOR: 'alice'}})).task.id
    await runJson(repo, ['watch', id], {env: {TASKS_ACTOR: 'sue'}})
    const agents = Array.from({length: 6}, (_, i) => `agent-${i}`)
    const results = await Promise.all(agents.map((a) => run(repo, ['comment', id, `from ${a}`, '--json'], {env: {TASKS_ACTOR: a}})))
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const inbox = await runJson(repo, ['inbox'], {env: {TASKS_ACTOR: 'sue'}})
    expect(inbox.records.map((r: any) => r.actor).sort()).toEqual(agents)
    // Each comment commit carries the record of its own comment.
    for (const r of results) {
      const commit = JSON.parse(r.stdout).commit
      const files = gitSync(repo, ['diff-tree', '--no-commit-id', '--name-only', '-r', commit]).split('\n')
      expect(files.filter((f) => f.startsWith('inbox/sue/'))).toHaveLength(1)
      expect(files.some((f) => f.includes('/comments/'))).toBe(true)
    }
  })
})
