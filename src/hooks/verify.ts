/**
 * `tasks verify OLD NEW [--ref REF]`: is the update of a tasks ref from OLD
 * to NEW one the tool's own rules allow? Run by the server's pre-receive
 * guard (`tasks server install-hook`), or as a CI job on the ref. Every
 * refusal names the commit, the file and the rule. docs/verify.md says how
 * it decides. This file reads git and hands what it read to the pure judges
 * of each file kind (./judges.ts), which judge cards and checks by the rules
 * of ./rules.ts over the rulebook of src/core/state-machine.ts.
 */
import {isAbsolute, join} from 'node:path'
import {UsageError} from '../core/errors'
import {isValidListName} from '../core/store-layout'
import {type Snapshot} from '../core/snapshot'
import {tablesOf} from '../core/snapshot'
import {type ListConfig, MAX_FILE_BYTES, MAX_TIME_MS, MIN_TIME_MS} from '../core/task'
import {decodeUtf8} from '../core/validation'
import {messageTrailers} from '../core/commit-link'
import {mergedTree} from '../app/sync'
import {PLAN_MERGE_OP, planMergedTree} from '../app/plan-actions'
import {ListStore} from '../refstore/list-store'
import {git} from '../refstore/git-process'
import {changedPaths, readBlobs, signatureStatus, type ChangedPath} from '../refstore/blobs'
import {type Check, checkOfPath, parseCheckFile} from '../core/check'
import {taskDir} from '../core/ids'
import {actorSlug, parseActor} from '../core/inbox'
import {type CommitFacts, type Refusal, fileKindOf, judgeCommitClock, judgeImport, judgedTime} from './rules'
import {type CommitView, JUDGES, judgeBlob} from './judges'

const ZERO = /^0+$/

type Refuse = (commit: string, path: string | null, r: Refusal) => void

export interface VerifyRefusal {
  commit: string
  path: string | null
  rule: string
  message: string
}

export interface VerifyResult {
  ref: string
  old: string
  new: string
  /** Commits checked (new in this update). */
  commits: number
  ok: boolean
  refusals: VerifyRefusal[]
  /** Paths of kinds this version cannot judge, accepted as they are. */
  unjudged: Array<{commit: string; path: string; kind: string}>
  /** Whether the list's config asked for signed commits. */
  require_signed: boolean
  /** The server's clock the update was judged against (ISO-8601 UTC): --now, else TASKS_NOW, else the machine's. */
  now: string
}

export interface VerifyOptions {
  /** Judge as of this time (ISO-8601; an audit by hand) instead of the server's clock. */
  now?: string
}

/**
 * The guard's clock: `--now` when given, else TASKS_NOW (the test clock, as
 * every command reads it), else the machine's. Never the pusher's: a
 * commit's own date is judged against it (docs/verify.md, "The clock").
 */
export function serverNow(flag?: string): string {
  const [text, what] = flag !== undefined ? [flag, '--now'] : [process.env.TASKS_NOW, 'TASKS_NOW']
  if (!text) return new Date().toISOString()
  const t = Date.parse(text)
  if (Number.isNaN(t) || t < MIN_TIME_MS || t > MAX_TIME_MS) {
    throw new UsageError(`${what}="${text}" is not a date in the years 0000-9999 (ISO-8601, such as 2025-06-30T12:00:00Z)`, {now: text}, 'bad_now')
  }
  return new Date(t).toISOString()
}

interface CommitInfo {
  /** Tasks-Undo: the commit an undo takes back. */
  undoes: string | null
  sha: string
  parents: string[]
  author: string
  time: string
  /** Committer time, ms since the epoch (git keeps seconds). */
  ms: number
  message: string
  facts: CommitFacts
}

