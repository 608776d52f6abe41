/**
 * `tasks hooks run`: the background half of the client hooks. The hooks
 * append records to `<git common dir>/git-tasks/hook-queue` (the format,
 * and how lines of earlier versions are read: `queue.ts`):
 *
 *   commit <sha> <branch or HEAD>
 *   push <git push pid> <remote> <url> <local sha> <remote sha> <remote ref> <local ref>
 *
 * Nothing read from the queue reaches git as an option: shas are checked
 * as hex and ref names against git's rules (starting with `refs/`) before
 * use, and revisions follow `--end-of-options`; a URL is given to
 * `git ls-remote` after `--`; a remote's name only inside `--remotes=`
 * and `refs/remotes/<name>/…`, and only when it is a configured remote.
 *
 * One runner at a time drains the queue (a lock file beside it; a second
 * runner started meanwhile exits at once, and the first one looks again
 * after letting go of the lock, so no line is stranded). Each line is
 * handled on its own: a failure is written to the hooks log and the next
 * line goes on. Nothing here ever reaches the terminal of `git commit`.
 */
import {processAlive} from '../app/process-alive'
import {appendFileSync, closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {commitTrailers, linkCommit, linkTargets, linksCommit, type LinkedCommit} from '../core/commit-link'
import {NotFoundError, TasksError} from '../core/errors'
import {finishTask} from '../core/ops/lifecycle'
import {addComment} from '../core/ops/comment'
import {lookup} from '../core/snapshot'
import {toTasksError} from '../app/error-mapping'
import {Session} from '../app/session'
import {mutate} from '../app/transaction'
import {git} from '../refstore/git-process'
import {networkLimits} from '../refstore/remote'
import {hookDir, logFailure} from './log'
import {type CommitRecord, type PushRecord, type QueueRecord, encodeRecord, isRefName, isRemoteName, isSha, parseQueue} from './queue'

const ZERO = /^0+$/
/** Errors that mean the remote could not be reached: the line is kept for the next run. */
const NETWORK_CODES = new Set(['remote_timeout', 'remote_unreachable', 'fetch_failed', 'push_failed'])
/** A lock older than this was left by a runner that died: taken over. */
const STALE_LOCK_MS = 10 * 60_000
/** How long a pre-push entry waits for its `git push` to end before judging whether it went through. */
const PUSH_WAIT_MS = 10 * 60_000
/** Deadline for asking a remote pushed to by URL what its ref is now (unless tasks.remoteTimeout says otherwise). */
const LS_REMOTE_MS = 30_000

export interface RunResult {
  processed: number
  linked: number
  closed: number
  failures: number
  /** True when another runner held the queue (it handles what is there). */
  busy: boolean
}

function tryLock(lock: string): boolean {
  for (let i = 0; i < 2; i++) {
    try {
      const fd = openSync(lock, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return true
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, {force: true})
        else return false
      } catch {
        // Gone meanwhile: try again.
      }
    }
  }
  return false
}

async function topOf(cwd: string): Promise<{commonDir: string} | null> {
  const r = await git(['rev-parse', '--git-common-dir'], {cwd})
  if (r.code !== 0) return null
  const dir = r.stdout.trim()
  return {commonDir: dir.startsWith('/') ? dir : join(cwd, dir)}
}

/** Drain the queue of the repository at `cwd`. */
export async function runQueue(cwd: string, list: string): Promise<RunResult> {
  const result: RunResult = {processed: 0, linked: 0, closed: 0, failures: 0, busy: false}
  const top = await topOf(cwd)
  if (!top) return result
  const dir = hookDir(top.commonDir)
  const queue = join(dir, 'hook-queue')
  const lock = join(dir, 'hook-queue.lock')
  const ctx = new RunContext(cwd, list, top.commonDir, result)
  const retry = join(dir, 'hook-queue.retry')
  try {
    // Lines an earlier run could not finish because the remote did not answer: once more, first.
    if (existsSync(retry) && tryLock(lock)) {
      try {
        const pending = readFileSync(retry, 'utf8')
        rmSync(retry, {force: true})
        const newer = existsSync(queue) ? readFileSync(queue, 'utf8') : ''
        writeFileSync(`${queue}.tmp`, pending + newer)
        renameSync(`${queue}.tmp`, queue)
      } finally {
        rmSync(lock, {force: true})
      }
    }
    while (existsSync(queue)) {
      if (!tryLock(lock)) {
        result.busy = true
        break
      }
      try {
        while (existsSync(queue)) {
          const work = `${queue}.${process.pid}.work`
          renameSync(queue, work)
          const {records, dropped} = parseQueue(readFileSync(work, 'utf8'))
          for (const d of dropped) ctx.dropped(d.reason, d.excerpt)
          for (const record of records) {
            result.processed++
            await ctx.handle(record)
          }
          rmSync(work, {force: true})
        }
      } finally {
        rmSync(lock, {force: true})
      }
    }
  } finally {
    ctx.close()
  }
  return result
}

class RunContext {
  private session: Session | null | undefined

