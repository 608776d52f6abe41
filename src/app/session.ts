/**
 * One invocation's context: which repository and list, who is acting, and
 * what time it is. The actor is `--as`, else TASKS_ACTOR, else
 * `git config tasks.actor`, else the git user email. TASKS_NOW pins the
 * clock (ISO-8601) for tests and for replaying a scenario.
 */
import {randomBytes} from 'node:crypto'
import {EnvironmentError, UsageError} from '../core/errors'
import type {OpContext} from '../core/plan'
import {isValidListName} from '../core/store-layout'
import {checkActor, checkNote} from '../core/validation'
import {DEFAULT_CONFIG, MAX_TIME_MS, MIN_TIME_MS} from '../core/task'
import {neutralize} from '../core/untrusted-text'
import {dropEarlyGit} from '../refstore/early-git'
import {ListStore} from '../refstore/list-store'
import {type NetworkLimits, migrateTrackingRefs, networkLimits, trackingRef} from '../refstore/remote'
import {readConfig, readLocalConfigValue} from '../refstore/repository'
import {catchUpPublished} from './published'
import type {AtPoint} from './at'

export interface SessionOptions {
  cwd: string
  list: string
  as?: string
  force?: boolean
  reason?: string
  /** Commit locally only, even when a remote is configured (also TASKS_OFFLINE=1). */
  offline?: boolean
  /** Machine-readable output: warnings on stderr are JSON objects too. */
  json?: boolean
  /** The agent session acting (--session), else TASKS_SESSION; a claim records it. */
  session?: string
  /** The caller is an agent's surface (`tasks mcp`): require_epoch applies to it (core/ops/lease.ts). */
  agentSurface?: boolean
}

export class Session {
  private actorCache: string | undefined
  private configCache: Map<string, string> | undefined

  private constructor(
    readonly store: ListStore,
    private readonly options: SessionOptions,
  ) {}

  static async open(options: SessionOptions): Promise<Session> {
    if (!isValidListName(options.list)) {
      throw new UsageError(`"${options.list}" is not a list name: use letters, digits, . _ - (it becomes refs/tasks/${options.list})`, {list: options.list}, 'bad_list')
    }
    if (options.force && !options.reason?.trim()) {
      throw new UsageError('--force needs --reason "…": the override is recorded in the history', {}, 'force_without_reason')
    }
    if (options.reason !== undefined) checkNote('reason', options.reason, DEFAULT_CONFIG)
    // Checked up front so that reads, which need no actor, refuse a bad --as too.
    if (options.as !== undefined) checkActor(options.as)
    if (options.session !== undefined) checkActor(options.session, 'session')
    const store = await ListStore.open(options.cwd, options.list)
    const session = new Session(store, options)
    // A commit published earlier that the local ref could not follow (its lock was held): follow it now.
    await catchUpPublished(session)
    return session
  }

  /**
   * The same repository, list, actor and cat-file reader for one more call
   * of a long-lived process (`tasks mcp`): the ref is re-read (through the
   * reader, no new process) so the call starts from the current tip, and the
   * per-call options (--force/--reason) are checked as `open` checks them.
   * The returned session must not be closed; close the long-lived one.
   */
  async forCall(options: {force?: boolean; reason?: string; session?: string} = {}): Promise<Session> {
    if (options.force && !options.reason?.trim()) {
      throw new UsageError('force needs a reason: the override is recorded in the history', {}, 'force_without_reason')
    }
    if (options.reason !== undefined) checkNote('reason', options.reason, DEFAULT_CONFIG)
    await this.store.refreshTip()
    const call = new Session(this.store, {...this.options, force: options.force, reason: options.reason, ...(options.session !== undefined ? {session: options.session} : {})})
    call.actorCache = this.actorCache ??= await this.actor().catch(() => undefined)
    call.configCache = this.configCache
    call.trackingMigrated = this.trackingMigrated
    call.kept = this.kept
    return call
  }

