/**
 * The task model: the fields stored in a task file's frontmatter, the
 * statuses, comment kinds, and the list's shared configuration.
 * Values only; parsing and serialising live in task-file.ts.
 */
import configSchema from '../../schemas/config.schema.json'
import taskSchema from '../../schemas/task.schema.json'

export const STATUSES = ['todo', 'in_progress', 'blocked', 'done', 'cancelled', 'deferred', 'failed'] as const
export type Status = (typeof STATUSES)[number]

/** Statuses after which an item counts as finished for its parent (`failed`: issue 33, terminal like cancelled). */
export const FINISHED: ReadonlySet<Status> = new Set(['done', 'cancelled', 'failed'])

/** The kinds a person or agent picks for `tasks comment`. */
export const COMMENT_KINDS = ['note', 'decision', 'problem', 'lesson', 'knowledge'] as const
/**
 * A progress checkpoint (`tasks checkpoint`, `release --summary --next`,
 * `done --summary`): a comment whose body is the summary, with the next step
 * and the claim it was made under in its frontmatter. Written only by those
 * commands, never by `comment --kind`.
 */
export const CHECKPOINT_KIND = 'checkpoint'
/** Kinds only the tool writes: `commit` (a code commit linked to the card by the git hooks, src/hooks). */
export const TOOL_COMMENT_KINDS = ['commit'] as const
export type CommentKind = (typeof COMMENT_KINDS)[number] | typeof CHECKPOINT_KIND | (typeof TOOL_COMMENT_KINDS)[number]

/**
 * What kind of work an item is (`--type`): `task` unless said otherwise
 * (absent from task.md then). A list may allow fewer (`types` in
 * config.yaml); the guard refuses a type the list does not allow.
 */
export const TASK_TYPES = ['task', 'epic', 'feature', 'milestone', 'bug', 'chore', 'compute', 'goal'] as const
export type TaskType = (typeof TASK_TYPES)[number]
export const DEFAULT_TASK_TYPE: TaskType = 'task'

/** The type of a card: its `type`, else `task`. */
export function typeOf(meta: Pick<TaskMeta, 'type'>): string {
  return meta.type ?? DEFAULT_TASK_TYPE
}

export const MIN_PRIORITY = 0
export const MAX_PRIORITY = 4
export const DEFAULT_PRIORITY = 2

/**
 * One task's frontmatter. Field order here is the order in the file.
 * Optional fields are absent from the file when unset.
 */