async function commitsOf(cwd: string, oldSha: string | null, newSha: string): Promise<CommitInfo[]> {
  const range = oldSha ? [newSha, `^${oldSha}`] : [newSha]
  const r = await git(['log', '--reverse', '--topo-order', '--format=%H%x1f%P%x1f%an%x1f%cI%x1f%ct%x1f%B%x1e', ...range, '--'], {cwd})
  if (r.code !== 0) throw new UsageError(`cannot read the commits of ${oldSha ? `${oldSha}..` : ''}${newSha}: ${r.stderr.trim()}`, {}, 'bad_revision')
  const out: CommitInfo[] = []
  for (const rec of r.stdout.split('\x1e')) {
    const t = rec.replace(/^\n/, '')
    if (!t.trim()) continue
    const [sha, parents, author, date, seconds, message] = t.split('\x1f') as [string, string, string, string, string, string]
    const trailers = messageTrailers(message)
    const value = (k: string) => trailers.find(([key]) => key === k)?.[1] ?? null
    out.push({
      undoes: value('Tasks-Undo'),
      sha,
      parents: parents.trim() ? parents.trim().split(' ') : [],
      author,
      time: new Date(Date.parse(date)).toISOString(),
      ms: Number(seconds) * 1000,
      message,
      facts: {
        actor: value('Actor') ?? author,
        op: value('Tasks-Op') ?? '',
        // Set by judgeRange: the committer time, bounded by the server's clock (judgedTime).
        time: '',
        override: value('Tasks-Override'),
        takeover: value('Tasks-Takeover'),
        takeovers: trailers.filter(([k]) => k === 'Tasks-Takeover').map(([, v]) => v),
        reason: value('Tasks-Reason'),
        session: value('Tasks-Session'),
        pruneBefore: value('Tasks-Prune-Before'),
      },
    })
  }
  return out
}

/** Ids whose task.md was deleted somewhere in the history of `tip`. */
async function removedIds(cwd: string, tip: string): Promise<Set<string>> {
  const r = await git(['log', '--diff-filter=D', '--name-only', '--format=', tip, '--', 'tasks/*/*/task.md'], {cwd})
  const out = new Set<string>()
  for (const line of r.stdout.split('\n')) {
    const m = /^tasks\/[^/]+\/([^/]+)\/task\.md$/.exec(line.trim())
    if (m) out.add(m[1]!)
  }
  return out
}

function idOf(path: string): string | null {
  return /^tasks\/[^/]+\/([^/]+)\//.exec(path)?.[1] ?? null
}

/** Committer times (ms) of commits, by id, in one `git log --no-walk`. */
async function commitTimes(cwd: string, shas: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  if (shas.length === 0) return out
  const r = await git(['log', '--no-walk=unsorted', '--stdin', '--format=%H %ct'], {cwd, input: `${shas.join('\n')}\n`})
  for (const line of r.stdout.split('\n')) {
    const [sha, seconds] = line.trim().split(' ')
    if (sha && seconds) out.set(sha, Number(seconds) * 1000)
  }
  return out
}

/**
 * Sizes of blobs (ids or `<commit>:<path>` names), asked of git before any
 * is read (`cat-file --batch-check`): a blob over a limit is judged by its
 * size and never loaded. Names that are missing or not blobs are absent.
 */
async function blobSizes(cwd: string, names: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(names)]
  const out = new Map<string, number>()
  if (unique.length === 0) return out
  const r = await git(['cat-file', '--batch-check'], {cwd, input: `${unique.join('\n')}\n`})
  if (r.code !== 0) throw new Error(`git cat-file --batch-check failed: ${r.stderr.trim()}`)
  // One line per name, in order: "<oid> <type> <size>", or "<name> missing".
  const lines = r.stdout.split('\n')
  unique.forEach((name, i) => {
    const [, type, size] = (lines[i] ?? '').split(' ')
    if (type === 'blob' && size !== undefined) out.set(name, Number(size))
  })
  return out
}

/** The blobs among `names` that the readers read (at most MAX_FILE_BYTES, by `sizes`); larger ones are not loaded. */
function readable(names: readonly string[], sizes: ReadonlyMap<string, number>): string[] {
  return names.filter((n) => (sizes.get(n) ?? Infinity) <= MAX_FILE_BYTES)
}