  /**
   * The same repository, actor and options on another list (`scenario
   * start NAME` works on the list NAME, whatever --list says): its own
   * store, which the caller closes. What it publishes is the caller's to
   * report (copy `wrote` back).
   */
  async forList(list: string): Promise<Session> {
    if (list === this.list) return this
    const other = await Session.open({...this.options, list})
    other.actorCache = this.actorCache
    other.configCache = this.configCache
    return other
  }

  /** Run `body` on the session of list `name` (this one when it is that list), closing what it opened; what it wrote is this session's to report. */
  async onList<R>(name: string, body: (s: Session) => Promise<R>): Promise<R> {
    const other = await this.forList(name)
    try {
      const out = await body(other)
      if (other !== this && other.wrote) this.wrote = other.wrote
      return out
    } finally {
      if (other !== this) other.store.close()
    }
  }

  /** Set by keepAlive(): what a long-lived process keeps between calls. */
  private kept: {limits: Map<number, NetworkLimits>} | null = null

  /**
   * Make this session long-lived (`tasks mcp`): objects read or written are
   * kept in memory by id, compare-and-swaps go through one kept
   * `git update-ref --stdin` (ListStore.keepAlive), and the
   * network deadlines read from git config are read once, not per mutation
   * (restart the server after changing tasks.remoteTimeout).
   */
  async keepAlive(): Promise<void> {
    this.kept ??= {limits: new Map()}
    await this.store.keepAlive()
  }

  /** The deadlines of network calls (remote.ts networkLimits), read once per long-lived session. */
  async networkLimits(defaultMs: number): Promise<NetworkLimits> {
    const cached = this.kept?.limits.get(defaultMs)
    if (cached) return cached
    const limits = await networkLimits(this.store.repo.cwd, defaultMs, this.store.repo.commonDir)
    this.kept?.limits.set(defaultMs, limits)
    return limits
  }

  get list(): string {
    return this.options.list
  }

  /** Set on a session made by `pastAt`: the point of the list's history it reads (`--at`). */
  at: AtPoint | null = null
  /** The clock of a session made by `pastAt`: the moment it reads. */
  private pastNow: string | null = null

  /**
   * This session reading the list as it was at `at` (`--at`): its store is
   * pinned to that commit (ListStore.pinnedAt: the live index cache is not
   * written) and its clock is `now`, the moment read, so claims, leases and
   * readiness are judged as they stood then. For reads only: its store
   * refuses to move the ref. Not to be closed (the caller closes this one).
   */
  pastAt(at: AtPoint, now: string): Session {
    const past = new Session(this.store.pinnedAt(at.commit), this.options)
    past.at = at
    past.pastNow = now
    past.actorCache = this.actorCache
    past.configCache = this.configCache
    past.trackingMigrated = this.trackingMigrated
    past.kept = this.kept
    return past
  }

  /**
   * Something the actor should know that is not part of the result (stderr):
   * one line, a JSON object `{"warning": …}` under --json.
   */
  warn(warning: {kind: string; message: string; [key: string]: unknown}): void {
    process.stderr.write(this.options.json ? `${JSON.stringify({warning})}\n` : `warning: ${neutralize(warning.message)}\n`)
  }

  /** The git config values the CLI uses, read once with one `git config` call. */
  private async gitConfig(): Promise<Map<string, string>> {
    this.configCache ??= await readConfig(this.store.repo.cwd, '^(tasks\\.(actor|remote)|user\\.email)$')
    return this.configCache
  }

  /**
   * A repository-level setting (`tasks.remote`, `tasks.actor`): read from the
   * repository's config file in-process when it is plain, else through git.
   */
  private async repoSetting(key: 'remote' | 'actor'): Promise<string | null> {
    const local = readLocalConfigValue(this.store.repo.commonDir, 'tasks', key)
    if (local !== null) return local || null
    return (await this.gitConfig()).get(`tasks.${key}`) || null
  }

  /**
   * The remote mutations go through (tasks.remote in the repository's
   * config), or null when working offline: --offline, TASKS_OFFLINE=1, or no
   * remote configured.
   */
  async remote(): Promise<string | null> {
    if (this.offline) return null
    return this.repoSetting('remote')
  }