export interface TaskMeta {
  id: string
  title: string
  status: Status
  /** What kind of work it is (TASK_TYPES); absent: `task`. Part of the spec: changing it is a new spec revision. */
  type?: string
  /** 0 (most urgent) … 4. */
  priority: number
  tags: string[]
  /** Parent id for a sub-item (nested at most `max_depth` levels, one by default). */
  parent?: string
  /** The coordination session (`ses-…`) the task belongs to: set at creation (or inherited from the parent), never changed. */
  work_session?: string
  depends_on: string[]
  /** Reserved for this actor: nobody else may claim it without --force. */
  assignee?: string
  /** Current claim holder (in_progress or blocked). */
  owner?: string
  /** Fencing token: +1 on every claim, never decreases. */
  epoch: number
  /**
   * Set by a merge that superseded a concurrent claim and moved the epoch
   * past both: the numbers the current claim was handed out under, ending
   * with `epoch`. Its owner may still present any of them; valid only while
   * the last equals `epoch` (docs/merge.md, fencing).
   */
  claim_epochs?: number[]
  claimed_at?: string
  lease_expires?: string
  /** The agent session (TASKS_SESSION / --session) the claim was made in; part of the claim, cleared with it. */
  session?: string
  block_note?: string
  /** `block --on ACTOR`: who the blocked card waits on (it is "parked" on them); part of the claim, cleared with it. */
  blocked_on?: string
  cancel_reason?: string
  // -- issue 33, states and dates (docs/model.md, "Deferred and failed", "Dates and repeats") --
  /** `tasks defer --reason`: why the item is deferred (status deferred). */
  defer_reason?: string
  /** `tasks defer --until`: when a deferred item comes back as todo (derived at read time, `wokenStatus`); absent: deferred until reopened. */
  defer_until?: string
  /** `tasks fail --reason`: why the item failed (status failed). */
  fail_reason?: string
  /** When the item is due (`--due`): a day `YYYY-MM-DD` (due by its end, UTC) or a timestamp. */
  due?: string
  /** Not handed out by `next` before this (`--scheduled`): a day (from its start, UTC) or a timestamp. */
  scheduled?: string
  /** Repeats (`--every 1d|2w|1m|1y`): finishing it creates the next instance with its dates moved on. */
  every?: string
  /** The instance of a repeating item this one follows (set on the instance `done` created). */
  previous?: string
  /** Set while the item is flagged (`tasks flag`): why, by whom, when. A flagged item cannot be finished. */
  flag_reason?: string
  flagged_by?: string
  flagged_at?: string
  closed_at?: string
  /** Idempotency key the task was created with. */
  key?: string
  /** Roles that feed the inbox (docs/model.md, "Roles and inbox records"); absent when empty. */
  collaborators?: string[]
  subscribers?: string[]
  /** Per-card notify override: `role` (every event) or `event:role` entries replacing the list's default roles. */
  notify_roles?: string[]
  /** Per-card mute: these actors get no inbox record about this card, whatever their role. */
  notify_mute?: string[]
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
  /** +1 on every change to the file. */
  revision: number
  /**
   * Custom fields (issue 33, `--field KEY=VALUE`): lowercase keys (FIELD_KEY_RE in core/fields.ts) to
   * one-line text, or a number or boolean when the list declares the key's type (`config set field.KEY TYPE`).
   * Absent when empty. Not part of the spec: an external writer (a CI watcher) may set them on a held card.
   */
  fields?: Record<string, string | number | boolean>
  /** Frontmatter keys this version does not know; kept verbatim so nothing typed is lost. */
  extra?: Record<string, unknown>
}

/** Known frontmatter keys in file order. */
export const TASK_KEYS = [
  'id',
  'title',
  'status',
  'type',
  'priority',
  'tags',
  'parent',
  'work_session',
  'depends_on',
  'assignee',
  'owner',
  'epoch',
  'claim_epochs',
  'claimed_at',
  'lease_expires',
  'session',
  'block_note',
  'blocked_on',
  'cancel_reason',
  // issue 33, states and dates
  'defer_reason',
  'defer_until',
  'fail_reason',
  'due',
  'scheduled',
  'every',
  'previous',
  'flag_reason',
  'flagged_by',
  'flagged_at',
  'closed_at',
  'key',
  'collaborators',
  'subscribers',
  'notify_roles',
  'notify_mute',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'revision',
  // Issue 33: custom fields, after the bookkeeping (appended: the index line keeps the earlier positions).
  'fields',
] as const

export interface Comment {
  /** File stem: `<yyyymmddThhmmss.mmmZ>-<hash>`; sorts by time. */
  id: string
  task: string
  kind: CommentKind
  author: string
  created_at: string
  /** The text; for a checkpoint, the summary of what is done. */
  body: string
  /** Checkpoint only: the next step, for whoever picks the item up. */
  next?: string
  /** Checkpoint only: the agent session that wrote it (`--session`, TASKS_SESSION). */
  session?: string
  /** Checkpoint only: the claim's epoch when it was written. */
  epoch?: number
  /** `comment --key`: the idempotency key; a second comment with it on the same task records nothing. */
  key?: string
}