  constructor(
    readonly cwd: string,
    readonly list: string,
    readonly commonDir: string,
    readonly result: RunResult,
  ) {}

  close(): void {
    this.session?.close()
  }

  private fail(hook: string, commit: string | null, error: unknown): void {
    const e = error instanceof TasksError ? error : toTasksError(error as Error)
    if (NETWORK_CODES.has(e.code) && !this.remoteDown) {
      // Keep the line for the next run, and do not wait on the remote again in this one.
      this.remoteDown = true
      this.retryLater(this.current)
    }
    this.result.failures++
    logFailure(this.commonDir, {time: new Date().toISOString(), hook, commit, code: e.code, message: e.message})
  }

  /** The session, or null when there is no list here yet (nothing to link to: skipped silently). */
  private async open(): Promise<Session | null> {
    if (this.session !== undefined) return this.session
    const s = await Session.open({cwd: this.cwd, list: this.list, json: true})
    if (!(await s.store.refreshTip()) && !(await s.remote())) {
      s.close()
      this.session = null
    } else this.session = s
    return this.session
  }

  /** Set once the remote failed to answer in this run: later records wait for the next run instead of timing out one by one. */
  private remoteDown = false
  private current: QueueRecord | null = null

  /** A failure that is no error of an operation: counted and written to the hooks log. */
  private log(hook: string, commit: string | null, code: string, message: string): void {
    this.result.failures++
    logFailure(this.commonDir, {time: new Date().toISOString(), hook, commit, code, message})
  }

  /** A stretch of the queue that is no usable record: said in the log, never guessed at. */
  dropped(reason: string, excerpt: string): void {
    this.log('queue', null, 'queue_record_dropped', `dropped from the hooks queue: ${reason}: ${JSON.stringify(excerpt)}`)
  }

  async handle(record: QueueRecord): Promise<void> {
    if (this.remoteDown) {
      this.retryLater(record)
      return
    }
    this.current = record
    try {
      if (record.kind === 'commit') await this.commit(record)
      else await this.push(record)
    } catch (error) {
      this.fail(record.kind === 'push' ? 'pre-push' : 'post-commit', record.kind === 'commit' ? record.sha : null, error)
    }
  }

  private retryLater(record: QueueRecord | null): void {
    if (!record) return
    // A push's `git push` is over by now: no need to wait for its process again.
    const kept = record.kind === 'push' ? {...record, pid: 0} : record
    try {
      appendFileSync(join(hookDir(this.commonDir), 'hook-queue.retry'), encodeRecord(kept))
    } catch {
      // Logged already.
    }
  }

  private async readCommit(sha: string, branch: string | null): Promise<{commit: LinkedCommit; message: string} | null> {
    if (!isSha(sha)) return null
    const r = await git(['log', '-1', '--no-walk', '--format=%H%x1f%an <%ae>%x1f%cI%x1f%B', '--end-of-options', sha, '--'], {cwd: this.cwd})
    if (r.code !== 0 || !r.stdout.includes('\x1f')) return null
    const [full, author, date, message] = r.stdout.split('\x1f') as [string, string, string, string]
    const time = new Date(Date.parse(date)).toISOString()
    return {commit: {sha: full, subject: message.split('\n')[0] ?? '', branch, author, time}, message}
  }

  /** Link one commit to the cards it names; ids that name no card are skipped (a branch that only looks like one). */
  private async commit(record: CommitRecord): Promise<void> {
    const {sha, branch: branchName} = record
    if (!isSha(sha)) return
    const branch = branchName && branchName !== 'HEAD' ? branchName : null
    const read = await this.readCommit(sha, branch)
    if (!read) return
    const fromTrailers = commitTrailers(read.message)
    const targets = linkTargets(read.message, branch)
    if (targets.length === 0) return
    const session = await this.open()
    if (!session) return
    for (const target of targets) {
      try {
        await this.link(session, target, read.commit)
      } catch (error) {
        const named = fromTrailers.refs.includes(target) || fromTrailers.closes.includes(target)
        // A branch such as `feat-login` looks like an id prefix; naming no card, it is not a failure.
        if (!named && error instanceof TasksError && (error.code === 'task_not_found' || error.code === 'ambiguous_id')) continue
        this.fail('post-commit', sha, error)
      }
    }
  }

  private async link(session: Session, target: string, commit: LinkedCommit): Promise<void> {
    let already = false
    // The card's comments as this clone knows them (online with no local list yet: none to compare with;
    // the comment's name is keyed on the sha, so a repeat writes the same file).
    if (session.store.tip) {
      const loaded = await session.store.load()
      const meta = lookup(loaded.snapshot, target)
      const detail = await session.store.readDetail(loaded.index.commit, meta.id)
      already = detail.comments.some((c) => linksCommit(c, commit.sha))
    }
    const done = await mutate(session, (snap, ctx) => linkCommit(snap, ctx, {id: target, commit, alreadyLinked: already}))
    if (done.commit) this.result.linked++
  }