  /** --offline or TASKS_OFFLINE=1: commit locally only, and never look at a remote. */
  get offline(): boolean {
    return Boolean(this.options.offline) || /^(1|true|yes)$/i.test(process.env.TASKS_OFFLINE ?? '')
  }

  /** The configured remote even when offline (for sync, which is always online). */
  async configuredRemote(): Promise<string | null> {
    return this.repoSetting('remote')
  }

  private trackingMigrated = false

  /**
   * Set by the transaction layer when a mutation ran: whether its result is
   * on the remote (pushed, or already there), and the configured remote
   * (null: the lists are local only). Added to the command's result as
   * `published` (publication()).
   */
  wrote: {published: boolean; remote: string | null} | null = null

  /**
   * What every mutation's result says about publishing: `published` (true
   * when the change, or the state it found, is on the remote; false when it
   * was committed locally only), and for people a word about it when a
   * remote is configured. Null when no mutation ran in this invocation.
   */
  publication(): {published: boolean; remote: string | null} | null {
    return this.wrote
  }

  /**
   * This list's tracking ref for `remote` (`refs/tasks-remote/<remote>/<list>`).
   * The first call in a repository moves tracking refs an older version kept
   * under `refs/remotes/` (once: later calls cost one stat).
   */
  async trackingRef(remote: string): Promise<string> {
    if (!this.trackingMigrated) {
      await migrateTrackingRefs(this.store.repo.cwd, this.store.repo.commonDir)
      this.trackingMigrated = true
    }
    return trackingRef(remote, this.list)
  }

  /** The acting identity; resolved once, lazily (reads need none). */
  async actor(): Promise<string> {
    if (this.actorCache) return this.actorCache
    // An empty --as is a mistake, not "ask someone else"; an empty TASKS_ACTOR counts as unset.
    let actor = this.options.as ?? (process.env.TASKS_ACTOR || undefined)
    if (actor === undefined) actor = (await this.repoSetting('actor')) ?? undefined
    if (actor === undefined) {
      const config = await this.gitConfig()
      actor = config.get('tasks.actor') || config.get('user.email')
    }
    if (!actor) {
      throw new EnvironmentError('no_actor', 'who is acting? pass --as NAME, set TASKS_ACTOR, or set git config tasks.actor (or user.email)')
    }
    this.actorCache = checkActor(actor)
    return this.actorCache
  }

  /** The current time as ISO-8601 UTC (TASKS_NOW overrides). */
  now(): string {
    if (this.pastNow !== null) return this.pastNow
    const pinned = process.env.TASKS_NOW
    if (pinned) {
      const t = Date.parse(pinned)
      if (Number.isNaN(t)) throw new UsageError(`TASKS_NOW="${pinned}" is not a date`, {}, 'bad_now')
      if (t < MIN_TIME_MS || t > MAX_TIME_MS) throw new UsageError(`TASKS_NOW="${pinned}" is outside the years 0000-9999, which the task files cannot store`, {}, 'bad_now')
      return new Date(t).toISOString()
    }
    return new Date().toISOString()
  }

  async opContext(): Promise<OpContext> {
    const ctx: OpContext = {actor: await this.actor(), now: this.now(), entropy: randomBytes(16).toString('hex')}
    if (this.options.force) ctx.force = {reason: this.options.reason!.trim()}
    const session = this.sessionName()
    if (session !== undefined) ctx.session = session
    if (this.options.agentSurface) ctx.agent = true
    return ctx
  }

  /** --session, else TASKS_SESSION (empty counts as unset); checked like an actor name. */
  sessionName(): string | undefined {
    const name = this.options.session ?? (process.env.TASKS_SESSION || undefined)
    return name === undefined ? undefined : checkActor(name, 'session')
  }

  close(): void {
    this.store.close()
    // Early git processes this command did not use (bin/early-git.js): their input ends, so they exit.
    dropEarlyGit()
  }
}