/** Shared settings of one list (config.yaml on the ref). */
export interface ListConfig {
  lease_seconds: number
  clock_skew_seconds: number
  max_title_bytes: number
  max_body_bytes: number
  max_comment_bytes: number
  admins: string[]
  /** Roles (or `event:role`) notified per event type (op name); `*` for any other op. Missing events take NOTIFY_DEFAULTS. */
  notify: Record<string, string[]>
  /** `tasks stale` and `tasks remind`: an item counts as stale after this long without a change. */
  stale_after_seconds: number
  /** `tasks remind`: at most one digest per owner per this many seconds. */
  remind_every_seconds: number
  /** `tasks remind`: escalate to the creator a card whose owner has not been seen for this long. */
  escalate_after_seconds: number
  /** How long a finished item stays before `tasks prune` (without --older-than) removes it. */
  retention_seconds: number
  /** Read by the server guard only: every task commit must be signed by its actor's key (docs/verify.md). */
  require_signed: boolean
  /** With require_signed: the server's ssh allowed-signers file (absolute, or relative to the git dir); '' for none. */
  allowed_signers: string
  /** Read by the server guard only: paths outside the known file kinds that may be on the ref (src/core/path-patterns.ts). */
  allowed_paths: string[]
  /** Read by the server guard only: the largest blob it lets onto the ref, in bytes (the tool's own files are also read only up to MAX_FILE_BYTES). */
  max_file_bytes: number
  /** The most rows one `list`, `search`, MCP call or board page returns (`--limit 0` on the command line: every row). */
  list_limit: number
  /** The live claims (in progress or blocked, lease not run out) one actor may hold at once; 0: no limit (docs/model.md, "Claims, leases, epochs"). */
  max_claims_per_actor: number
  /** When true, an agent's owner mutations on a card it holds must carry the fencing token (--epoch). */
  require_epoch: boolean
  /** Creation gates (docs/model.md, "Checks with evidence"): a task is created with an acceptance check and a test check, and the last active one of either kind cannot be superseded. */
  require_checks: boolean
  /** The task types this list allows (a subset of TASK_TYPES); empty: all of them. */
  types: string[]
  /** How deep sub-items nest: 1 = sub-items have no sub-items of their own; up to 4 (docs/model.md, "Sub-items"). */
  max_depth: number
  // Issue 33 (unblocked events, parked cards):
  /** `tasks events`: `all` prints the events derived from commits (`unblocked`) after each commit's own; `off` only the commits' (docs/model.md, "Events"). */
  emit_events: EmitEvents
  /** The list's operator: `remind` escalates high-priority work still stale after `escalate_after_digests` digests to them; '' for none. */
  operator: string
  /** `tasks remind`: how many digests a priority 0–1 card may sit in, still stale, before it goes to the operator. */
  escalate_after_digests: number
  /** Issue 33: declared types of custom fields (`config set field.KEY TYPE`): string, integer, number, boolean, date or enum(a|b); undeclared keys hold text. */
  fields: Record<string, string>
  extra?: Record<string, unknown>
}

/** The values of `emit_events`. */
export const EMIT_EVENTS = ['all', 'off'] as const
export type EmitEvents = (typeof EMIT_EVENTS)[number]

/**
 * Built-in notify rules: who gets an inbox record for each event (the op
 * name, as in the Tasks-Op trailer). Roles: owner, assignee, creator,
 * collaborators, subscribers; each resolved over the card before and after
 * the change (so a displaced owner or a previous assignee hears of it).
 * `*` covers every op not named, including ops this version does not know.
 */
export const NOTIFY_DEFAULTS: Readonly<Record<string, readonly string[]>> = {
  '*': ['owner', 'assignee', 'collaborators', 'subscribers'],
  add: ['assignee', 'subscribers'],
  comment: ['owner', 'assignee', 'collaborators', 'subscribers'],
  done: ['creator', 'collaborators', 'subscribers'],
  cancel: ['creator', 'owner', 'assignee', 'collaborators', 'subscribers'],
  // Issue 33: a failure is news for the creator, like a cancellation.
  fail: ['creator', 'owner', 'assignee', 'collaborators', 'subscribers'],
  assign: ['assignee'],
  claim: ['owner', 'assignee', 'subscribers'],
  collab: ['collaborators'],
  heartbeat: [],
  watch: [],
  unwatch: [],
  notify: [],
  actor: [],
  ack: [],
  seen: [],
  remind: [],
  config: [],
}

/** The roles a notify rule may name. */
export const NOTIFY_ROLES = ['owner', 'assignee', 'creator', 'collaborators', 'subscribers'] as const

