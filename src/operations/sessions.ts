/**
 * The operations of coordination sessions (`tasks session …`; MCP tools
 * session_create, session_show, …): docs/model.md, "Coordination sessions".
 * Not batch operations: a session is the frame around the work, not an
 * item of it.
 */
import {p} from '../core/params'
import {operation} from './spec'
import {epoch, lease} from './common'

const sessionId = p.string('session id (ses-…) or unique prefix', {positional: true}).need()
const summary = p.string('What is done so far (recorded as a checkpoint of the session).')
const next = p.string('The exact next step, for whoever picks the session up.')

export const sessionCreate = operation({
  name: 'session create',
  toolset: 'sessions',
  summary: "Create a coordination session: the user's demand (description) and the strategy, across tasks, turns and agents.",
  description:
    'The session starts open (nobody holds it): claim it to coordinate (`session claim`). Tasks join it with `add --session ID`, or when TASKS_SESSION holds its id; sub-items join their parent\'s. Search for an open session first (`session list`, `session search`): resume matching work rather than creating a duplicate.',
  params: {
    title: p.string('one-line title (at most 500 bytes)', {positional: true}).need(),
    description: p.text("The user's demand in full: scope, constraints, exclusions, done conditions.", {file: {limit: 'body'}}).need(),
    strategy: p.text('The initial strategy: how the work will be done.', {file: {limit: 'body'}}).need(),
  },
  writes: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session create "Sessions as records" --description "…" --strategy "model, ops, guard, then CLI" --json'],
  run: (e, s, a) => e.workSessions.create(s, a),
})

export const sessionShow = operation({
  name: 'session show',
  toolset: 'sessions',
  summary: 'Show a coordination session: description, strategy, state, owner, revision, checkpoints (newest first), its tasks and their counts.',
  params: {id: sessionId},
  writes: false,
  result: 'session-show',
  examples: ['<%= config.bin %> session show ses-4k2m', '<%= config.bin %> session show ses-4k2m --json'],
  run: (e, s, a) => e.workSessions.show(s, a),
})

export const sessionList = operation({
  name: 'session list',
  toolset: 'sessions',
  summary: 'List coordination sessions, newest first (open and in_progress by default).',
  description: 'A page at a time: --limit (default 50, 0 for all) and --after the next_cursor of the previous page.',
  params: {
    state: p.strings('Only these states: open, in_progress, completed, cancelled; active (open and in_progress), all. Repeatable or comma-separated.', {char: 's'}),
    owner: p.string('Only sessions held by this actor (@me: you).'),
    limit: p.integer('At most N rows (default 50; 0: all).', {char: 'n', min: 0}),
    after: p.string('Continue after the last row of a previous page: its next_cursor.'),
  },
  writes: false,
  result: 'session-list',
  examples: ['<%= config.bin %> session list', '<%= config.bin %> session list --state all --json', '<%= config.bin %> session list --owner @me'],
  run: (e, s, a) => e.workSessions.list(s, a),
})

export const sessionSearch = operation({
  name: 'session search',
  toolset: 'sessions',
  summary: 'Search coordination sessions: titles, descriptions, strategies and checkpoints; ranked.',
  description: 'Every word must match (a word also matches the start of a longer one). Any state unless --state.',
  params: {
    query: p.text('words to look for', {positional: true}).need(),
    state: p.strings('Only these states (open, in_progress, completed, cancelled; active, all).', {char: 's'}),
    limit: p.integer('At most N results (default 20; 0: all).', {char: 'n', min: 0}),
  },
  writes: false,
  result: 'session-search',
  examples: ['<%= config.bin %> session search "lease renewal"', '<%= config.bin %> session search sessions --state active --json'],
  run: (e, s, a) => e.workSessions.search(s, a),
})

export const sessionClaim = operation({
  name: 'session claim',
  toolset: 'sessions',
  summary: 'Claim a coordination session (its own claim and epoch, independent of task claims).',
  description: 'Exactly one claimer wins; the others exit 4 naming the holder. Claiming one you hold renews its lease; a session whose lease ran out may be claimed by anyone (epoch + 1).',
  params: {id: sessionId, lease},
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session claim ses-4k2m --json'],
  run: (e, s, a) => e.workSessions.claim(s, a),
})

