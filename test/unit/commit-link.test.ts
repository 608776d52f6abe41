/**
 * The pure parts of the hooks (issue 10): which card a branch or a trailer
 * names, the branch `tasks branch` creates, and the guard's transition table.
 */
import {describe, expect, it} from 'vitest'
import {commitTrailers, idFromBranch, linkTargets, taskBranchName} from '../../src/core/commit-link'
import {judgeTaskChange, TRANSITIONS, fileKindOf} from '../../src/hooks/rules'
import {DEFAULT_CONFIG, type TaskMeta} from '../../src/core/task'

describe('branch names and trailers', () => {
  it('reads the id from the branch forms the issue names, and nothing else', () => {
    expect(idFromBranch('task/tsk-k3v9-wire-the-cas')).toBe('tsk-k3v9')
    expect(idFromBranch('feat/tsk-k3v9q2-x')).toBe('tsk-k3v9q2')
    expect(idFromBranch('tsk-k3v9-x')).toBe('tsk-k3v9')
    expect(idFromBranch('fix/k3v9-slug')).toBe('tsk-k3v9')
    expect(idFromBranch('k3v9')).toBe('tsk-k3v9')
    expect(idFromBranch('main')).toBeNull() // 'i' is not base32
    expect(idFromBranch('a/b/tsk-k3v9-x')).toBeNull()
    expect(idFromBranch('abc-x')).toBeNull() // too short
    expect(idFromBranch(null)).toBeNull()
  })

  it('reads Task/Refs and Closes/Fixes from the trailer block only', () => {
    const msg = 'Subject Task: tsk-zzzz\n\nBody mentions Closes: tsk-yyyy in prose.\n\nTask: tsk-k3v9\nRefs: tsk-aaaa, #tsk-bbbb\nCloses: tsk-cccc\nfixes: dddd\nSigned-off-by: A <a@b>\n'
    expect(commitTrailers(msg)).toEqual({refs: ['tsk-k3v9', 'tsk-aaaa', 'tsk-bbbb'], closes: ['tsk-cccc', 'tsk-dddd']})
    expect(linkTargets(msg, 'task/tsk-eeee-x')).toEqual(['tsk-k3v9', 'tsk-aaaa', 'tsk-bbbb', 'tsk-cccc', 'tsk-dddd'])
    expect(linkTargets('one paragraph\nTask: tsk-k3v9', 'task/tsk-eeee-x')).toEqual(['tsk-eeee'])
    expect(linkTargets('malformed\n\nTask: not an id!', null)).toEqual([])
  })

  it('reads Card: (scitex-todo\'s trailer) as Task:, in any case, and only in the trailer block', () => {
    expect(commitTrailers('Fix it\n\nCard: tsk-k3v9\n')).toEqual({refs: ['tsk-k3v9'], closes: []})
    expect(commitTrailers('Fix it\n\ncard: k3v9, #tsk-aaaa\nTask: tsk-k3v9\n')).toEqual({refs: ['tsk-k3v9', 'tsk-aaaa'], closes: []})
    expect(linkTargets('Fix it\n\nCard: tsk-k3v9', 'task/tsk-eeee-x')).toEqual(['tsk-k3v9'])
    expect(linkTargets('Card: tsk-k3v9 in the subject only', 'main')).toEqual([])
    // Not a near miss: Cards:, Card-Id: are other trailers.
    expect(linkTargets('x\n\nCards: tsk-k3v9\nCard-Id: tsk-k3v9', null)).toEqual([])
  })

  it('makes task/<short id>-<slug> branch names git accepts', () => {
    expect(taskBranchName('tsk-k3v9', 'Wire the claim CAS!')).toBe('task/tsk-k3v9-wire-the-claim-cas')
    expect(taskBranchName('tsk-k3v9', 'Ünïcode — and ../dots')).toBe('task/tsk-k3v9-unicode-and-dots')
    expect(taskBranchName('tsk-k3v9', '日本語')).toBe('task/tsk-k3v9')
  })
})

const base: TaskMeta = {
  id: 'tsk-k3v9q2m8xa', title: 't', status: 'todo', priority: 2, tags: [], depends_on: [], epoch: 0,
  created_at: '2026-11-30T10:00:00.000Z', created_by: 'alice', updated_at: '2026-11-30T10:00:00.000Z', updated_by: 'alice', revision: 1,
}
const facts = (actor: string, time = '2026-11-30T10:30:00.000Z', override: string | null = null) => ({actor, op: 'x', time, override})
const held: TaskMeta = {...base, status: 'in_progress', owner: 'alice', epoch: 1, claimed_at: '2026-11-30T10:00:00.000Z', lease_expires: '2026-11-30T11:00:00.000Z', revision: 2}

describe('the guard\'s rules', () => {
  it('accepts the CLI\'s own transitions by the right actor', () => {
    expect(judgeTaskChange(base, {...held, updated_by: 'alice'}, facts('alice'), DEFAULT_CONFIG)).toEqual([])
    expect(judgeTaskChange(held, {...held, status: 'done', revision: 3}, facts('alice'), DEFAULT_CONFIG)).toEqual([])
    // After the lease expired anyone may take it over.
    expect(judgeTaskChange(held, {...held, owner: 'bob', epoch: 2, updated_by: 'bob', revision: 3}, facts('bob', '2026-11-30T12:00:00.000Z'), DEFAULT_CONFIG)).toEqual([])
  })

  it('refuses forged claims, live takeovers, illegal transitions and backwards epochs', () => {
    const rules = (before: TaskMeta, after: TaskMeta, f = facts('bob')) => judgeTaskChange(before, after, f, DEFAULT_CONFIG).map((r) => r.rule)
    expect(rules(base, {...held, updated_by: 'bob'})).toContain('forged_claim')
    expect(rules(held, {...held, owner: 'bob', epoch: 2, updated_by: 'bob', revision: 3})).toContain('not_owner')
    expect(rules(held, {...held, status: 'done', updated_by: 'bob', revision: 3})).toContain('not_owner')
    expect(rules(held, {...held, status: 'done', updated_by: 'bob', revision: 3}, facts('bob', '2026-11-30T10:30:00.000Z', 'stuck'))).toEqual([])
    expect(rules({...base, status: 'cancelled'}, {...base, status: 'todo', updated_by: 'bob', revision: 2})).toEqual(['illegal_transition'])
    expect(rules(held, {...held, epoch: 0, updated_by: 'alice', revision: 3}, facts('alice'))).toContain('epoch_decreased')
    expect(rules(held, {...held, title: 'x'}, facts('bob'))).toContain('forged_actor')
    // Admins: an override by someone else does not count.
    expect(judgeTaskChange(held, {...held, status: 'done', updated_by: 'bob', revision: 3}, facts('bob', undefined, 'why'), {...DEFAULT_CONFIG, admins: ['carol']}).map((r) => r.rule)).toContain('not_admin')
  })

  it('every transition row is a real status pair; the coordination kinds are judged, unknown ones named, not judged', () => {
    for (const t of TRANSITIONS) expect(t.from).not.toBe(t.to)
    expect(fileKindOf('tasks/ab/tsk-k3v9/checks/ci.yaml')).toMatchObject({kind: 'check', check: 'check'})
    expect(fileKindOf('inbox/alice/x.md')).toMatchObject({kind: 'inbox', check: 'inbox'})
    expect(fileKindOf('something/else')).toMatchObject({kind: 'unknown', check: null})
    expect(fileKindOf('tasks/ab/tsk-k3v9/task.md').check).toBe('task')
  })
})
