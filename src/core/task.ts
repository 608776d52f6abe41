/**
 * The task model: the fields stored in a task file's frontmatter, the
 * statuses, comment kinds, and the list's shared configuration.
 * Values only; parsing and serialising live in task-file.ts.
 */
import configSchema from '../../schemas/config.schema.json'
import taskSchema from '../../schemas/task.schema.json'

export const STATUSES = ['todo', 'in_progress', 'blocked', 'done', 'cancelled'] as const
export type Status = (typeof STATUSES)[number]

/** Statuses after which an item counts as finished for its parent. */
export const FINISHED: ReadonlySet<Status> = new Set(['done', 'cancelled'])

export const COMMENT_KINDS = ['note', 'decision', 'problem', 'lesson', 'knowledge'] as const
export type CommentKind = (typeof COMMENT_KINDS)[number]

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
  /** 0 (most urgent) … 4. */
  priority: number
  tags: string[]
  /** Parent id for a sub-item (one level deep). */
  parent?: string
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
  cancel_reason?: string
  /** Set while the item is flagged (`tasks flag`): why, by whom, when. A flagged item cannot be finished. */
  flag_reason?: string
  flagged_by?: string
  flagged_at?: string
  closed_at?: string
  /** Idempotency key the task was created with. */
  key?: string
  created_at: string
  created_by: string
  updated_at: string
  updated_by: string
  /** +1 on every change to the file. */
  revision: number
  /** Frontmatter keys this version does not know; kept verbatim so nothing typed is lost. */
  extra?: Record<string, unknown>
}

/** Known frontmatter keys in file order. */
export const TASK_KEYS = [
  'id',
  'title',
  'status',
  'priority',
  'tags',
  'parent',
  'depends_on',
  'assignee',
  'owner',
  'epoch',
  'claim_epochs',
  'claimed_at',
  'lease_expires',
  'session',
  'block_note',
  'cancel_reason',
  'flag_reason',
  'flagged_by',
  'flagged_at',
  'closed_at',
  'key',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'revision',
] as const

export interface Comment {
  /** File stem: `<yyyymmddThhmmss.mmmZ>-<hash>`; sorts by time. */
  id: string
  task: string
  kind: CommentKind
  author: string
  created_at: string
  body: string
}

/** Shared settings of one list (config.yaml on the ref). */
export interface ListConfig {
  lease_seconds: number
  clock_skew_seconds: number
  max_title_bytes: number
  max_body_bytes: number
  max_comment_bytes: number
  admins: string[]
  /** How long a finished item stays before `tasks prune` (without --older-than) removes it. */
  retention_seconds: number
  extra?: Record<string, unknown>
}

export const DEFAULT_CONFIG: ListConfig = {
  lease_seconds: 3600,
  clock_skew_seconds: 30,
  max_title_bytes: 500,
  max_body_bytes: 65536,
  max_comment_bytes: 16384,
  admins: [],
  retention_seconds: 604800,
}

/**
 * Bounds on what the store holds. The reader refuses values outside them
 * (schemas/*.schema.json hold the same numbers and patterns; the config
 * maxima are read from that schema, so there is one source), and every
 * writer checks them first, so whatever is written can be read back.
 */
type Bounded = {minimum: number; maximum: number}
const configBounds = configSchema.properties as unknown as Record<keyof Omit<ListConfig, 'admins' | 'extra'>, Bounded>

/** Inclusive [minimum, maximum] of each numeric config.yaml key. */
export const CONFIG_BOUNDS: Readonly<Record<keyof Omit<ListConfig, 'admins' | 'extra'>, Readonly<Bounded>>> = configBounds

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
