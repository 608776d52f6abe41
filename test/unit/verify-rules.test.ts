/**
 * The guard's rules for the coordination records (src/hooks/rules.ts), as
 * pure functions: flags, takeovers, sweeps, session releases, check
 * transitions and actor entries. The CLI-made histories and the push-level
 * refusals are in test/integration/guard-coordination.test.ts.
 */
import {describe, expect, it} from 'vitest'
import type {Check} from '../../src/core/check'
import type {ActorEntry} from '../../src/core/inbox'
import {DEFAULT_CONFIG, type ListConfig, type TaskMeta} from '../../src/core/task'
import {type CommitFacts, judgeActorChange, judgeCheckChange, judgeDoneChecks, judgeImport, judgeTaskChange} from '../../src/hooks/rules'

const T0 = '2030-01-01T00:00:00.000Z'
const LATER = '2030-01-01T00:10:00.000Z'
const MUCH_LATER = '2030-01-02T00:00:00.000Z'

const held: TaskMeta = {
  id: 'tsk-0123456789',
  title: 'Work',
  status: 'in_progress',
  priority: 2,
  tags: [],
  depends_on: [],
  owner: 'bob',
  epoch: 1,
  claimed_at: T0,
  lease_expires: '2030-01-01T01:00:00.000Z',
  session: 's-1',
  created_at: T0,
  created_by: 'alice',
  updated_at: T0,
  updated_by: 'bob',
  revision: 2,
} as TaskMeta

const facts = (actor: string, op: string, more: Partial<CommitFacts> = {}): CommitFacts => ({actor, op, time: LATER, override: null, ...more})
const rules = (before: TaskMeta, after: Partial<TaskMeta>, f: CommitFacts, config: ListConfig = DEFAULT_CONFIG) =>
  judgeTaskChange(before, {...before, revision: before.revision + 1, updated_by: f.actor, updated_at: f.time, ...after} as TaskMeta, f, config).map((r) => r.rule)
const takeover = {owner: 'alice', epoch: 2, claimed_at: LATER}

describe('task rules for flags, takeovers, sweeps and sessions', () => {
  it('a flagged card cannot go to done; a flag is raised in the actor\'s own name', () => {
    const flagged = {...held, flag_reason: 'spec wrong', flagged_by: 'carol', flagged_at: T0}
    expect(rules(flagged, {status: 'done', owner: undefined}, facts('bob', 'done'))).toContain('flagged')
    expect(rules(held, {status: 'done', owner: undefined}, facts('bob', 'done'))).toEqual([])
    const cleared = {status: 'done' as const, owner: undefined, flag_reason: undefined, flagged_by: undefined, flagged_at: undefined}
    expect(rules(flagged, cleared, facts('bob', 'done'))).toContain('flagged')
    expect(rules(flagged, cleared, facts('bob', 'batch'))).toEqual([])
    expect(rules(flagged, {status: 'done', owner: undefined}, facts('bob', 'batch'))).toContain('flagged')
    expect(rules(held, {flag_reason: 'x', flagged_by: 'carol', flagged_at: LATER}, facts('bob', 'flag'))).toContain('forged_actor')
    expect(rules(held, {flag_reason: 'x', flagged_by: 'bob', flagged_at: LATER}, facts('bob', 'flag'))).toEqual([])
  })

  it('a takeover of a live claim needs Tasks-Takeover, Tasks-Reason and epoch + 1, and an admin when the list has admins', () => {
    const ok = facts('alice', 'takeover', {takeover: 'bob', reason: 'away'})
    expect(rules(held, takeover, ok)).toEqual([])
    expect(rules(held, takeover, facts('alice', 'takeover', {takeover: 'bob'}))).toEqual(expect.arrayContaining(['takeover', 'not_owner']))
    expect(rules(held, {...takeover, epoch: 3}, ok)).toContain('takeover')
    expect(rules(held, takeover, ok, {...DEFAULT_CONFIG, admins: ['carol']})).toContain('takeover')
    expect(rules(held, takeover, facts('carol', 'takeover', {takeover: 'bob', reason: 'away'}), {...DEFAULT_CONFIG, admins: ['carol']})).toContain('forged_claim')
    // Without the takeover op, a live claim is not taken (unless the card is flagged: anyone may then).
    expect(rules(held, takeover, facts('alice', 'claim', {takeover: 'bob'}))).toContain('not_owner')
    expect(rules({...held, flag_reason: 'x', flagged_by: 'carol', flagged_at: T0}, {...takeover, flag_reason: undefined, flagged_by: undefined, flagged_at: undefined}, facts('alice', 'claim', {takeover: 'bob'}))).toEqual([])
  })

  it('someone else\'s claim goes back to todo only by the sweep of an expired lease (epoch + 1) or a forced release of its session', () => {
    const sweep = {status: 'todo' as const, owner: undefined, claimed_at: undefined, lease_expires: undefined, session: undefined, epoch: 2}
    expect(rules(held, sweep, facts('alice', 'sweep', {time: MUCH_LATER}))).toEqual([])
    expect(rules(held, {...sweep, epoch: 1}, facts('alice', 'sweep', {time: MUCH_LATER}))).toContain('sweep')
    expect(rules(held, sweep, facts('alice', 'sweep'))).toEqual(expect.arrayContaining(['sweep', 'not_owner']))
    // The agent-run label frees only the actor's own claims; someone else's need a recorded override (issue 32).
    expect(rules(held, {...sweep, epoch: 1}, facts('runner', 'release', {session: 's-1'}))).toContain('not_owner')
    expect(rules(held, {...sweep, epoch: 1}, facts('runner', 'release', {session: 's-1', override: 'run s-1 stopped'}))).toEqual([])
    expect(rules(held, {...sweep, epoch: 1}, facts(held.owner!, 'release', {session: 's-1'}))).toEqual([])
    expect(rules(held, {...sweep, epoch: 1}, facts('runner', 'release', {session: 's-2'}))).toContain('not_owner')
    expect(rules(held, {...sweep, epoch: 1}, facts('bob', 'release'))).toEqual([])
  })
})