export async function verify(cwd: string, oldArg: string, newArg: string, refArg: string | undefined, options: VerifyOptions = {}): Promise<VerifyResult> {
  const now = serverNow(options.now)
  const ref = refArg ?? 'refs/tasks/main'
  const m = /^refs\/tasks\/(.+)$/.exec(ref)
  if (!m || !isValidListName(m[1]!)) throw new UsageError(`--ref must name a task list ref (refs/tasks/<list>), not "${ref}"`, {ref}, 'bad_list')
  const list = m[1]!
  for (const [name, v] of [['OLD', oldArg], ['NEW', newArg]] as const) {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(v)) throw new UsageError(`${name} must be a full commit id (40 or 64 hex digits; zeros for none), not "${v}"`, {[name.toLowerCase()]: v}, 'bad_revision')
  }
  const result: VerifyResult = {ref, old: oldArg, new: newArg, commits: 0, ok: true, refusals: [], unjudged: [], require_signed: false, now}
  const refuse = (commit: string, path: string | null, r: Refusal) => result.refusals.push({commit, path, rule: r.rule, message: r.message})
  const oldSha = ZERO.test(oldArg) ? null : oldArg
  if (ZERO.test(newArg)) {
    refuse(oldArg, null, {rule: 'delete', message: `deleting ${ref} is refused: a task list's history is its audit log`})
    result.ok = false
    return result
  }
  if (oldSha) {
    const ff = await git(['merge-base', '--is-ancestor', oldSha, newArg], {cwd})
    if (ff.code !== 0) {
      refuse(newArg, null, {rule: 'non_fast_forward', message: `${newArg.slice(0, 12)} does not contain ${oldSha.slice(0, 12)}: the ref only moves forward (two histories are joined by \`tasks sync\`'s merge)`})
      result.ok = false
      return result
    }
  }
  const store = await ListStore.open(cwd, list)
  try {
    await judgeRange(store, cwd, oldSha, newArg, result, refuse)
  } finally {
    store.close()
  }
  result.ok = result.refusals.length === 0
  return result
}

