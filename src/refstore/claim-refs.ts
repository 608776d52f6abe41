/**
 * Per-item change refs on the shared remote (docs/scale.md, "Many agents on
 * one remote"). Under contention a change that touches one task only is not
 * pushed to the list's ref directly: it is pushed as its own commit to
 * `refs/tasks-claims/<list>/<id>` with a must-not-exist lease (two changes of
 * different items never touch the same ref; two of the same item race on that
 * ref), and then *folded* into the list's ref: any command holding such a
 * change copies every pending change onto the list's tip as ordinary
 * commits (the same message, trailers, author and dates, the committer time
 * raised to the new parent's when earlier; a new parent and
 * tree, as a rebase does) and deletes the refs it folded, each with a lease
 * on its value, in one `git push --atomic`. One push of the list then
 * carries the changes of many agents.
 *
 * A pending change is folded only when its task's directory on the list is
 * still exactly what it was computed on (its parent's); otherwise it is
 * dropped (its ref deleted) and its command, which has not answered yet,
 * runs its op again. So the list's ref stays the one truth: a command
 * reports success only once its change is on the list, and exactly one
 * change of an item wins from any one state of that item, however stale a
 * pending ref is (a claimer that fetched long ago cannot win an item that
 * was claimed, folded and had its ref deleted since).
 *
 * Locally the pending refs are fetched into
 * `refs/tasks-claims-remote/<remote>/<list>/<id>` (pruned by every fetch).
 */