const check: Check = {id: 'chk-abcdefgh', task: 'tsk-0123456789', kind: 'test', text: 'npm test', status: 'pending', spec_revision: 1, added_by: 'alice', added_at: T0, updated_by: 'alice', updated_at: T0}
const judge = (before: Check | undefined, after: Partial<Check> | undefined, actor: string, cardRemoved = false) =>
  judgeCheckChange(before, after && {...(before ?? check), updated_by: actor, updated_at: LATER, ...after}, facts(actor, 'check'), cardRemoved).map((r) => r.rule)

describe('check rules', () => {
  it('added pending; passed and failed with evidence, stamped by the actor; superseded is final and history stays', () => {
    expect(judge(undefined, {}, 'alice')).toEqual([])
    expect(judge(undefined, {status: 'passed', evidence: 'x', passed_by: 'alice', passed_at: LATER}, 'alice')).toContain('check_transition')
    expect(judge(check, {status: 'passed', evidence: 'ci 1', passed_by: 'bob', passed_at: LATER}, 'bob')).toEqual([])
    expect(judge(check, {status: 'passed', passed_by: 'bob', passed_at: LATER}, 'bob')).toContain('check_evidence')
    expect(judge(check, {status: 'passed', evidence: 'ci 1', passed_by: 'alice', passed_at: LATER}, 'bob')).toContain('forged_actor')
    const failed: Check = {...check, status: 'failed', evidence: 'red', failed_by: 'bob', failed_at: LATER}
    expect(judge(failed, {status: 'superseded', superseded_by: 'alice', superseded_at: LATER, supersede_reason: 'moot'}, 'alice')).toEqual([])
    expect(judge(failed, {status: 'superseded', evidence: undefined, superseded_by: 'alice', superseded_at: LATER, supersede_reason: 'moot'}, 'alice')).toContain('check_history')
    expect(judge(failed, {status: 'pending', reset_by: 'alice', reset_at: LATER, spec_revision: 3}, 'alice')).toEqual([])
    expect(judge(failed, {text: 'something easier'}, 'alice')).toContain('check_rewritten')
    expect(judge(check, {text: 'something easier'}, 'alice')).toEqual(['check_transition'])
    const superseded: Check = {...failed, status: 'superseded', superseded_by: 'alice', superseded_at: LATER, supersede_reason: 'moot'}
    expect(judge(superseded, {status: 'passed', evidence: 'x', passed_by: 'alice', passed_at: LATER}, 'alice')).toContain('check_transition')
    expect(judge(check, {status: 'passed', text: 'other', evidence: 'x', passed_by: 'alice', passed_at: LATER}, 'alice')).toContain('check_rewritten')
    expect(judge(check, undefined, 'alice')).toEqual(['check_removed'])
    expect(judge(check, undefined, 'alice', true)).toEqual([])
  })

  it('done needs every active check passed with evidence', () => {
    expect(judgeDoneChecks([check]).map((r) => r.rule)).toEqual(['checks_pending'])
    expect(judgeDoneChecks([{...check, status: 'superseded'}, {...check, status: 'passed', evidence: 'ok'}])).toEqual([])
  })
})

