/**
 * The MCP tool table: one entry per tool, each a thin wrapper over the same
 * src/app function as the CLI command of that name, returning the same
 * object the command prints with --json (mutations with `published`) and
 * failing with the same error codes (the server turns a TasksError into a
 * tool error whose text is the `{"error": {code, message, exit, …}}` object
 * of `--json`).
 *
 * Adding a tool is one entry in TOOLS: a name, a description, the input
 * shape (built with the zod instance handed in, so zod is loaded only by
 * `tasks mcp`), and `run`, which gets a per-call Session (the server's
 * long-lived one, re-pointed at the current tip) and the validated input.
 */
import type * as Zod from 'zod'
import * as actions from '../app/task-actions'
import * as batch from '../app/batch-actions'
import * as history from '../app/history-actions'
import type {Session} from '../app/session'
import {search as searchTasks} from '../app/search'
import {prime} from '../app/prime'
import * as coordination from '../app/coordination-actions'
import * as inboxActions from '../app/inbox-actions'
import {taskGraph} from '../app/graph-actions'
import {streamEvents, type TaskEvent} from '../hooks/events'
import {branchForTask} from '../hooks/branch'
import {undo} from '../app/undo'
import * as config from '../app/config-actions'
import * as sharing from '../app/sharing'
import {exportDocument, exportMarkdown, importFile, importParsed} from '../app/interchange'
import {renderDot, renderMermaid} from '../render/graph-text'
import * as compact from '../render/compact-views'
import {parseDurationSeconds} from '../core/duration-flag'
import {UsageError} from '../core/errors'
import type {InboxRecord} from './inbox-source'
import {DURATION_HINT, parseToolDuration} from './tool-input'

type Z = typeof Zod
type Shape = Record<string, Zod.ZodType>

/** What a tool's run gets besides its input. */
export interface ToolCall {
  /** A session for this call (force/reason applied when the tool takes them). */
  session: Session
  /** The server's agent (`--agent`/`--as`), or null. */
  agent: string | null
  /** Records of the agent's inbox not yet delivered, for `poll_inbox` (acked after this call returns them). */
  pollInbox: () => Promise<{records: InboxRecord[]; source: string}>
}

export interface ToolDef {
  name: string
  /** The CLI command it mirrors (for docs and the README table). */
  command: string
  description: string
  input: (z: Z) => Shape
  /** Takes force/reason (acting on someone else's item), as the command's --force/--reason. */
  override?: boolean
  /** Only reads; hinted to clients as readOnly. */
  readOnly?: boolean
  /**
   * Takes `session`, as the command's --session: the agent session acting
   * (a claim records it). The server applies it to the call's Session.
   */
  session?: boolean
  /**
   * A read tool whose result has a compact form (docs/compact.md): it
   * returns that text by default, and the full JSON with `format: "json"`.
   */
  compact?: (result: any) => string
  /** Runs outside the server's call queue (poll_inbox: it waits for the notifier, whose reads are queued). */
  unqueued?: boolean
  run: (call: ToolCall, args: any) => Promise<unknown>
}

const ids = (z: Z) => z.union([z.string(), z.array(z.string()).min(1)]).describe('task id or unique prefix, or several as an array (one batch, one commit)')
const idList = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v])
const epoch = (z: Z) => z.number().int().optional().describe('fencing token from your claim: refused if the item was claimed again since')
const ifRevision = (z: Z) => z.number().int().min(0).optional().describe('apply only if the card is still at this revision (from show/list); else revision_mismatch (exit 4), nothing written')
const olderThan = (z: Z, what: string) => z.union([z.string(), z.number().int().positive()]).optional().describe(`${what} (${DURATION_HINT})`)
const parseAge = (v: string | number | undefined, flag: string): number | undefined => (v === undefined ? undefined : parseDurationSeconds(String(v), flag))
const lease = (z: Z) => z.union([z.string(), z.number().int().positive()]).optional().describe(`lease length (${DURATION_HINT}); default: the list's lease_seconds`)