async function judgeRange(store: ListStore, cwd: string, oldSha: string | null, newSha: string, result: VerifyResult, refuse: Refuse): Promise<void> {
  const commits = await commitsOf(cwd, oldSha, newSha)
  result.commits = commits.length
  if (commits.length === 0) return
  const snapshots = new Map<string, Snapshot>()
  const load = async (c: string): Promise<Snapshot> => {
    let s = snapshots.get(c)
    if (!s) {
      s = (await store.loadCommit(c, false)).snapshot
      snapshots.set(c, s)
    }
    return s
  }
  // The policy (signing, admins) is the list's config before the update; a new list's, its first commit's.
  // OLD is the ref's accepted tip: its index is saved, so the next push starts from it instead of a cold build.
  if (oldSha) snapshots.set(oldSha, (await store.loadCommit(oldSha, true)).snapshot)
  const policySnap = await load(oldSha ?? commits[0]!.sha)
  const policy = policySnap.config
  result.require_signed = policy.require_signed === true
  if (result.require_signed) await judgeSignatures(cwd, store, commits, policy, refuse)
  // The clock: each commit's date against the server's and its parents' (the list's skew before the update), and
  // the time its rules are judged at, never later than the server's now + the skew.
  const nowMs = Date.parse(result.now)
  const skew = policy.clock_skew_seconds
  const times = new Map(commits.map((c) => [c.sha, c.ms]))
  for (const [sha, ms] of await commitTimes(cwd, [...new Set(commits.flatMap((c) => c.parents))].filter((p) => !times.has(p)))) times.set(sha, ms)
  for (const c of commits) {
    const parents = c.parents.map((p) => times.get(p)).filter((t): t is number => t !== undefined)
    for (const r of judgeCommitClock(c.ms, parents, nowMs, skew)) refuse(c.sha, null, r)
    c.facts.time = judgedTime(c.ms, nowMs, skew)
  }
  const removed = oldSha ? await removedIds(cwd, oldSha) : new Set<string>()
  const madeOn = await planLines(cwd, commits)
  const single = commits.filter((c) => c.parents.length === 1)
  const diffs = await changedPaths(cwd, single.map((c) => ({commit: c.sha, parent: c.parents[0]!})))
  // Blobs of the files the snapshots do not hold (meta, config, comments), read in one batch.
  const wanted: string[] = []
  // Checks and actor entries are judged against what they were: their old blobs too.
  // A seen marker is judged by who the commit's actor is (its alias entry before the commit);
  // a card going to done by every check it has in that commit's tree.
  const doneChecks = new Map<string, Map<string, Check[]>>()
  for (const c of single) {
    const paths = diffs.get(c.sha) ?? []
    for (const p of paths) {
      const check = fileKindOf(p.path).check
      if (p.after && check !== 'task' && check !== null) wanted.push(p.after)
      if (p.before && (check === 'check' || check === 'actor' || check === 'session')) wanted.push(p.before)
      // A changed card's text before and after: its description is part of the spec (spec ownership).
      if (check === 'task' && p.before && p.after) wanted.push(p.before, p.after)
    }
    if (paths.some((p) => fileKindOf(p.path).check === 'seen' || fileKindOf(p.path).check === 'actor')) wanted.push(`${c.parents[0]}:actors/${actorSlug(c.facts.actor)}.yaml`)
    const cards = paths.filter((p) => fileKindOf(p.path).check === 'task' && p.after && p.before).map((p) => p.path.slice(0, -'/task.md'.length))
    if (cards.length > 0) doneChecks.set(c.sha, new Map(cards.map((d) => [d.slice(d.lastIndexOf('/') + 1), []])))
  }
  // Every blob's size first (one batch-check): what a commit adds is bounded by size before anything is read, and
  // nothing larger than the readers read is loaded.
  const sizes = await blobSizes(cwd, [...single.flatMap((c) => (diffs.get(c.sha) ?? []).flatMap((p) => (p.after ? [p.after] : []))), ...wanted])
  const blobs = await readBlobs(cwd, readable(wanted, sizes))
  const checksAt = async (c: CommitInfo, id: string): Promise<Check[]> => {
    const r = await git(['ls-tree', '-r', '-l', c.sha, '--', `${taskDir(id)}/checks/`], {cwd})
    const entries = r.stdout.split('\n').filter(Boolean).map((l) => {
      const [meta, path] = l.split('\t') as [string, string]
      const [, , blob, size] = meta.split(/ +/) as [string, string, string, string]
      return {blob, path, size: Number(size)}
    }).filter((e) => e.size <= MAX_FILE_BYTES)
    const read = await readBlobs(cwd, entries.map((e) => e.blob))
    const out: Check[] = []
    for (const e of entries) {
      const where = checkOfPath(e.path)
      const b = read.get(e.blob)
      if (!where || !b) continue
      const parsed = parseCheckFile(decodeUtf8(b) ?? '', where.task, where.id)
      if (parsed.ok) out.push(parsed.value)
    }
    return out
  }
  for (const c of commits) {
    if (c.parents.length === 0) {
      await judgeRoot(cwd, c, await load(c.sha), refuse)
      continue
    }
    if (c.parents.length > 1) {
      await judgeMerge(store, cwd, c, refuse)
      continue
    }
    const before = await load(c.parents[0]!)
    const after = await load(c.sha)
    const undoBase = c.facts.op === 'undo' && c.undoes ? await undoneState(store, cwd, c, refuse) : null
    // The checks of every card this commit finishes, as they stand in its tree.
    const finishing = new Map<string, Check[]>()
    for (const id of doneChecks.get(c.sha)?.keys() ?? []) {
      if (after.tasks.get(id)?.meta?.status === 'done' && before.tasks.get(id)?.meta?.status !== 'done') finishing.set(id, await checksAt(c, id))
    }
    const changed = diffs.get(c.sha) ?? []
    // With require_checks (the list's before the commit): the checks, in its tree, of every card it adds or whose checks it changes.
    const gated = new Map<string, Check[]>()
    if (before.config.require_checks) {
      for (const p of changed) {
        const kind = fileKindOf(p.path).check
        if (!p.after || !((kind === 'task' && !p.before) || kind === 'check')) continue
        const id = /^tasks\/[^/]+\/([^/]+)\//.exec(p.path)?.[1]
        if (id && !gated.has(id) && after.tasks.has(id)) gated.set(id, finishing.get(id) ?? (await checksAt(c, id)))
      }
    }
    const view: CommitView = {facts: c.facts, before, after, canonical: canonicalActor(c, blobs), removed, undoBase, undoes: c.undoes, finishing, gated, added: new Set(changed.filter((p) => !p.before && p.after).map((p) => p.path)), changed: new Set(changed.map((p) => p.path)), list: madeOn.get(c.sha)}
    judgeCommit({commit: c, view, paths: diffs.get(c.sha) ?? [], blobs, sizes, result, refuse, removed})
    // Older snapshots are not needed again (commits come parents first).
    if (snapshots.size > 8) for (const k of [...snapshots.keys()].slice(0, snapshots.size - 8)) snapshots.delete(k)
  }
}

/** A root commit: every file in its tree within the bounds (by its own config), and every card readable. */
async function judgeRoot(cwd: string, c: CommitInfo, snap: Snapshot, refuse: Refuse): Promise<void> {
  const r = await git(['ls-tree', '-r', '-l', '-z', c.sha], {cwd})
  for (const rec of r.stdout.split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab === -1) continue
    const [mode, , , size] = rec.slice(0, tab).split(/ +/) as [string, string, string, string]
    const path = rec.slice(tab + 1)
    for (const x of judgeBlob({path, kind: fileKindOf(path).kind, mode, size: size === '-' ? null : Number(size)}, snap.config)) refuse(c.sha, path, x)
  }
  for (const e of tablesOf(snap).brokenIds()) {
    const entry = snap.tasks.get(e)!
    refuse(c.sha, entry.path, {rule: 'schema', message: `${entry.path} cannot be read: ${entry.error}`})
  }
}