export const sessionRevise = operation({
  name: 'session revise',
  toolset: 'sessions',
  summary: "Revise a session's description or strategy (the holder), with a reason; the revision goes up by one.",
  description: 'With --if-revision N the change applies only if the session is still at revision N (else exit 4 revision_mismatch, nothing written).',
  params: {
    id: sessionId,
    description: p.text('The new description (replaces the old one).', {file: {limit: 'body'}}),
    strategy: p.text('The new strategy (replaces the old one).', {file: {limit: 'body'}}),
    ifRevision: p.integer('Apply only if the session is still at this revision (from session show --json); else exit 4 revision_mismatch.', {min: 1}),
    reason: p.string('Why (recorded in the session and the commit).').need(),
    epoch,
  },
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session revise ses-4k2m --strategy "…" --if-revision 2 --reason "the user dropped the board"'],
  run: (e, s, a) => e.workSessions.revise(s, a),
})

export const sessionCheckpoint = operation({
  name: 'session checkpoint',
  toolset: 'sessions',
  summary: 'Record the progress of a session you hold (what is done, the next step) and renew its lease.',
  description: 'Each checkpoint is its own file: checkpoints written on two clones at once are both kept.',
  params: {id: sessionId, summary: summary.need(), next: next.need(), epoch, lease},
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session checkpoint ses-4k2m --summary "model and ops done" --next "guard rules in judges.ts"'],
  run: (e, s, a) => e.workSessions.checkpoint(s, a),
})

export const sessionHeartbeat = operation({
  name: 'session heartbeat',
  toolset: 'sessions',
  summary: 'Extend the lease on a session you hold (never shortens a longer one).',
  params: {id: sessionId, epoch, lease},
  writes: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session heartbeat ses-4k2m --lease 1h'],
  run: (e, s, a) => e.workSessions.heartbeat(s, a),
})

export const sessionRelease = operation({
  name: 'session release',
  toolset: 'sessions',
  summary: 'Give a session back (open again) with its continuation: what is done and the next step.',
  description: 'Release your task claims separately (`release`). Another agent finds the open session, reads its checkpoints and claims it.',
  params: {id: sessionId, summary: summary.need(), next: next.need(), epoch},
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session release ses-4k2m --summary "…" --next "…"'],
  run: (e, s, a) => e.workSessions.release(s, a),
})

export const sessionComplete = operation({
  name: 'session complete',
  toolset: 'sessions',
  summary: 'Complete a session you hold, with a final summary: refused (exit 4) while any of its tasks is not done or cancelled.',
  params: {id: sessionId, summary: p.string('The final summary: what was delivered and how it was checked.').need(), epoch},
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session complete ses-4k2m --summary "delivered; tests green"'],
  run: (e, s, a) => e.workSessions.complete(s, a),
})

export const sessionCancel = operation({
  name: 'session cancel',
  toolset: 'sessions',
  summary: 'Cancel a session (final), with a reason; its holder is told in their inbox.',
  description: "An open session may be cancelled by anyone; a held one by its holder, by anyone once its lease ran out, or with --force. Its tasks stay as they are.",
  params: {id: sessionId, reason: p.string('Why it is cancelled.', {char: 'r'}).need()},
  writes: true,
  override: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session cancel ses-4k2m --reason "the user withdrew the request"'],
  run: (e, s, a) => e.workSessions.cancel(s, a),
})

export const sessionTakeover = operation({
  name: 'session takeover',
  toolset: 'sessions',
  summary: 'Take a held session over from an owner that will not come back (epoch + 1, recorded; the old owner is told).',
  description: 'Only admins when config.yaml lists them. The old owner\'s later writes with --epoch are refused.',
  params: {id: sessionId, reason: p.string('Why (recorded in the history and the old owner\'s inbox).').need(), lease},
  writes: true,
  result: 'session-change',
  examples: ['<%= config.bin %> session takeover ses-4k2m --reason "agent-3 crashed and its host is gone"'],
  run: (e, s, a) => e.workSessions.takeover(s, a),
})