export const TOOLS: ToolDef[] = [
  {
    name: 'list',
    command: 'list',
    readOnly: true,
    description: 'List tasks (open ones by default), as `tasks list --json`: rows with state, owner, blocked_by; total and summary.',
    input: (z) => ({
      status: z.array(z.string()).optional().describe('states: ready, waiting, reserved, todo, in_progress, stale, blocked, done, cancelled; open, all'),
      tags: z.array(z.string()).optional(),
      owner: z.string().optional().describe('claimed by this actor (@me: you)'),
      assignee: z.string().optional(),
      parent: z.string().optional(),
      priority: z.array(z.string()).optional(),
      ready: z.boolean().optional().describe('only items you could claim now'),
      all: z.boolean().optional(),
      sort: z.string().optional(),
      limit: z.number().int().min(0).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    compact: (r) => compact.compactList(r),
    run: ({session}, a) => actions.list(session, a),
  },
  {
    name: 'show',
    command: 'show',
    readOnly: true,
    description: 'One task with its newest checkpoint, description, comments, checks, dependencies, dependents and sub-items, as `tasks show ID --json`.',
    input: (z) => ({id: z.string()}),
    compact: (r) => compact.compactShow(r),
    run: ({session}, a) => actions.show(session, a.id),
  },
  {
    name: 'add',
    command: 'add',
    description: 'Add a task. With key, adding again returns the same task (idempotent).',
    input: (z) => ({
      title: z.string(),
      body: z.string().optional(),
      tags: z.array(z.string()).optional(),
      parent: z.string().optional(),
      depends_on: z.array(z.string()).optional(),
      priority: z.union([z.number().int(), z.string()]).optional().describe('0 (most urgent) to 4; default 2'),
      assignee: z.string().optional(),
      key: z.string().optional().describe('idempotency key'),
    }),
    run: ({session}, a) =>
      actions.add(session, {title: a.title, body: a.body, tags: a.tags, parent: a.parent, dependsOn: a.depends_on, priority: a.priority ?? '2', assignee: a.assignee, key: a.key}),
  },
  {
    name: 'edit',
    command: 'edit',
    description: "Change a task's title, description, priority or tags.",
    input: (z) => ({
      id: z.string(),
      title: z.string().optional(),
      body: z.string().optional(),
      priority: z.union([z.number().int(), z.string()]).optional(),
      add_tags: z.array(z.string()).optional(),
      remove_tags: z.array(z.string()).optional(),
      if_revision: ifRevision(z),
    }),
    run: ({session}, a) => actions.edit(session, {id: a.id, title: a.title, body: a.body, priority: a.priority, addTags: a.add_tags, removeTags: a.remove_tags, ifRevision: a.if_revision}),
  },
  {
    name: 'claim',
    command: 'claim',
    override: true,
    session: true,
    description: 'Claim a task: in_progress, owned by you, with a lease. Atomic: a second claimer gets already_claimed (exit 4).',
    input: (z) => ({id: z.string(), lease: lease(z)}),
    run: ({session}, a) => actions.claim(session, a.id, parseToolDuration(a.lease)),
  },
  {
    name: 'next',
    command: 'next',
    session: true,
    compact: (r) => compact.compactNext(r),
    description: 'Claim the next ready task, or resume the one you hold; includes its description and newest comments. nothing_ready (exit 3) when none.',
    input: (z) => ({tags: z.array(z.string()).optional(), another: z.boolean().optional(), lease: lease(z)}),
    run: ({session}, a) => actions.next(session, {tags: a.tags ?? [], another: a.another, leaseSeconds: parseToolDuration(a.lease)}),
  },
  {
    name: 'heartbeat',
    command: 'heartbeat',
    description: 'Extend the lease of a task you hold.',
    input: (z) => ({id: z.string(), epoch: epoch(z), lease: lease(z)}),
    run: ({session}, a) => actions.beat(session, a.id, a.epoch, parseToolDuration(a.lease)),
  },
  {
    name: 'done',
    command: 'done',
    override: true,
    description: 'Finish tasks you hold (or any, with force and reason); summary records a last checkpoint in the same commit. Refused while a check is pending or the item is flagged.',
    input: (z) => ({id: ids(z), epoch: epoch(z), summary: z.string().optional().describe('what was done (recorded as a checkpoint)'), session: z.string().optional().describe('the agent session writing the checkpoint')}),
    run: ({session}, a) => batch.finish(session, idList(a.id), a.epoch, a.summary !== undefined ? {summary: a.summary, session: a.session} : undefined),
  },
  {
    name: 'block',
    command: 'block',
    override: true,
    description: 'Mark a task blocked, with a note saying on what.',
    input: (z) => ({id: z.string(), note: z.string(), epoch: epoch(z), if_revision: ifRevision(z)}),
    run: ({session}, a) => actions.block(session, a.id, a.note, a.epoch, a.if_revision),
  },
  {
    name: 'reopen',
    command: 'reopen',
    description: 'Reopen done, blocked or in-progress tasks (they become todo).',
    input: (z) => ({id: ids(z)}),
    run: ({session}, a) => batch.reopen(session, idList(a.id)),
  },
  {
    name: 'release',
    command: 'release',
    override: true,
    description:
      'Give back tasks you hold (todo again, no owner); all: every task you hold; session: every task that agent session holds (alone). summary and next record a checkpoint in the same commit.',
    input: (z) => ({
      id: ids(z).optional(),
      all: z.boolean().optional(),
      epoch: epoch(z),
      session: z.string().optional().describe("release every item this agent session holds (whoever the owner): what a runner calls when its agent stops"),
      summary: z.string().optional().describe('what is done so far (with next: a checkpoint)'),
      next: z.string().optional().describe('the next step, for whoever picks it up'),
    }),
    run: ({session}, a) => {
      if (a.session !== undefined) {
        if (a.all || a.id !== undefined || a.summary !== undefined || a.next !== undefined) throw new UsageError('pass session alone: not with id, all, summary or next')
        return coordination.releaseBySession(session, a.session)
      }
      if ((a.summary === undefined) !== (a.next === undefined)) throw new UsageError('release records a checkpoint with both summary (what is done) and next (the next step)')
      const checkpoint = a.summary !== undefined ? {summary: a.summary, next: a.next, session: session.sessionName()} : undefined
      return batch.release(session, a.id === undefined ? [] : idList(a.id), Boolean(a.all), a.epoch, checkpoint)
    },
  },
  {
    name: 'cancel',
    command: 'cancel',
    override: true,
    description: 'Cancel tasks (and their open sub-items), with a reason.',
    input: (z) => ({id: ids(z), reason: z.string()}),
    run: ({session}, a) => batch.cancel(session, idList(a.id), a.reason),
  },
  {
    name: 'comment',
    command: 'comment',
    description: 'Add a comment to a task: kind note (default), decision, problem, lesson or knowledge.',
    input: (z) => ({id: z.string(), text: z.string(), kind: z.string().optional(), if_revision: ifRevision(z)}),
    run: ({session}, a) => actions.comment(session, a.id, a.text, a.kind, a.if_revision),
  },
  {
    name: 'deps',
    command: 'deps',
    description: "Set a task's dependencies (the tasks it waits for); an empty array clears them.",
    input: (z) => ({id: z.string(), depends_on: z.array(z.string()), if_revision: ifRevision(z)}),
    run: ({session}, a) => actions.deps(session, a.id, a.depends_on, a.if_revision),
  },
  {
    name: 'assign',
    command: 'assign',
    description: 'Reserve tasks for an actor (assignee null: unassign).',
    input: (z) => ({id: ids(z), assignee: z.string().nullable(), if_revision: ifRevision(z)}),
    run: ({session}, a) => batch.assign(session, idList(a.id), a.assignee, a.if_revision),
  },
  {
    name: 'sync',
    command: 'sync',
    description: 'Fetch, merge and publish the list through the configured remote.',
    input: () => ({}),
    run: ({session}) => actions.sync(session),
  },
  {
    name: 'log',
    command: 'log',
    readOnly: true,
    description: 'The audit log (one event per commit, newest first), of the list or one task.',
    input: (z) => ({
      id: z.string().optional(),
      limit: z.number().int().min(1).optional(),
      actor: z.array(z.string()).optional(),
      op: z.array(z.string()).optional(),
      since: z.string().optional(),
      until: z.string().optional(),
    }),
    compact: (r) => compact.compactLog(r),
    run: ({session}, a) => history.log(session, a.id, {limit: a.limit, actor: a.actor, op: a.op, since: a.since, until: a.until}),
  },
  {
    name: 'search',
    command: 'search',
    readOnly: true,
    description: 'Ranked full-text search over titles, descriptions and comments, with snippets, as `tasks search --json`.',
    input: (z) => ({
      query: z.string(),
      status: z.array(z.string()).optional(),
      tags: z.array(z.string()).optional(),
      owner: z.string().optional(),
      limit: z.number().int().min(1).optional(),
    }),
    compact: (r) => compact.compactSearch(r),
    run: ({session}, a) => searchTasks(session, {query: a.query, status: a.status, tags: a.tags, owner: a.owner, limit: a.limit}),
  },
  {
    name: 'prime',
    command: 'prime',
    readOnly: true,
    description: "The agent guide for this list (how to find work, claim, heartbeat, record evidence, finish), from the list's current state.",
    input: () => ({}),
    run: ({session}) => prime(session),
  },
  {
    name: 'checkpoint',
    command: 'checkpoint',
    description: 'Record progress on a task you hold (what is done, the next step) and renew its lease: whoever resumes it sees this checkpoint first.',
    input: (z) => ({
      id: z.string(),
      summary: z.string().describe('what is done so far'),
      next: z.string().describe('the next step'),
      session: z.string().optional().describe('the agent session writing it (default: the server\'s TASKS_SESSION)'),
      epoch: epoch(z),
      lease: lease(z),
    }),
    run: ({session}, a) => actions.checkpoint(session, a.id, {summary: a.summary, next: a.next, session: a.session ?? session.sessionName(), epoch: a.epoch, leaseSeconds: parseToolDuration(a.lease)}),
  },
  {
    name: 'check_add',
    command: 'check add',
    description: 'Add an acceptance criterion or a test to a task (give exactly one); it starts pending, and done is refused until it passed with evidence.',
    input: (z) => ({id: z.string(), acceptance: z.string().optional(), test: z.string().optional(), if_revision: ifRevision(z)}),
    run: ({session}, a) => {
      if ((a.acceptance === undefined) === (a.test === undefined)) throw new UsageError('give exactly one of acceptance or test')
      return coordination.checkAdd(session, a.id, a.acceptance !== undefined ? 'acceptance' : 'test', a.acceptance ?? a.test, a.if_revision)
    },
  },
  {
    name: 'check_pass',
    command: 'check pass',
    description: 'Record that a check passed, with the evidence (a test run, a commit, a URL).',
    input: (z) => ({id: z.string(), check: z.string().describe('check id (chk-…) or a unique prefix'), evidence: z.string(), if_revision: ifRevision(z)}),
    run: ({session}, a) => coordination.checkRecord(session, a.id, a.check, 'passed', a.evidence, a.if_revision),
  },
  {
    name: 'check_fail',
    command: 'check fail',
    description: 'Record that a check failed, with the evidence (kept when it passes later).',
    input: (z) => ({id: z.string(), check: z.string(), evidence: z.string(), if_revision: ifRevision(z)}),
    run: ({session}, a) => coordination.checkRecord(session, a.id, a.check, 'failed', a.evidence, a.if_revision),
  },
  {
    name: 'check_supersede',
    command: 'check supersede',
    description: 'Retire a check that no longer applies, with the reason (its history stays).',
    input: (z) => ({id: z.string(), check: z.string(), reason: z.string(), if_revision: ifRevision(z)}),
    run: ({session}, a) => coordination.checkSupersede(session, a.id, a.check, a.reason, a.if_revision),
  },
  {
    name: 'check_list',
    command: 'check list',
    readOnly: true,
    description: "A task's checks, and which ones stand in the way of done (unmet).",
    input: (z) => ({id: z.string()}),
    run: ({session}, a) => coordination.checkList(session, a.id),
  },
  {
    name: 'flag',
    command: 'flag',
    description: 'Flag a task: it cannot be finished, and anyone may take it over from its owner.',
    input: (z) => ({id: z.string(), reason: z.string().describe('what is wrong'), if_revision: ifRevision(z)}),
    run: ({session}, a) => coordination.flag(session, a.id, a.reason, a.if_revision),
  },
  {
    name: 'unflag',
    command: 'unflag',
    description: "Clear a task's flag.",
    input: (z) => ({id: z.string(), if_revision: ifRevision(z)}),
    run: ({session}, a) => coordination.unflag(session, a.id, a.if_revision),
  },
  {
    name: 'takeover',
    command: 'takeover',
    session: true,
    description: "Take a task over from an owner that will not come back: epoch + 1, recorded with the reason; the old owner's done with its epoch is refused.",
    input: (z) => ({id: z.string(), reason: z.string(), lease: lease(z)}),
    run: ({session}, a) => coordination.takeover(session, a.id, a.reason, parseToolDuration(a.lease)),
  },
  {
    name: 'sweep',
    command: 'sweep',
    description: 'Reopen in-progress tasks whose lease expired (owner cleared, assignment kept).',
    input: () => ({}),
    run: ({session}) => coordination.sweep(session),
  },
  {
    name: 'prune',
    command: 'prune',
    description: "Remove finished tasks older than the list's retention (or older_than), keeping any a live task still needs; history keeps everything.",
    input: (z) => ({older_than: olderThan(z, 'age of a finished item to remove')}),
    run: ({session}, a) => coordination.prune(session, parseAge(a.older_than, 'older-than')),
  },
  {
    name: 'batch',
    command: 'batch',
    session: true,
    description:
      'Apply a list of operations (create with local "name"s referred to as "$name", edit, comment, deps, claim, next, heartbeat, done, block, reopen, release, cancel, assign, rm, check, flag, unflag, takeover, sweep; if_revision on those that change a card) as one commit, or none; each: apply what can be and report each refused one.',
    input: (z) => ({operations: z.array(z.record(z.string(), z.unknown())).describe('the operations, as `tasks batch` takes them'), each: z.boolean().optional()}),
    run: ({session}, a) => coordination.batchFile(session, JSON.stringify(a.operations), a.each ? 'each' : 'atomic'),
  },
  {
    name: 'inbox',
    command: 'inbox',
    readOnly: true,
    description: "Your inbox: records of changes that concern you, unseen ones (all: seen ones too), newest last, as `tasks inbox --json`. Reading does not mark them seen: inbox_ack does.",
    input: (z) => ({all: z.boolean().optional()}),
    compact: (r) => compact.compactInbox(r),
    run: ({session}, a) => inboxActions.inbox(session, {all: a.all}),
  },
  {
    name: 'inbox_ack',
    command: 'inbox ack',
    description: 'Mark inbox records seen: ids (a record id, its 8-hex suffix or a unique prefix), or all.',
    input: (z) => ({ids: z.array(z.string()).optional(), all: z.boolean().optional()}),
    run: ({session}, a) => inboxActions.inboxAck(session, a.ids ?? [], Boolean(a.all)),
  },
  {
    name: 'collab_add',
    command: 'collab add',
    description: 'Add a collaborator to a task (they get its inbox records as the notify rules say).',
    input: (z) => ({id: z.string(), actor: z.string()}),
    run: ({session}, a) => inboxActions.collab(session, a.id, a.actor, false),
  },
  {
    name: 'collab_rm',
    command: 'collab rm',
    description: 'Remove a collaborator from a task.',
    input: (z) => ({id: z.string(), actor: z.string()}),
    run: ({session}, a) => inboxActions.collab(session, a.id, a.actor, true),
  },
  {
    name: 'watch',
    command: 'watch',
    description: 'Subscribe to a task: get inbox records for its changes.',
    input: (z) => ({id: z.string()}),
    run: ({session}, a) => inboxActions.watch(session, a.id, true),
  },
  {
    name: 'unwatch',
    command: 'unwatch',
    description: 'Unsubscribe from a task; mute: get no records for it at all, whatever your role.',
    input: (z) => ({id: z.string(), mute: z.boolean().optional()}),
    run: ({session}, a) => inboxActions.watch(session, a.id, false, Boolean(a.mute)),
  },
  {
    name: 'notify',
    command: 'notify',
    description: "Set a task's own notify rules (ROLE or EVENT:ROLE, +ACTOR / -ACTOR), replacing the list's for it; clear: back to the list's.",
    input: (z) => ({id: z.string(), rules: z.array(z.string()).optional(), clear: z.boolean().optional()}),
    run: ({session}, a) => {
      const rules: string[] = a.rules ?? []
      if (a.clear && rules.length > 0) throw new UsageError('pass rules or clear, not both')
      if (!a.clear && rules.length === 0) throw new UsageError('notify needs rules (ROLE or EVENT:ROLE), or clear')
      return inboxActions.notify(session, a.id, rules)
    },
  },
  {
    name: 'actor_list',
    command: 'actor list',
    readOnly: true,
    description: 'The actors of the list: aliases, muted and watched events, last_seen.',
    input: () => ({}),
    run: ({session}) => inboxActions.actorList(session),
  },
  {
    name: 'actor_add',
    command: 'actor add',
    description: 'Register an actor (or change its preferences): aliases, events to mute or watch.',
    input: (z) => ({
      id: z.string(),
      aliases: z.array(z.string()).optional(),
      mute: z.array(z.string()).optional(),
      unmute: z.array(z.string()).optional(),
      watch: z.array(z.string()).optional(),
      unwatch: z.array(z.string()).optional(),
    }),
    run: ({session}, a) => inboxActions.actorAdd(session, a.id, {mute: a.mute, unmute: a.unmute, watch: a.watch, unwatch: a.unwatch}, a.aliases ?? []),
  },
  {
    name: 'actor_alias',
    command: 'actor alias',
    description: 'Make ALIAS another name of actor ID (one recipient); remove: undo it.',
    input: (z) => ({id: z.string(), alias: z.string(), remove: z.boolean().optional()}),
    run: ({session}, a) => inboxActions.actorAlias(session, a.id, a.alias, Boolean(a.remove)),
  },
  {
    name: 'stale',
    command: 'stale',
    readOnly: true,
    description: 'In-progress tasks without progress and todo tasks nobody picked up, grouped by owner.',
    input: (z) => ({older_than: olderThan(z, "no progress for this long; default: the list's stale_after")}),
    run: ({session}, a) => inboxActions.stale(session, parseAge(a.older_than, 'older-than')),
  },
  {
    name: 'remind',
    command: 'remind',
    description: "Write one digest inbox record per owner of stale work (at most once per the list's cadence), and escalate cards whose owner has not been seen.",
    input: (z) => ({older_than: olderThan(z, "no progress for this long; default: the list's stale_after")}),
    run: ({session}, a) => inboxActions.remindOwners(session, parseAge(a.older_than, 'older-than')),
  },
  {
    name: 'events',
    command: 'events',
    readOnly: true,
    description: 'The change events of the list (one per task per commit, oldest first), as `tasks events --json` prints them, without following; since: only after that commit.',
    input: (z) => ({since: z.string().optional().describe('a commit of the tasks ref'), limit: z.number().int().min(1).optional().describe('only the newest N (default 200)')}),
    run: async ({session}, a) => {
      const events: TaskEvent[] = []
      await streamEvents(session, {since: a.since, follow: false, stopped: new Promise<void>(() => {}), emit: (e) => events.push(e)})
      const limit = a.limit ?? 200
      return {events: events.slice(-limit), total: events.length}
    },
  },
  {
    name: 'graph',
    command: 'graph',
    readOnly: true,
    description: 'The dependency graph of the list (or of the named tasks): json (the model: nodes, edges, critical path, frontier; default), mermaid or dot text.',
    input: (z) => ({ids: z.array(z.string()).optional(), all: z.boolean().optional().describe('include done and cancelled items'), format: z.enum(['json', 'mermaid', 'dot']).optional()}),
    run: async ({session}, a) => {
      const g = await taskGraph(session, a.ids ?? [], {all: a.all})
      const format = a.format ?? 'json'
      // The model exactly as `tasks graph --json` prints it (format names the CLI's default drawing; nothing is drawn).
      if (format === 'json') return {...g, format: 'svg', out: null}
      return {format, text: format === 'dot' ? renderDot(g) : renderMermaid(g)}
    },
  },
  {
    name: 'rm',
    command: 'rm',
    override: true,
    description: 'Remove tasks and their sub-items (history keeps them: `restore` brings one back). Refused while another task depends on one of them; several ids are one commit, all or nothing. Not asked for confirmation.',
    input: (z) => ({id: ids(z)}),
    run: ({session}, a) => batch.remove(session, idList(a.id)),
  },
  {
    name: 'restore',
    command: 'restore',
    description: 'Bring back a removed task with its sub-items and comments, as it was just before it was removed (a new commit). Dependencies on items that are gone are dropped and reported.',
    input: (z) => ({id: z.string().describe('id or unique prefix of the removed task')}),
    run: ({session}, a) => history.restore(session, a.id),
  },
  {
    name: 'undo',
    command: 'undo',
    description: 'Take back your newest change to the list, as a new commit; undo_conflict (exit 4) when a later commit touched the same tasks. Undoing an undo redoes.',
    input: () => ({}),
    run: ({session}) => undo(session),
  },
  {
    name: 'config_list',
    command: 'config list',
    readOnly: true,
    description: "The list's shared settings in effect (config.yaml on the ref), defaults marked.",
    input: () => ({}),
    run: ({session}) => config.configList(session),
  },
  {
    name: 'config_get',
    command: 'config get',
    readOnly: true,
    description: "One of the list's shared settings (lease_seconds, clock_skew_seconds, max_*_bytes, admins, retention_seconds, stale_after_seconds, notify.EVENT, …; config_list lists them): the value in effect and whether it is the default.",
    input: (z) => ({key: z.string()}),
    run: ({session}, a) => config.configGet(session, a.key),
  },
  {
    name: 'config_set',
    command: 'config set',
    description:
      "Change a shared setting, as a commit on the ref: durations (90s, 30m, 2d; a number is seconds) for *_seconds, sizes (64k) for max_*_bytes, a comma list for admins (or add/remove). Values out of bounds: exit 5; only admins may change settings when admins are listed (exit 6).",
    input: (z) => ({
      key: z.string(),
      value: z.string().optional().describe('the new value (as the CLI takes it)'),
      add: z.string().optional().describe('list settings (admins): comma-separated items to add'),
      remove: z.string().optional().describe('list settings (admins): comma-separated items to remove'),
    }),
    run: ({session}, a) => config.configSet(session, {key: a.key, value: a.value, add: a.add, remove: a.remove}),
  },
  {
    name: 'config_unset',
    command: 'config unset',
    description: 'Put a shared setting back to its default, as a commit on the ref.',
    input: (z) => ({key: z.string()}),
    run: ({session}, a) => config.configSet(session, {key: a.key, unset: true}),
  },
  {
    name: 'doctor',
    command: 'doctor',
    description:
      "Check the list's invariants (cycles, dangling edges, nesting, done before dependencies), unreadable files and stale ref locks. fix: repair what can be, in one commit through the usual transaction (the reconciler's repairs, each recorded on its card), and remove ref locks older than 10 minutes. Problems are in the result (violations, broken, locks), not a tool error.",
    input: (z) => ({fix: z.boolean().optional().describe('repair (one commit); default: only report')}),
    run: ({session}, a) => actions.doctor(session, Boolean(a.fix), process.argv[1] ?? 'tasks'),
  },
  {
    name: 'lists',
    command: 'lists',
    readOnly: true,
    description: "The task lists: refs/tasks/* here, and those only the remote has (as last fetched), with task counts and where each stands with the remote.",
    input: () => ({}),
    run: ({session}) => sharing.lists(session),
  },
  {
    name: 'remote',
    command: 'remote',
    readOnly: true,
    description: "The remote the lists are shared through, and where this list stands with it as last fetched (no network): commits not published, commits not here yet.",
    input: () => ({}),
    run: ({session}) => sharing.remoteStatus(session),
  },
  {
    name: 'remote_set',
    command: 'remote set',
    description: 'Share the lists through this git remote (git config tasks.remote): mutations then fetch, run on the remote list and push. remote_not_found (exit 3) for a remote git does not know.',
    input: (z) => ({name: z.string().describe('a git remote, e.g. origin')}),
    run: ({session}, a) => actions.setRemote(session, a.name),
  },
  {
    name: 'remote_unset',
    command: 'remote unset',
    description: 'Stop sharing through a remote: every mutation commits locally only.',
    input: () => ({}),
    run: ({session}) => actions.setRemote(session, null),
  },
  {
    name: 'init',
    command: 'init',
    description:
      "Create the task list in this repository (harmless when it exists). remote: share it through that git remote (a list the remote has is adopted); without it, a list exactly one remote has is adopted.",
    input: (z) => ({remote: z.string().optional()}),
    run: ({session}, a) => actions.initList(session, {remote: a.remote, cli: process.argv[1] ?? 'tasks'}),
  },
  {
    name: 'branch',
    command: 'branch',
    session: true,
    description:
      "Claim a task, then create (or check out) the git branch task/<short id>-<slug> from HEAD in the server's working tree. The claim comes first: a refused claim leaves no branch.",
    input: (z) => ({id: z.string(), lease: lease(z)}),
    run: ({session}, a) => branchForTask(session, a.id, parseToolDuration(a.lease)),
  },
  {
    name: 'export',
    command: 'export',
    readOnly: true,
    description:
      'The list (or some cards) as the versioned document `tasks import` reads (format json: the document itself, as `tasks export --json`), or Markdown for people (format md: {format, text}). Never the claim fencing tokens.',
    input: (z) => ({ids: z.array(z.string()).optional().describe('task ids or unique prefixes (default: the whole list)'), format: z.enum(['json', 'md']).optional()}),
    run: async ({session}, a) => {
      const doc = await exportDocument(session, a.ids ?? [])
      return a.format === 'md' ? {format: 'md', text: exportMarkdown(doc)} : doc
    },
  },
  {
    name: 'import',
    command: 'import',
    description:
      "Import a `tasks export` document or a Taskwarrior `task export` array, as one commit, idempotent by key (importing twice changes nothing). Give exactly one: document (the JSON itself) or file (a path on the server's machine, relative to its working directory).",
    input: (z) => ({
      document: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional().describe('the export document (object) or a Taskwarrior export (array)'),
      file: z.string().optional().describe('a JSON file to read instead'),
    }),
    run: ({session}, a) => {
      if ((a.document === undefined) === (a.file === undefined)) throw new UsageError('give exactly one of document or file')
      // stdin is the protocol's channel: `-` cannot mean it here.
      if (a.file === '-') throw new UsageError('file "-" (stdin) is not available through MCP: pass the JSON as document')
      return a.file !== undefined ? importFile(session, a.file, {quiet: true}) : importParsed(session, a.document, {quiet: true})
    },
  },
  {
    name: 'poll_inbox',
    command: 'inbox',
    unqueued: true,
    description: "Your inbox records not yet delivered (the same ones `tasks mcp --agent` pushes as notifications); they are acknowledged once returned.",
    input: () => ({}),
    run: async ({pollInbox, agent}) => ({agent, ...(await pollInbox())}),
  },
]