/**
 * One one-parent commit, path by path: the file kind of each path picks its
 * judge (./judges.ts), which is handed what was read for it. Paths of kinds
 * this version cannot judge are listed, not judged.
 */
function judgeCommit({commit: c, view, paths, blobs, sizes, result, refuse, removed}: {
  commit: CommitInfo
  view: CommitView
  paths: readonly ChangedPath[]
  /** What was read for the push: blobs by id, and sizes by blob id. */
  blobs: ReadonlyMap<string, Buffer>
  sizes: ReadonlyMap<string, number>
  result: VerifyResult
  refuse: Refuse
  /** The ids removed so far in the update: this commit's removals are added (the view reads the same set). */
  removed: Set<string>
}): void {
  for (const r of judgeImport(c.facts, view.before.config)) refuse(c.sha, null, r)
  const textOf = (blob: string | null): string | null => {
    if (!blob) return null
    const b = blobs.get(blob)
    return (b ? decodeUtf8(b) : null) ?? ''
  }
  const seenTasks = new Set<string>()
  for (const p of paths) {
    const kind = fileKindOf(p.path)
    // What the commit adds or changes is bounded (a regular file, a known kind or an allowed path, its size) before
    // it is read; a file refused here is not judged further.
    if (p.after) {
      const bounds = judgeBlob({path: p.path, kind: kind.kind, mode: p.mode ?? '', size: sizes.get(p.after) ?? null}, view.before.config)
      for (const r of bounds) refuse(c.sha, p.path, r)
      if (bounds.length > 0) continue
    }
    if (kind.check === null) {
      result.unjudged.push({commit: c.sha, path: p.path, kind: kind.kind})
      continue
    }
    let id: string | null = null
    if (kind.check === 'task') {
      // A card is judged once per commit, as the snapshots read it.
      id = idOf(p.path)!
      if (seenTasks.has(id)) continue
      seenTasks.add(id)
    }
    for (const r of JUDGES[kind.check]({path: p.path, before: textOf(p.before), after: textOf(p.after), commit: view})) refuse(c.sha, p.path, r)
    if (id !== null && !view.after.tasks.has(id)) removed.add(id)
  }
}

/**
 * The commits of the update that a plan's merge brings (reachable from its
 * second parent, not from its first), by the plan the merge names
 * (Tasks-Plan): the list each was made on, where its plan.yaml is judged.
 * One `git rev-list` per plan merge in the update; none without one.
 */
async function planLines(cwd: string, commits: readonly CommitInfo[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const c of commits) {
    if (c.facts.op !== PLAN_MERGE_OP || c.parents.length !== 2) continue
    const plan = messageTrailers(c.message).find(([k]) => k === 'Tasks-Plan')?.[1]
    if (!plan) continue
    const r = await git(['rev-list', c.parents[1]!, `^${c.parents[0]!}`, '--'], {cwd})
    for (const sha of r.stdout.split('\n')) if (sha && !out.has(sha)) out.set(sha, plan)
  }
  return out
}

/** The commit's actor as a recipient: itself, or the name its actor entry before the commit is an alias of. */
function canonicalActor(c: CommitInfo, blobs: ReadonlyMap<string, Buffer>): string {
  const b = blobs.get(`${c.parents[0]}:actors/${actorSlug(c.facts.actor)}.yaml`)
  const text = b ? decodeUtf8(b) : null
  const parsed = text === null ? null : parseActor(text)
  return parsed?.ok && parsed.value.alias_of ? parsed.value.alias_of : c.facts.actor
}

/** The list before the commit an undo takes back, when that commit is the actor's own; else a refusal and null. */
async function undoneState(store: ListStore, cwd: string, c: CommitInfo, refuse: Refuse): Promise<Snapshot | null> {
  const r = await git(['log', '-1', '--format=%P%x1f%an%x1f%B', c.undoes!, '--'], {cwd})
  const [parents, author, message] = r.code === 0 ? (r.stdout.split('\x1f') as [string, string, string]) : ['', '', '']
  const parent = parents.trim().split(' ')[0]
  const actor = messageTrailers(message ?? '').find(([k]) => k === 'Actor')?.[1] ?? author
  if (!parent || actor !== c.facts.actor) {
    refuse(c.sha, null, {rule: 'undo_mismatch', message: `an undo takes back one of the actor's own commits; ${c.undoes!.slice(0, 12)} is ${parent ? `by "${actor}"` : 'not a commit with a parent'}`})
    return null
  }
  return (await store.loadCommit(parent, false)).snapshot
}