export const DEFAULT_CONFIG: ListConfig = {
  lease_seconds: 3600,
  clock_skew_seconds: 30,
  max_title_bytes: 500,
  max_body_bytes: 65536,
  max_comment_bytes: 16384,
  admins: [],
  notify: {...NOTIFY_DEFAULTS} as Record<string, string[]>,
  stale_after_seconds: 7200,
  remind_every_seconds: 86400,
  escalate_after_seconds: 86400,
  retention_seconds: 604800,
  require_signed: false,
  allowed_signers: '',
  allowed_paths: [],
  max_file_bytes: 2 * 1024 * 1024,
  list_limit: 2000,
  max_claims_per_actor: 0,
  require_epoch: false,
  require_checks: false,
  types: [],
  max_depth: 1,
  emit_events: 'all',
  operator: '',
  escalate_after_digests: 3,
  fields: {},
}

/** Keys of config.yaml as `init` writes it (fixed: every clone's root commit is the same). */
export const INIT_CONFIG_KEYS = ['lease_seconds', 'clock_skew_seconds', 'max_title_bytes', 'max_body_bytes', 'max_comment_bytes', 'admins'] as const

/**
 * Bounds on what the store holds. The reader refuses values outside them
 * (schemas/*.schema.json hold the same numbers and patterns; the config
 * maxima are read from that schema, so there is one source), and every
 * writer checks them first, so whatever is written can be read back.
 */
type Bounded = {minimum: number; maximum: number}
/** config.yaml keys that are not numbers. */
/**
 * A list's config as read back from a cache that an older build wrote: the
 * settings it did not know yet take their defaults, as config.yaml's reader
 * gives them.
 */
export function withConfigDefaults(config: Partial<ListConfig> | undefined): ListConfig {
  return {...DEFAULT_CONFIG, ...(config ?? {})} as ListConfig
}

export type NonNumericConfigKey = 'admins' | 'notify' | 'extra' | 'require_signed' | 'allowed_signers' | 'allowed_paths' | 'require_epoch' | 'require_checks' | 'types' | 'emit_events' | 'operator' | 'fields'
const configBounds = configSchema.properties as unknown as Record<keyof Omit<ListConfig, NonNumericConfigKey>, Bounded>

/** Inclusive [minimum, maximum] of each numeric config.yaml key. */
export const CONFIG_BOUNDS: Readonly<Record<keyof Omit<ListConfig, NonNumericConfigKey>, Readonly<Bounded>>> = configBounds

/** The types a list allows: its `types`, else every one of TASK_TYPES. */
export function allowedTypes(config: Pick<ListConfig, 'types'>): readonly string[] {
  return config.types && config.types.length > 0 ? config.types : TASK_TYPES
}

/** The longest lease a claim may take (`--lease`, `lease_seconds`): 365 days. */
export const MAX_LEASE_SECONDS = configBounds.lease_seconds.maximum

/**
 * Largest file read from the ref (task.md, a comment, meta.yaml,
 * config.yaml). A bigger object is not read at all: its card is reported as
 * broken. It is larger than any file a valid config lets the tool write.
 */
export const MAX_FILE_BYTES = 2 * 1024 * 1024

/**
 * Stored timestamps are ISO-8601 UTC with a four-digit year
 * (`0000-01-01T00:00:00.000Z` … `9999-12-31T23:59:59.999Z`): what
 * `Date.prototype.toISOString` writes for those years, and what the schemas'
 * timestamp pattern accepts. A time outside this range cannot be stored.
 */
export const MIN_TIME_MS = Date.parse('0000-01-01T00:00:00.000Z')
export const MAX_TIME_MS = Date.parse('9999-12-31T23:59:59.999Z')

/** The stored form of a time, as the task schema's pattern says. */
export const TIMESTAMP_RE = new RegExp(taskSchema.definitions.timestamp.pattern)

/** The identity the merge and reconciler commit as; no person or agent may act as it. */
export const ENGINE_ACTOR = 'git-tasks'

/** The store format this version reads and writes (meta.yaml `format`). */
export const FORMAT_VERSION = 1