import {existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {taskDir} from '../core/ids'
import {git} from './git-process'
import type {ObjectReader} from './object-reader'
import {type LooseObjectWriter, decodeTree, FILE_MODE, TREE_MODE} from './git-objects'
import {type NetworkLimits, networkGit, trackingRef, unreachable, UNREACHABLE} from './remote'
import {TreeBuilder} from './tree-builder'

/** The remote ref of a pending change of task `id`. */
export function claimRef(list: string, id: string): string {
  return `refs/tasks-claims/${list}/${id}`
}

/** Where a clone keeps its copies of the remote's pending changes of `list`. */
export function claimTrackingPrefix(remote: string, list: string): string {
  return `refs/tasks-claims-remote/${remote}/${list}/`
}

/** The fetch refspec that copies (and, with --prune, forgets) the remote's pending changes. */
export function claimRefspec(remote: string, list: string): string {
  return `+refs/tasks-claims/${list}/*:${claimTrackingPrefix(remote, list)}*`
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/**
 * The refs under `prefix` read straight from the files-backend (loose ref
 * files, which win, over packed-refs), without starting `git for-each-ref`:
 * a waiting command reads them after every fetch. Null means "ask git": a
 * reftable repository, or a file that is not a plain object id (a symbolic
 * ref), or a directory that cannot be read. A ref file that vanishes while
 * it is read (a concurrent fetch pruning it) counts as gone, as git's own
 * reading would after that fetch.
 */
export function refsUnder(commonDir: string, prefix: string): Map<string, string> | null {
  if (existsSync(join(commonDir, 'reftable'))) return null
  const out = new Map<string, string>()
  try {
    const packed = join(commonDir, 'packed-refs')
    if (existsSync(packed)) {
      const text = readFileSync(packed, 'latin1')
      if (text.includes(prefix)) {
        for (const line of text.split('\n')) {
          const space = line.indexOf(' ')
          if (space === -1 || line.startsWith('#') || line.startsWith('^')) continue
          const name = line.slice(space + 1)
          if (name.startsWith(prefix) && OID.test(line.slice(0, space))) out.set(name, line.slice(0, space))
        }
      }
    }
    const walk = (dir: string, name: string): boolean => {
      let entries
      try {
        entries = readdirSync(dir, {withFileTypes: true})
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ENOENT'
      }
      for (const e of entries) {
        if (e.isDirectory()) {
          if (!walk(join(dir, e.name), `${name}${e.name}/`)) return false
        } else if (e.isFile() && !e.name.endsWith('.lock')) {
          let value: string
          try {
            value = readFileSync(join(dir, e.name), 'latin1').trim()
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
            return false
          }
          if (!OID.test(value)) return false
          out.set(`${name}${e.name}`, value)
        }
      }
      return true
    }
    return walk(join(commonDir, ...prefix.split('/').filter(Boolean)), prefix) ? out : null
  } catch {
    return null
  }
}

/**
 * Pending changes as the last fetch saw them: task id → commit. With the
 * repository's common directory they are read from the ref files
 * (refsUnder); git is asked only when those cannot be read that way.
 */
export async function pendingChanges(cwd: string, remote: string, list: string, commonDir?: string): Promise<Map<string, string>> {
  const prefix = claimTrackingPrefix(remote, list)
  const out = new Map<string, string>()
  const direct = commonDir !== undefined ? refsUnder(commonDir, prefix) : null
  if (direct) {
    for (const [ref, oid] of direct) out.set(ref.slice(prefix.length), oid)
    return out
  }
  const r = await git(['for-each-ref', '--format=%(refname) %(objectname)', prefix], {cwd})
  if (r.code !== 0) return out
  for (const line of r.stdout.split('\n')) {
    const [ref, oid] = line.split(' ')
    if (ref && oid && ref.startsWith(prefix)) out.set(ref.slice(prefix.length), oid)
  }
  return out
}

/**
 * Drop this clone's copies of pending changes that a look at the remote
 * (`remoteNow`, from peekPending) no longer shows, or shows at another
 * commit: what the `--prune` of a fetch with the pending refs would have
 * done, without fetching their objects. Copies of changes the look shows
 * anew are not made (they need the objects); the next fetch that needs them
 * brings them. Best-effort bookkeeping: a copy left behind only makes a
 * later command fetch before it acts.
 */
export async function forgetPending(cwd: string, remote: string, list: string, commonDir: string, remoteNow: ReadonlyMap<string, string>): Promise<void> {
  const prefix = claimTrackingPrefix(remote, list)
  const stale = [...(await pendingChanges(cwd, remote, list, commonDir))].filter(([id, oid]) => remoteNow.get(id) !== oid)
  if (stale.length === 0) return
  await git(['update-ref', '--stdin'], {cwd, input: stale.map(([id, oid]) => `delete ${prefix}${id} ${oid}\n`).join('')})
}

/**
 * `hostRefused`: the host itself turned down a pending ref (a permission or a hook on the namespace), not the
 * guard judging the change's content; said only of a push of one pending ref alone (pushPending).
 */
export type ClaimPushOutcome = {ok: true} | {ok: false; reason: 'stale' | 'declined'; detail: string; hostRefused?: boolean}

/** A refusal on a rejected ref's line: a hook that declined, a permission, a protected or hidden ref. */
const REFUSAL = /declined|denied|deny|not allowed|protected|refus|forbidden|prohibited|permission|hidden ref/i
/** The pre-receive guard's own words (hooks/render.ts renderVerify): a refusal of the change's content, by rule. */
const GUARD_REFUSAL = /git-tasks refused the update|^remote:.*\[[a-z][a-z0-9_]*\]/m

/**
 * Whether a declined push of a pending ref was the host refusing that ref
 * as such (gitolite's `DENIED`, a hook that turns down `refs/tasks-claims/*`,
 * a protected or hidden namespace), as opposed to the guard refusing the
 * change by one of its rules (`[not_owner]` and the like: that change is
 * wrong, the namespace is fine) or a failure with no refusal in it.
 */
export function refusedByHost(rejected: string[], text: string): boolean {
  const claims = rejected.filter((l) => l.includes('refs/tasks-claims/'))
  return claims.length > 0 && claims.every((l) => REFUSAL.test(l)) && !GUARD_REFUSAL.test(text)
}

/** Run a push with `--porcelain`; ok only when git exited 0 and rejected no ref. */
async function porcelainPush(cwd: string, remote: string, options: string[], specs: string[], limits: NetworkLimits, judgeHost = false): Promise<ClaimPushOutcome> {
  // Bounded like every push: running out of time is remote_timeout (it may have landed; the next command finds out).
  const r = await networkGit(cwd, remote, 'push', ['push', '--porcelain', '--quiet', '--no-verify', ...options, remote, ...specs], limits)
  const rejected = r.stdout.split('\n').filter((l) => l.startsWith('!'))
  if (r.code === 0 && rejected.length === 0) return {ok: true}
  const text = `${r.stdout}\n${r.stderr}`
  const detail = (rejected.join('; ') || r.stderr.trim() || `exit ${r.code}`).slice(0, 500)
  if (rejected.length === 0 && UNREACHABLE.test(text)) throw unreachable(remote, r.stderr.trim())
  // A race (someone else's ref value) is stale; a server that refuses these refs or atomic pushes is a refusal.
  if (/stale info|fetch first|non-fast-forward|already exists|incorrect old value|but expected|cannot lock ref|atomic push failed/i.test(text)) return {ok: false, reason: 'stale', detail}
  const said = r.stderr.split('\n').filter((l) => /^remote:/.test(l)).map((l) => l.replace(/^remote:\s*/, '').trim()).filter(Boolean).join(' ')
  return {ok: false, reason: 'declined', detail: said && !detail.includes(said) ? `${detail}: ${said}`.slice(0, 500) : detail, ...(judgeHost && refusedByHost(rejected, text) ? {hostRefused: true} : {})}
}

/** Create `refs/tasks-claims/<list>/<id>` at `commit`, only if it does not exist on the remote. */
export function pushPending(cwd: string, remote: string, list: string, id: string, commit: string, limits: NetworkLimits): Promise<ClaimPushOutcome> {
  const ref = claimRef(list, id)
  // Only this push, of one pending ref alone, says whether the host refuses the namespace: a fold's atomic push
  // refused as a whole cannot tell which of its refs the host minded.
  return porcelainPush(cwd, remote, [`--force-with-lease=${ref}:`], [`${commit}:${ref}`], limits, true)
}

// ------------------------------------------------------------ a host that refuses pending refs

/** How long a host's refusal of the pending refs is believed: after that, one command asks again. */
export const PENDING_REFUSED_TTL_MS = 60 * 60_000

/** What this clone remembers of a remote that refused a pending ref (pendingRefused). */
export interface PendingRefused {
  /** When it refused (ISO-8601). */
  since: string
  /** Until when it is believed (since + PENDING_REFUSED_TTL_MS). */
  until: string
  /** What the host said. */
  detail: string
}

function refusedNotePath(commonDir: string, remote: string): string {
  // A remote's name may hold a slash: one file a remote, its name encoded into one component.
  return join(commonDir, 'git-tasks', `pending-refused-${encodeURIComponent(remote)}`)
}

/**
 * The remote refused a pending ref: remember it in
 * `<common-dir>/git-tasks/pending-refused-<remote>` (JSON: the remote, when,
 * what the host said), so every command of this clone, in this process or
 * another, goes straight to the list's ref for the next hour. True when this
 * is news (no note in force before): the caller says so once. Best-effort:
 * a note that cannot be written only costs the next command one refused push.
 */
export function notePendingRefused(commonDir: string, remote: string, detail: string, now = Date.now()): boolean {
  const news = pendingRefused(commonDir, remote, now) === null
  try {
    const path = refusedNotePath(commonDir, remote)
    mkdirSync(join(commonDir, 'git-tasks'), {recursive: true})
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify({remote, at: new Date(now).toISOString(), detail: detail.slice(0, 500)})}\n`)
    renameSync(tmp, path)
  } catch {
    // Not remembered: the next command asks again.
  }
  return news
}

/**
 * Whether `remote` refused a pending ref within the last hour
 * (notePendingRefused), and what it said; null when not (no note, one about
 * another remote, an unreadable one, one older than PENDING_REFUSED_TTL_MS or
 * dated in the future). One file read; no process.
 */
export function pendingRefused(commonDir: string, remote: string, now = Date.now()): PendingRefused | null {
  let note: {remote?: unknown; at?: unknown; detail?: unknown}
  try {
    note = JSON.parse(readFileSync(refusedNotePath(commonDir, remote), 'utf8'))
  } catch {
    return null
  }
  if (note.remote !== remote || typeof note.at !== 'string') return null
  const at = Date.parse(note.at)
  // A note from the future (a clock set back) is not believed: it could otherwise last for ever.
  if (!Number.isFinite(at) || at > now + 60_000 || now - at >= PENDING_REFUSED_TTL_MS) return null
  return {since: new Date(at).toISOString(), until: new Date(at + PENDING_REFUSED_TTL_MS).toISOString(), detail: typeof note.detail === 'string' ? note.detail : ''}
}

interface CommitParts {
  tree: string
  parents: string[]
  /** Everything after the parent lines (author, committer, message), kept byte for byte. */
  rest: string
}

function parseCommit(content: Buffer): CommitParts {
  const text = content.toString('utf8')
  const lines = text.split('\n')
  let i = 0
  const tree = lines[i++]!.replace(/^tree /, '')
  const parents: string[] = []
  while (lines[i]?.startsWith('parent ')) parents.push(lines[i++]!.slice(7))
  return {tree, parents, rest: lines.slice(i).join('\n')}
}

const COMMITTER_LINE = /^committer (.*) (\d+) ([+-]\d{4})$/m

/** The committer time (seconds) of a commit's text after its parent lines; 0 when it has none. */
function committerTime(rest: string): number {
  return Number(COMMITTER_LINE.exec(rest)?.[2] ?? 0)
}

/** The commit text with its committer time raised to `seconds` when it is earlier (author and message kept). */
function committedNoEarlierThan(rest: string, seconds: number): string {
  return rest.replace(COMMITTER_LINE, (line, who: string, time: string, zone: string) => (Number(time) < seconds ? `committer ${who} ${seconds} ${zone}` : line))
}

/** What identifies a change's copy on the list: its text less the committer time, which a fold may raise. */
function sameChangeKey(rest: string): string {
  return rest.replace(COMMITTER_LINE, (_line, who: string, _time: string, zone: string) => `committer ${who} ${zone}`)
}

/** One path a pending change sets: its task's directory as one unit, any other file on its own. */
interface PathChange {
  path: string
  tree: boolean
  /** What the change was computed on (null: absent)... */
  before: string | null
  /** ...and what it sets (null: removes it). */
  after: string | null
}

/**
 * What a pending change sets, against the commit it was computed on: its
 * task's directory (as one unit) and, file by file, anything else (the inbox
 * records and the actor's last_seen its mutation wrote). Only trees that
 * differ are read. Null when it changes something a fold cannot copy (a file
 * turned into a directory, a mode it does not write).
 */
async function changedPaths(reader: ObjectReader, algorithm: LooseObjectWriter['algorithm'], baseTree: string, changeTree: string, id: string): Promise<PathChange[] | null> {
  const unit = taskDir(id)
  const out: PathChange[] = []
  const entries = async (tree: string | null) => {
    const m = new Map<string, {mode: string; oid: string}>()
    if (tree) for (const e of decodeTree((await reader.readType(tree, 'tree')).content, algorithm)) if (!e.raw) m.set(e.name, e)
    return m
  }
  const walk = async (prefix: string, a: string | null, b: string | null): Promise<boolean> => {
    const [ea, eb] = await Promise.all([entries(a), entries(b)])
    for (const name of new Set([...ea.keys(), ...eb.keys()])) {
      const x = ea.get(name)
      const y = eb.get(name)
      if (x && y && x.mode === y.mode && x.oid === y.oid) continue
      const path = `${prefix}${name}`
      const isTree = (x ?? y)!.mode === TREE_MODE
      if ((x && y && x.mode !== y.mode) || (!isTree && (x ?? y)!.mode !== FILE_MODE)) return false
      if (path === unit) out.push({path, tree: true, before: x?.oid ?? null, after: y?.oid ?? null})
      else if (isTree) {
        if (!(await walk(`${path}/`, x?.oid ?? null, y?.oid ?? null))) return false
      } else out.push({path, tree: false, before: x?.oid ?? null, after: y?.oid ?? null})
    }
    return true
  }
  return (await walk('', baseTree, changeTree)) ? out : null
}

export interface FoldResult {
  /** The list's new tip (unchanged when every pending change was dropped). */
  tip: string
  /** Task id → the commit that carries its change on the list. */
  folded: Map<string, string>
  /** Task ids whose pending change no longer applied and was deleted. */
  dropped: string[]
}

/**
 * Build the fold of `pending` onto `tip`: for each pending change (oldest
 * first), if its task's directory on the list is what the change was
 * computed on, a commit that sets that directory to the change's, with the
 * change's author, committer and message. Objects only; nothing is pushed.
 */
export async function buildFold(reader: ObjectReader, writer: LooseObjectWriter, tip: string, pending: ReadonlyMap<string, string>): Promise<FoldResult & {changes: Array<{id: string; oid: string}>}> {
  const entries = await Promise.all(
    [...pending].map(async ([id, oid]) => {
      const c = parseCommit((await reader.readType(oid, 'commit')).content)
      const time = Number(/^author .* (\d+) [+-]\d{4}$/m.exec(c.rest)?.[1] ?? 0)
      return {id, oid, c, time}
    }),
  )
  entries.sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  let head = tip
  const tipParts = parseCommit((await reader.readType(tip, 'commit')).content)
  let headTree = tipParts.tree
  let headTime = committerTime(tipParts.rest)
  // One builder for the whole fold: each change's trees are written on top of the one before, and the trees it
  // loaded (the root, tasks/, the shards touched) stay decoded for the next change instead of being read again.
  const tb = new TreeBuilder(reader, writer, headTree)
  const folded = new Map<string, string>()
  const dropped: string[] = []
  for (const e of entries) {
    const [base] = e.c.parents
    const paths = base && e.c.parents.length === 1 ? await changedPaths(reader, writer.algorithm, parseCommit((await reader.readType(base, 'commit')).content).tree, e.c.tree, e.id) : null
    // The task's directory always takes part in the check, even when the change left it as it was.
    const dir = taskDir(e.id)
    if (paths && !paths.some((p) => p.path === dir)) {
      const o = await reader.read(`${base}:${dir}`)
      const oid = o && o.type === 'tree' ? o.oid : null
      paths.push({path: dir, tree: true, before: oid, after: oid})
    }
    // Folded only when every path it sets is, on the list now, what it was computed on.
    let applies = paths !== null
    for (const p of paths ?? []) {
      if ((await tb.entryAt(p.path, p.tree)) !== p.before) {
        applies = false
        break
      }
    }
    if (!applies) {
      dropped.push(e.id)
      continue
    }
    for (const p of paths!) {
      if (p.tree) await tb.setTree(p.path, p.after)
      else if (p.after === null) await tb.remove(p.path)
      else await tb.setBlob(p.path, p.after)
    }
    headTree = await tb.write()
    // A change lands when it is folded: a copy that waited behind later commits is dated no earlier than the
    // commit it now follows (the server guard refuses a commit dated before its parent by more than the skew).
    const rest = committedNoEarlierThan(e.c.rest, headTime)
    head = writer.write('commit', `tree ${headTree}\nparent ${head}\n${rest}`)
    headTime = Math.max(headTime, committerTime(rest))
    folded.set(e.id, head)
  }
  return {tip: head, folded, dropped, changes: entries.map(({id, oid}) => ({id, oid}))}
}

/**
 * Fold `pending` into the list on `remote`, whose tip was `tip`: one atomic
 * push that moves the list (with a lease on `tip`) and deletes every pending
 * ref it folded or dropped (each with a lease on its value). Nothing moves
 * unless all of it does. `own`: this command's change (a commit on `tip`,
 * not pushed anywhere yet), folded last-in-time order with the rest; with
 * nothing pending the result is that very commit, as a plain push would land it.
 */
export async function foldPending(
  cwd: string,
  reader: ObjectReader,
  writer: LooseObjectWriter,
  remote: string,
  list: string,
  tip: string,
  pending: ReadonlyMap<string, string>,
  limits: NetworkLimits,
  own?: {id: string; commit: string},
  /** Points the remote-tracking ref at the pushed tip (default: one `git update-ref`; a long-lived store has a cheaper way). */
  setRef: (ref: string, oid: string) => Promise<unknown> = (ref, oid) => git(['update-ref', ref, oid], {cwd}),
): Promise<{outcome: ClaimPushOutcome; fold: FoldResult}> {
  const all = new Map(pending)
  if (own) all.set(own.id, own.commit)
  const fold = await buildFold(reader, writer, tip, all)
  const listRef = `refs/tasks/${list}`
  const args: string[] = []
  const specs: string[] = []
  if (fold.tip !== tip) {
    args.push(`--force-with-lease=${listRef}:${tip}`)
    specs.push(`${fold.tip}:${listRef}`)
  }
  for (const {id, oid} of fold.changes) {
    if (own && id === own.id) continue // this command's own change: not on the remote yet, nothing to delete
    args.push(`--force-with-lease=${claimRef(list, id)}:${oid}`)
    specs.push(`:${claimRef(list, id)}`)
  }
  if (specs.length === 0) return {outcome: {ok: true}, fold}
  if (specs.length > 1) args.unshift('--atomic')
  const outcome = await porcelainPush(cwd, remote, args, specs, limits)
  if (outcome.ok) {
    // The local copies of the deleted pending refs go with the next fetch (--prune).
    await setRef(trackingRef(remote, list), fold.tip)
  }
  return {outcome, fold}
}

/**
 * Where a pending change `pendingOid` (computed on `base`) landed on the list
 * at `tip`, when someone else folded it: the commit after `base` that touches
 * the task and has the change's author, committer and message. Null when it
 * is not there (it was dropped).
 */
export async function findFolded(cwd: string, reader: ObjectReader, tip: string, base: string, id: string, pendingOid: string): Promise<string | null> {
  const mine = sameChangeKey(parseCommit((await reader.readType(pendingOid, 'commit')).content).rest)
  // Folds keep the list linear: walk its first-parent line back to `base` in-process (no `git rev-list`) when it is there.
  let at = tip
  for (let i = 0; i < 256 && at !== base; i++) {
    const o = await reader.read(at)
    if (!o || o.type !== 'commit') break
    const c = parseCommit(o.content)
    if (sameChangeKey(c.rest) === mine) return at
    if (c.parents.length !== 1) break
    at = c.parents[0]!
  }
  if (at === base) return null
  const r = await git(['rev-list', tip, `^${base}`, '--', taskDir(id)], {cwd})
  if (r.code !== 0) return null
  for (const oid of r.stdout.split('\n').filter(Boolean)) {
    const c = parseCommit((await reader.readType(oid, 'commit')).content)
    if (sameChangeKey(c.rest) === mine) return oid
  }
  return null
}

/**
 * Take back this command's pending change (a lease on its value), when the
 * command gives up: it must not land after the command said it failed.
 * False when it was no longer there (someone folded or dropped it first).
 */
export async function withdrawPending(cwd: string, remote: string, list: string, id: string, commit: string, limits: NetworkLimits): Promise<boolean> {
  const ref = claimRef(list, id)
  const r = await porcelainPush(cwd, remote, [`--force-with-lease=${ref}:${commit}`], [`:${ref}`], limits)
  return r.ok
}

/**
 * A cheap look at the remote while a pending change waits (one `git
 * ls-remote`, no objects): the list's tip and the names and values of its
 * pending refs. Null when the remote could not be asked (the caller fetches instead).
 */
export async function peekPending(cwd: string, remote: string, list: string, limits: NetworkLimits): Promise<{tip: string | null; pending: Map<string, string>} | null> {
  const prefix = `refs/tasks-claims/${list}/`
  const listRef = `refs/tasks/${list}`
  const r = await git([...limits.config, 'ls-remote', '--refs', remote, listRef, `${prefix}*`], {cwd, env: limits.env, deadlineMs: limits.deadlineMs})
  if (r.code !== 0 || r.timedOut) return null
  const pending = new Map<string, string>()
  let tip: string | null = null
  for (const line of r.stdout.split('\n')) {
    const [oid, ref] = line.split('\t')
    if (!oid || !ref) continue
    if (ref === listRef) tip = oid
    else if (ref.startsWith(prefix)) pending.set(ref.slice(prefix.length), oid)
  }
  return {tip, pending}
}

/** What a walk down the list's first-parent line found (recentLine). */
/** Commits recentLine reads at once: the first run, and the longest (see there). */
const RECENT_RUN_FIRST = 8
const RECENT_RUN_MAX = 64

export interface RecentLine {
  /** How many commits the tip is ahead of the ancestor, when the ancestor is on that line within the walk; else null ("not found that way", not "not an ancestor"). */
  distance: number | null
  /** Actors other than `self` with a change on that line committed at or after `since`: about how many agents are at work now. */
  others: number
}

/**
 * Walk the list's first-parent line from `tip` through the open object
 * reader (no `git merge-base`, no `git log`), at most `limit` commits, for
 * two things at once: how far `tip` is ahead of `ancestor` (the usual case
 * of a clone whose last publish others have built on), and how many other
 * actors (the `Actor` trailer) committed a change since `since` (seconds):
 * the measure of contention a change decides by whether to go pending at
 * once. It counts changes anyone landed, not only those since this clone's
 * last publish: at 64 agents a clone's last publish is often a minute old,
 * and changes landing since then are no news of who is at work now. Walks
 * no further than it must: it stops once the ancestor is found and the
 * commits are older than `since`, or `maxOthers` actors were counted.
 *
 * A commit names only its parent, so reading one commit after another is a
 * round trip to git each, 128 of them in a walk on the path of every online
 * mutation of a busy list. Instead the walk asks for
 * runs of commits at once by git's own first-parent names (`<commit>`,
 * `<commit>~1`, ... `<commit>~k`), runs that double from 8 to 64: 128
 * commits in 4 round trips, and a walk that ends early has read at most a
 * few commits it did not need.
 */
export async function recentLine(reader: ObjectReader, tip: string, ancestor: string | null, self: string, since: number, limit = 128, maxOthers = 64): Promise<RecentLine> {
  const actors = new Set<string>()
  let distance: number | null = null
  let counting = true
  let at: string | null = tip
  let run = RECENT_RUN_FIRST
  walk: for (let i = 0; i < limit && at; ) {
    const from: string = at
    const batch = await Promise.all(Array.from({length: Math.min(run, limit - i)}, (_, j) => reader.read(j === 0 ? from : `${from}~${j}`)))
    run = Math.min(run * 2, RECENT_RUN_MAX)
    for (let j = 0; j < batch.length; j++) {
      const o = batch[j]
      // Each answer after the first (read by id) is the parent of the one before, as git resolves the names by first
      // parents; should one not be (a replaced object), the next run starts from that parent, read by id.
      if (j > 0 && o?.oid !== at) continue walk
      if (!o || o.type !== 'commit') break walk
      if (o.oid === ancestor) {
        distance = i
        if (!counting) break walk
      }
      const text = o.content.toString('utf8')
      if (counting) {
        const time = Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(text)?.[1] ?? 0)
        if (time < since) counting = false
        else {
          const actor = /^Actor: (.+)$/m.exec(text)?.[1]
          if (actor && actor !== self) actors.add(actor)
          if (actors.size >= maxOthers) counting = false
        }
        if (!counting && (distance !== null || ancestor === null)) break walk
      }
      i++
      at = /^parent ([0-9a-f]+)$/m.exec(text)?.[1] ?? null
      if (!at) break walk
    }
  }
  return {distance, others: actors.size}
}