/**
 * A merge is accepted when it is the one `tasks sync` would write: the
 * file merge and the reconciler replayed on its parents at the merge's
 * time give exactly its tree.
 */
async function judgeMerge(store: ListStore, cwd: string, c: CommitInfo, refuse: Refuse): Promise<void> {
  if (c.parents.length !== 2) {
    refuse(c.sha, null, {rule: 'merge', message: `a merge of ${c.parents.length} parents is not one \`tasks sync\` makes`})
    return
  }
  const [ours, theirs] = c.parents as [string, string]
  const base = await git(['merge-base', ours, theirs], {cwd})
  const baseSha = base.code === 0 ? base.stdout.trim().split('\n')[0]! : null
  const tree = (await git(['rev-parse', `${c.sha}^{tree}`], {cwd})).stdout.trim()
  // The merge ran at a time in the commit's second: the tool's own writes in it say which millisecond.
  const candidates = new Set<string>([c.time])
  const stamp = c.time.slice(0, 19)
  const changed = await git(['diff-tree', '-r', '--no-renames', '-p', ours, c.sha, '--'], {cwd})
  for (const hit of changed.stdout.matchAll(new RegExp(`${stamp.replace(/[.:-]/g, '\\$&')}\\.\\d{3}Z`, 'g'))) candidates.add(hit[0])
  // A plan's merge (issue 34): the target's tip first, the plan's second, replayed as `tasks plan merge` makes it.
  const replayAt = (now: string) => (c.facts.op === PLAN_MERGE_OP ? planMergedTree(store, ours, theirs, baseSha, now, c.facts.actor) : mergedTree(store, ours, theirs, baseSha, now, c.facts.actor))
  for (const now of candidates) {
    const replay = await replayAt(now)
    if (replay.tree === tree) return
  }
  const replay = await replayAt(c.time)
  const diff = await git(['diff-tree', '-r', '--name-only', replay.tree, tree], {cwd})
  const paths = diff.stdout.split('\n').filter(Boolean)
  refuse(c.sha, paths[0] ?? null, {rule: 'merge_not_reproducible', message: `the merge is not the one \`tasks sync\` makes from its parents: ${paths.length} path(s) differ (${paths.slice(0, 3).join(', ')})`})
}

/**
 * With `require_signed: true`: every commit is signed (gpg or ssh) by a key
 * that maps to its actor. ssh keys: the allowed-signers file the config
 * names (`allowed_signers`, a path on the server; relative to the
 * repository's git dir), whose principals are actor ids. gpg keys: the
 * server's keyring; the key's user id must be the actor or `<actor>`.
 */
async function judgeSignatures(cwd: string, store: ListStore, commits: CommitInfo[], policy: ListConfig, refuse: Refuse): Promise<void> {
  const signers = policy.allowed_signers
  const config: Record<string, string> = {}
  if (typeof signers === 'string' && signers) config['gpg.ssh.allowedSignersFile'] = isAbsolute(signers) ? signers : join(store.repo.commonDir, signers)
  const status = await signatureStatus(cwd, commits.map((c) => c.sha), config)
  for (const c of commits) {
    const s = status.get(c.sha)
    const actor = c.facts.actor
    if (!s || s.status === 'N') {
      refuse(c.sha, null, {rule: 'unsigned', message: `the list requires signed commits (require_signed) and this commit by "${actor}" is not signed`})
      continue
    }
    if (s.status !== 'G') {
      refuse(c.sha, null, {rule: 'bad_signature', message: `the signature of this commit by "${actor}" does not verify against the allowed signers (git says ${s.status}${s.signer ? `, signer "${s.signer}"` : ''})`})
      continue
    }
    const signer = s.signer.trim()
    const matches = signer === actor || signer.endsWith(`<${actor}>`) || signer.split(/\s*,\s*/).includes(actor)
    if (!matches) refuse(c.sha, null, {rule: 'wrong_signer', message: `the commit acts as "${actor}" but is signed by the key of "${signer}"`})
  }
}
