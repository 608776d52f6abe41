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
  run: (call: ToolCall, args: any) => Promise<unknown>
}

const ids = (z: Z) => z.union([z.string(), z.array(z.string()).min(1)]).describe('task id or unique prefix, or several as an array (one batch, one commit)')
const idList = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v])
const epoch = (z: Z) => z.number().int().optional().describe('fencing token from your claim: refused if the item was claimed again since')
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
    run: ({session}, a) => actions.list(session, a),
  },
  {
    name: 'show',
    command: 'show',
    readOnly: true,
    description: 'One task with its description, comments, dependencies, dependents and sub-items, as `tasks show ID --json`.',
    input: (z) => ({id: z.string()}),
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
    }),
    run: ({session}, a) => actions.edit(session, {id: a.id, title: a.title, body: a.body, priority: a.priority, addTags: a.add_tags, removeTags: a.remove_tags}),
  },
  {
    name: 'claim',
    command: 'claim',
    override: true,
    description: 'Claim a task: in_progress, owned by you, with a lease. Atomic: a second claimer gets already_claimed (exit 4).',
    input: (z) => ({id: z.string(), lease: lease(z)}),
    run: ({session}, a) => actions.claim(session, a.id, parseToolDuration(a.lease)),
  },
  {
    name: 'next',
    command: 'next',
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
    description: 'Finish tasks you hold (or any, with force and reason).',
    input: (z) => ({id: ids(z), epoch: epoch(z)}),
    run: ({session}, a) => batch.finish(session, idList(a.id), a.epoch),
  },
  {
    name: 'block',
    command: 'block',
    override: true,
    description: 'Mark a task blocked, with a note saying on what.',
    input: (z) => ({id: z.string(), note: z.string(), epoch: epoch(z)}),
    run: ({session}, a) => actions.block(session, a.id, a.note, a.epoch),
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
    description: 'Give back tasks you hold (todo again, no owner); all: every task you hold.',
    input: (z) => ({id: ids(z).optional(), all: z.boolean().optional(), epoch: epoch(z)}),
    run: ({session}, a) => batch.release(session, a.id === undefined ? [] : idList(a.id), Boolean(a.all), a.epoch),
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
    input: (z) => ({id: z.string(), text: z.string(), kind: z.string().optional()}),
    run: ({session}, a) => actions.comment(session, a.id, a.text, a.kind),
  },
  {
    name: 'deps',
    command: 'deps',
    description: "Set a task's dependencies (the tasks it waits for); an empty array clears them.",
    input: (z) => ({id: z.string(), depends_on: z.array(z.string())}),
    run: ({session}, a) => actions.deps(session, a.id, a.depends_on),
  },
  {
    name: 'assign',
    command: 'assign',
    description: 'Reserve tasks for an actor (assignee null: unassign).',
    input: (z) => ({id: ids(z), assignee: z.string().nullable()}),
    run: ({session}, a) => batch.assign(session, idList(a.id), a.assignee),
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
    name: 'poll_inbox',
    command: 'inbox',
    description: "Your inbox records not yet delivered (the same ones `tasks mcp --agent` pushes as notifications); they are acknowledged once returned.",
    input: () => ({}),
    run: async ({pollInbox, agent}) => ({agent, ...(await pollInbox())}),
  },
]