  /** A push went through: finish the cards its commits close (Closes:/Fixes:), or say on the card why not. */
  private async push(record: PushRecord): Promise<void> {
    const {pid, remote, url, localSha, remoteSha, remoteRef} = record
    // Checked when the queue was read; checked again here, next to the git calls they reach.
    if (!isSha(localSha) || ZERO.test(localSha) || !isSha(remoteSha) || !isRefName(remoteRef)) return
    const started = Date.now()
    while (Number.isSafeInteger(pid) && pid > 1 && processAlive(pid) && Date.now() - started < PUSH_WAIT_MS) await sleep(100)
    const branch = remoteRef.startsWith('refs/heads/') ? remoteRef.slice('refs/heads/'.length) : null
    const named = await this.isConfiguredRemote(remote)
    const tracking = named && branch ? `refs/remotes/${remote}/${branch}` : null
    if (tracking) {
      // A named remote: the push went through when its tracking ref now contains what was pushed.
      if (!isRefName(tracking)) return
      const ok = await git(['merge-base', '--is-ancestor', '--end-of-options', localSha, tracking], {cwd: this.cwd})
      if (ok.code !== 0) return
    } else if (!named) {
      // A push to a URL leaves no tracking ref: ask the remote what the ref is now.
      if (!(await this.remoteHas(url || remote, remoteRef, localSha))) return
    }
    const others = named ? [...(tracking ? [`--exclude=${remote}/${branch}`] : []), `--remotes=${remote}`] : ['--remotes']
    // Revisions after --end-of-options (and the pseudo-options, which it would turn into names, before it).
    const range = ZERO.test(remoteSha) ? ['--not', ...others, '--not', '--end-of-options', localSha] : ['--end-of-options', localSha, `^${remoteSha}`]
    const r = await git(['log', '-n1000', '--format=%H%x1e', '--grep=^\\(closes\\|fixes\\):', '-i', ...range, '--'], {cwd: this.cwd})
    if (r.code !== 0) return
    const shas = r.stdout.split('\x1e').map((s) => s.trim()).filter(isSha).reverse()
    if (shas.length === 0) return
    const session = await this.open()
    if (!session) return
    for (const sha of shas) {
      const read = await this.readCommit(sha, branch)
      if (!read) continue
      for (const id of commitTrailers(read.message).closes) {
        try {
          await this.close1(session, id, read.commit)
        } catch (error) {
          this.fail('pre-push', sha, error)
        }
      }
    }
  }

  private remotes: Promise<Set<string>> | undefined

  /** Whether `name` is one of this repository's remotes (`git remote`), usable in ref names and patterns. */
  private async isConfiguredRemote(name: string): Promise<boolean> {
    if (!isRemoteName(name)) return false
    this.remotes ??= git(['remote'], {cwd: this.cwd}).then((r) => new Set(r.code === 0 ? r.stdout.split('\n').filter(Boolean) : []))
    return (await this.remotes).has(name)
  }

  /**
   * Whether the remote at `url` has `ref` at `sha` or at a commit that
   * contains it (one `git ls-remote`, the URL after `--`). When the remote
   * cannot be asked (it needs credentials the detached worker does not have,
   * or does not answer) the push is not counted and the log says why: the
   * record is not kept for another run, and the tasks remote's work is not
   * held back for it.
   */
  private async remoteHas(url: string, ref: string, sha: string): Promise<boolean> {
    if (!url) return false
    const limits = await networkLimits(this.cwd, LS_REMOTE_MS, this.commonDir)
    const r = await git([...limits.config, 'ls-remote', '--', url, ref], {cwd: this.cwd, env: limits.env, deadlineMs: limits.deadlineMs})
    if (r.code !== 0 || r.timedOut) {
      const why = r.timedOut ? `it did not answer within ${limits.deadlineMs / 1000} s` : (r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`)
      this.log('pre-push', sha, 'push_unconfirmed', `cannot tell whether the push of ${ref} went through, so its Closes:/Fixes: trailers finished nothing (finish those cards by hand): asking the remote pushed to failed: ${why}`)
      return false
    }
    const tip = r.stdout.split('\n').map((l) => l.split('\t')).find(([, name]) => name === ref)?.[0]
    if (!tip || !isSha(tip)) return false
    if (tip === sha) return true
    const ok = await git(['merge-base', '--is-ancestor', '--end-of-options', sha, tip], {cwd: this.cwd})
    return ok.code === 0
  }

  private async close1(session: Session, target: string, commit: LinkedCommit): Promise<void> {
    try {
      const done = await mutate(session, (snap, ctx) => finishTask(snap, ctx, {id: target}))
      if (done.commit) this.result.closed++
    } catch (error) {
      if (!(error instanceof TasksError) || error instanceof NotFoundError || error.code === 'broken_task_file' || error.exitCode === 1) throw error
      // The rules refused: say so on the card, where its owner will look.
      const why = `commit ${commit.sha.slice(0, 12)} ("${commit.subject.slice(0, 120)}") was pushed with Closes/Fixes ${target}, but the card was not finished: ${error.message} [${error.code}]`
      await mutate(session, (snap, ctx) => addComment(snap, ctx, {id: target, text: why, kind: 'problem'}))
    }
  }
}


function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