describe('actor entries', () => {
  const slug = (a: string) => a
  const actorRules = (before: ActorEntry | undefined, after: ActorEntry | undefined, actor: string, canonical = actor, config = DEFAULT_CONFIG) =>
    judgeActorChange((after ?? before)!.id, before, after, facts(actor, 'actor'), canonical, config, slug).map((r) => r.rule)
  it('changed by their own actor (or a name that is its alias), the alias target, or an admin', () => {
    expect(actorRules({id: 'alice'}, {id: 'alice', mute: ['comment']}, 'alice')).toEqual([])
    expect(actorRules({id: 'alice'}, {id: 'alice', last_seen: LATER}, 'al', 'alice')).toEqual([])
    expect(actorRules({id: 'alice'}, {id: 'alice', mute: ['comment']}, 'bob')).toEqual(['not_own_actor'])
    expect(actorRules({id: 'alice'}, {id: 'alice', mute: ['comment']}, 'carol', 'carol', {...DEFAULT_CONFIG, admins: ['carol']})).toEqual([])
    expect(actorRules(undefined, {id: 'al', alias_of: 'alice'}, 'alice')).toEqual([])
    // A name already in use (seen, with preferences) is not taken as someone's alias.
    expect(actorRules({id: 'bob', last_seen: T0}, {id: 'bob', alias_of: 'mallory'}, 'mallory')).toEqual(['not_own_actor'])
  })
})

describe('an import', () => {
  const imp = (actor: string) => facts(actor, 'import')
  it('writes cards and checks as the document recorded them, keeping the list\'s epoch and revision', () => {
    // Someone else's card, held and flagged, finished by another: the document's record, not the actor's claim.
    const doc = {...held, status: 'done' as const, owner: undefined, updated_by: 'carol', flag_reason: 'old', flagged_by: 'dave', flagged_at: T0}
    expect(judgeTaskChange(undefined, {...held, created_by: 'carol', updated_by: 'carol'}, imp('alice'), DEFAULT_CONFIG)).toEqual([])
    expect(judgeTaskChange(held, {...doc, revision: held.revision + 1}, imp('alice'), DEFAULT_CONFIG)).toEqual([])
    expect(judgeTaskChange(held, {...doc, revision: held.revision + 1}, facts('alice', 'edit'), DEFAULT_CONFIG).map((r) => r.rule)).toContain('forged_actor')
    expect(judgeTaskChange(held, {...doc, revision: held.revision + 1, epoch: 0}, imp('alice'), DEFAULT_CONFIG).map((r) => r.rule)).toEqual(['epoch_decreased'])
    expect(judgeTaskChange(held, {...doc, revision: held.revision}, imp('alice'), DEFAULT_CONFIG).map((r) => r.rule)).toEqual(['revision'])
    const passed: Check = {...check, status: 'passed', evidence: 'CI 7', passed_by: 'carol', passed_at: T0, updated_by: 'carol'}
    expect(judgeCheckChange(undefined, passed, imp('alice'), false)).toEqual([])
    expect(judgeCheckChange(check, undefined, imp('alice'), false).map((r) => r.rule)).toEqual(['check_removed'])
  })

  it('is for the admins when the list has them', () => {
    const config = {...DEFAULT_CONFIG, admins: ['bob']}
    expect(judgeImport(imp('alice'), DEFAULT_CONFIG)).toEqual([])
    expect(judgeImport(imp('bob'), config)).toEqual([])
    expect(judgeImport(imp('alice'), config).map((r) => r.rule)).toEqual(['not_admin'])
    expect(judgeImport(facts('alice', 'edit'), config)).toEqual([])
  })
})
