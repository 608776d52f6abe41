/**
 * `tasks verify OLD NEW [--ref REF]`: is the update of a tasks ref from OLD
 * to NEW one the tool's own rules allow? Run by the server's pre-receive
 * guard (`tasks server install-hook`), or as a CI job on the ref. Every
 * refusal names the commit, the file and the rule. docs/verify.md says how
 * it decides; the rules themselves are data in ./rules.ts.
 */
import {isAbsolute, join} from 'node:path'
import {UsageError} from '../core/errors'
import {isValidListName} from '../core/store-layout'
import {type Snapshot} from '../core/snapshot'
import {tablesOf} from '../core/snapshot'
import {FORMAT_VERSION, type ListConfig} from '../core/task'
import {decodeUtf8} from '../core/validation'
import {parseCommentFile, parseConfig, parseMeta} from '../core/task-file'
import {messageTrailers} from '../core/commit-link'
import {mergedTree} from '../app/sync'
import {ListStore} from '../refstore/list-store'
import {git} from '../refstore/git-process'
import {changedPaths, readBlobs, signatureStatus, type ChangedPath} from '../refstore/blobs'
import {type Check, checkOfPath, parseCheckFile} from '../core/check'
import {taskDir} from '../core/ids'
import {type ActorEntry, RECORD_STEM_RE, actorSlug, parseActor, parseLatch, parseRecord} from '../core/inbox'
import {type CommitFacts, IMPORT_OP, type Refusal, fileKindOf, judgeActorChange, judgeCheckChange, judgeDoneChecks, judgeImport, judgeTaskChange} from './rules'

const ZERO = /^0+$/

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
}

interface CommitInfo {
  /** Tasks-Undo: the commit an undo takes back. */
  undoes: string | null
  sha: string
  parents: string[]
  author: string
  time: string
  message: string
  facts: CommitFacts
}

async function commitsOf(cwd: string, oldSha: string | null, newSha: string): Promise<CommitInfo[]> {
  const range = oldSha ? [newSha, `^${oldSha}`] : [newSha]
  const r = await git(['log', '--reverse', '--topo-order', '--format=%H%x1f%P%x1f%an%x1f%cI%x1f%B%x1e', ...range, '--'], {cwd})
  if (r.code !== 0) throw new UsageError(`cannot read the commits of ${oldSha ? `${oldSha}..` : ''}${newSha}: ${r.stderr.trim()}`, {}, 'bad_revision')
  const out: CommitInfo[] = []
  for (const rec of r.stdout.split('\x1e')) {
    const t = rec.replace(/^\n/, '')
    if (!t.trim()) continue
    const [sha, parents, author, date, message] = t.split('\x1f') as [string, string, string, string, string]
    const trailers = messageTrailers(message)
    const value = (k: string) => trailers.find(([key]) => key === k)?.[1] ?? null
    out.push({
      undoes: value('Tasks-Undo'),
      sha,
      parents: parents.trim() ? parents.trim().split(' ') : [],
      author,
      time: new Date(Date.parse(date)).toISOString(),
      message,
      facts: {
        actor: value('Actor') ?? author,
        op: value('Tasks-Op') ?? '',
        time: new Date(Date.parse(date)).toISOString(),
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

export async function verify(cwd: string, oldArg: string, newArg: string, refArg: string | undefined): Promise<VerifyResult> {
  const ref = refArg ?? 'refs/tasks/main'
  const m = /^refs\/tasks\/(.+)$/.exec(ref)
  if (!m || !isValidListName(m[1]!)) throw new UsageError(`--ref must name a task list ref (refs/tasks/<list>), not "${ref}"`, {ref}, 'bad_list')
  const list = m[1]!
  for (const [name, v] of [['OLD', oldArg], ['NEW', newArg]] as const) {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(v)) throw new UsageError(`${name} must be a full commit id (40 or 64 hex digits; zeros for none), not "${v}"`, {[name.toLowerCase()]: v}, 'bad_revision')
  }
  const result: VerifyResult = {ref, old: oldArg, new: newArg, commits: 0, ok: true, refusals: [], unjudged: [], require_signed: false}
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

async function judgeRange(store: ListStore, cwd: string, oldSha: string | null, newSha: string, result: VerifyResult, refuse: (commit: string, path: string | null, r: Refusal) => void): Promise<void> {
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
  const removed = oldSha ? await removedIds(cwd, oldSha) : new Set<string>()
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
      if (p.before && (check === 'check' || check === 'actor')) wanted.push(p.before)
    }
    if (paths.some((p) => fileKindOf(p.path).check === 'seen' || fileKindOf(p.path).check === 'actor')) wanted.push(`${c.parents[0]}:actors/${actorSlug(c.facts.actor)}.yaml`)
    const cards = paths.filter((p) => fileKindOf(p.path).check === 'task' && p.after && p.before).map((p) => p.path.slice(0, -'/task.md'.length))
    if (cards.length > 0) doneChecks.set(c.sha, new Map(cards.map((d) => [d.slice(d.lastIndexOf('/') + 1), []])))
  }
  const blobs = await readBlobs(cwd, wanted)
  const checksAt = async (c: CommitInfo, id: string): Promise<Check[]> => {
    const r = await git(['ls-tree', '-r', c.sha, '--', `${taskDir(id)}/checks/`], {cwd})
    const entries = r.stdout.split('\n').filter(Boolean).map((l) => {
      const [meta, path] = l.split('\t') as [string, string]
      return {blob: meta.split(' ')[2]!, path}
    })
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
      await judgeRoot(c, await load(c.sha), refuse)
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
    judgeCommit(c, before, after, diffs.get(c.sha) ?? [], blobs, removed, result, refuse, undoBase, finishing)
    // Older snapshots are not needed again (commits come parents first).
    if (snapshots.size > 8) for (const k of [...snapshots.keys()].slice(0, snapshots.size - 8)) snapshots.delete(k)
  }
}

async function judgeRoot(c: CommitInfo, snap: Snapshot, refuse: (commit: string, path: string | null, r: Refusal) => void): Promise<void> {
  for (const e of tablesOf(snap).brokenIds()) {
    const entry = snap.tasks.get(e)!
    refuse(c.sha, entry.path, {rule: 'schema', message: `${entry.path} cannot be read: ${entry.error}`})
  }
}

function judgeCommit(
  c: CommitInfo,
  before: Snapshot,
  after: Snapshot,
  paths: ChangedPath[],
  blobs: Map<string, Buffer>,
  removed: Set<string>,
  result: VerifyResult,
  refuse: (commit: string, path: string | null, r: Refusal) => void,
  undoBase: Snapshot | null,
  finishing: Map<string, Check[]>,
): void {
  const seenTasks = new Set<string>()
  const imported = c.facts.op === IMPORT_OP
  for (const r of judgeImport(c.facts, before.config)) refuse(c.sha, null, r)
  const blobText = (id: string | null): string | null => {
    const b = id ? blobs.get(id) : undefined
    return b ? decodeUtf8(b) : null
  }
  // The commit's actor as a recipient: itself, or the name its alias entry points to (before the commit).
  const ownEntry = blobText(`${c.parents[0]}:actors/${actorSlug(c.facts.actor)}.yaml`)
  const ownParsed = ownEntry === null ? null : parseActor(ownEntry)
  const canonical = ownParsed?.ok && ownParsed.value.alias_of ? ownParsed.value.alias_of : c.facts.actor
  for (const p of paths) {
    const kind = fileKindOf(p.path)
    if (kind.check === null) {
      result.unjudged.push({commit: c.sha, path: p.path, kind: kind.kind})
      continue
    }
    if (p.after && p.mode !== '100644' && p.mode !== '100755') {
      refuse(c.sha, p.path, {rule: 'schema', message: `${p.path} is not a regular file (mode ${p.mode})`})
      continue
    }
    const text = (): string | null => {
      const b = p.after ? blobs.get(p.after) : undefined
      return b ? decodeUtf8(b) : null
    }
    switch (kind.check) {
      case 'meta': {
        if (!p.after) {
          refuse(c.sha, p.path, {rule: 'store_format', message: 'meta.yaml, the mark of a task list, was removed'})
          break
        }
        const parsed = parseMeta(text() ?? '')
        if (!parsed.ok) refuse(c.sha, p.path, {rule: 'schema', message: `meta.yaml does not validate: ${parsed.error}`})
        else if (parsed.value.format !== FORMAT_VERSION) refuse(c.sha, p.path, {rule: 'store_format', message: `store format ${parsed.value.format} is not one this server knows (${FORMAT_VERSION})`})
        break
      }
      case 'config': {
        const parsed = p.after ? parseConfig(text() ?? '') : null
        if (parsed && !parsed.ok) refuse(c.sha, p.path, {rule: 'schema', message: `config.yaml does not validate: ${parsed.error}`})
        const admins = before.config.admins
        if (admins.length > 0 && !admins.includes(c.facts.actor)) refuse(c.sha, p.path, {rule: 'not_admin', message: `only the admins (${admins.join(', ')}) may change config.yaml; the commit was made by "${c.facts.actor}"`})
        break
      }
      case 'comment': {
        const id = idOf(p.path)!
        if (p.before && p.after) {
          refuse(c.sha, p.path, {rule: 'comment_rewritten', message: 'a comment, once written, is never changed'})
          break
        }
        if (!p.after) break // removed: `tasks undo` of a comment, or its card removed
        const name = p.path.slice(p.path.lastIndexOf('/') + 1, -3)
        const parsed = parseCommentFile(text() ?? '', id, name)
        if (!parsed.ok) refuse(c.sha, p.path, {rule: 'schema', message: `the comment does not validate: ${parsed.error}`})
        else if (parsed.value.author !== c.facts.actor && !imported && !(parsed.value.author === 'git-tasks' && ['doctor', 'sync'].includes(c.facts.op))) {
          refuse(c.sha, p.path, {rule: 'forged_actor', message: `the comment says it is by "${parsed.value.author}", but the commit was made by "${c.facts.actor}"`})
        }
        break
      }
      case 'check': {
        const where = checkOfPath(p.path)
        if (!where) {
          refuse(c.sha, p.path, {rule: 'schema', message: 'not a check file name (tasks/<xx>/<id>/checks/chk-….md)'})
          break
        }
        const read = (blob: string | null): Check | undefined | 'broken' => {
          if (!blob) return undefined
          const parsed = parseCheckFile(blobText(blob) ?? '', where.task, where.id)
          if (parsed.ok) return parsed.value
          if (blob === p.after) refuse(c.sha, p.path, {rule: 'schema', message: `the check does not validate: ${parsed.error}`})
          return 'broken'
        }
        const was = read(p.before)
        const now = read(p.after)
        if (now === 'broken') break
        const cardGone = !after.tasks.has(where.task)
        if (now && cardGone) {
          refuse(c.sha, p.path, {rule: 'schema', message: `the check belongs to ${where.task}, which is not in the list`})
          break
        }
        for (const r of judgeCheckChange(was === 'broken' ? undefined : was, now, c.facts, cardGone)) refuse(c.sha, p.path, r)
        break
      }
      case 'inbox': {
        if (p.before) {
          refuse(c.sha, p.path, {rule: 'inbox_rewritten', message: `an inbox record is only ever added; this one was ${p.after ? 'changed' : 'removed'}`})
          break
        }
        const [, slug, name] = p.path.split('/') as [string, string, string]
        const stem = name.slice(0, -3)
        const parsed = parseRecord(blobText(p.after) ?? '', stem)
        if (!RECORD_STEM_RE.test(stem)) refuse(c.sha, p.path, {rule: 'schema', message: `${name} is not a record name (<yyyymmddThhmmss.mmmZ>-<8 hex>.md)`})
        else if (!parsed.ok) refuse(c.sha, p.path, {rule: 'schema', message: `the inbox record does not validate: ${parsed.error}`})
        else if (actorSlug(parsed.value.to) !== slug) refuse(c.sha, p.path, {rule: 'schema', message: `the record is addressed to "${parsed.value.to}" but lies in the inbox of ${slug}`})
        else if (parsed.value.actor !== c.facts.actor) refuse(c.sha, p.path, {rule: 'forged_actor', message: `the record says "${parsed.value.actor}" did it, but the commit was made by "${c.facts.actor}"`})
        break
      }
      case 'seen': {
        const [, slug, name] = p.path.split('/') as [string, string, string]
        if (p.before) {
          refuse(c.sha, p.path, {rule: 'inbox_rewritten', message: `a seen marker is only ever added; this one was ${p.after ? 'changed' : 'removed'}`})
          break
        }
        if (!RECORD_STEM_RE.test(name.slice(0, -'.seen'.length)) || (blobText(p.after) ?? '') !== '') refuse(c.sha, p.path, {rule: 'schema', message: 'a seen marker is an empty <record id>.seen'})
        else if (slug !== actorSlug(c.facts.actor) && slug !== actorSlug(canonical)) {
          refuse(c.sha, p.path, {rule: 'not_recipient', message: `only the owner of inbox ${slug} (or an alias of it) marks its records seen; the commit was made by "${c.facts.actor}"`})
        }
        break
      }
      case 'actor': {
        const slug = p.path.slice('actors/'.length, -'.yaml'.length)
        const read = (blob: string | null): ActorEntry | undefined | 'broken' => {
          if (!blob) return undefined
          const parsed = parseActor(blobText(blob) ?? '')
          if (parsed.ok) return parsed.value
          if (blob === p.after) refuse(c.sha, p.path, {rule: 'schema', message: `the actor entry does not validate: ${parsed.error}`})
          return 'broken'
        }
        const was = read(p.before)
        const now = read(p.after)
        if (now === 'broken') break
        for (const r of judgeActorChange(slug, was === 'broken' ? undefined : was, now, c.facts, canonical, before.config, actorSlug)) refuse(c.sha, p.path, r)
        break
      }
      case 'reminder': {
        if (!p.after) break
        const parsed = parseLatch(blobText(p.after) ?? '')
        if (!parsed.ok) refuse(c.sha, p.path, {rule: 'schema', message: `the reminder latch does not validate: ${parsed.error}`})
        break
      }
      case 'task': {
        const id = idOf(p.path)!
        if (seenTasks.has(id)) break
        seenTasks.add(id)
        const was = before.tasks.get(id)
        const now = after.tasks.get(id)
        if (!now) {
          // Removed: nothing left may depend on it.
          const dependents = tablesOf(after).dependents(id).filter((d) => after.tasks.has(d))
          if (dependents.length > 0) refuse(c.sha, p.path, {rule: 'has_dependents', message: `${id} was removed while ${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on it`})
          if (c.facts.op === 'prune') {
            // Prune removes only finished cards closed before its cutoff (the retention, or --older-than), and no parent of a card that stays.
            const old = was?.meta
            const cutoff = c.facts.pruneBefore ?? ''
            const closed = old ? (old.closed_at ?? old.updated_at) : ''
            if (!old || (old.status !== 'done' && old.status !== 'cancelled') || !cutoff || cutoff > c.facts.time || !(closed < cutoff)) {
              refuse(c.sha, p.path, {rule: 'prune', message: `prune removes only finished cards closed before its cutoff (Tasks-Prune-Before ${cutoff || 'missing'}, not after the commit); ${id} is ${old?.status ?? 'unreadable'}, closed ${closed || 'never'}`})
            }
            const children = tablesOf(after).children(id).filter((d) => after.tasks.has(d))
            if (children.length > 0) refuse(c.sha, p.path, {rule: 'has_dependents', message: `${id} was pruned while its sub-item${children.length === 1 ? '' : 's'} ${children.join(', ')} stay${children.length === 1 ? 's' : ''}`})
          }
          removed.add(id)
          break
        }
        if (!now.meta) {
          refuse(c.sha, p.path, {rule: 'schema', message: `the card cannot be read: ${now.error}`})
          break
        }
        if (undoBase) {
          // An undo puts the card back as it was before the commit it takes back (a new revision, by the actor).
          const back = undoBase.tasks.get(id)?.meta
          const strip = (m: typeof back) => (m ? JSON.stringify({...m, revision: 0, epoch: 0, updated_at: '', updated_by: ''}) : null)
          if (!back || strip(back) !== strip(now.meta) || now.meta.updated_by !== c.facts.actor || (was?.meta && now.meta.epoch < was.meta.epoch)) {
            refuse(c.sha, p.path, {rule: 'undo_mismatch', message: `an undo of ${c.undoes!.slice(0, 12)} must put the card back as it was before that commit`})
          }
          break
        }
        if (!was && removed.has(id) && c.facts.op !== 'restore' && !imported) {
          refuse(c.sha, p.path, {rule: 'id_reused', message: `${id} was removed earlier; an id is never reused (\`tasks restore\` brings a card back)`})
        }
        for (const r of judgeTaskChange(was?.meta ?? undefined, now.meta, c.facts, before.config)) refuse(c.sha, p.path, r)
        // An import's card is done as the document recorded it, checks and all.
        const checks = imported ? undefined : finishing.get(id)
        if (checks) for (const r of judgeDoneChecks(checks)) refuse(c.sha, p.path, r)
        break
      }
    }
  }
}

/** The list before the commit an undo takes back, when that commit is the actor's own; else a refusal and null. */
async function undoneState(store: ListStore, cwd: string, c: CommitInfo, refuse: (commit: string, path: string | null, r: Refusal) => void): Promise<Snapshot | null> {
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
async function judgeMerge(store: ListStore, cwd: string, c: CommitInfo, refuse: (commit: string, path: string | null, r: Refusal) => void): Promise<void> {
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
  for (const now of candidates) {
    const replay = await mergedTree(store, ours, theirs, baseSha, now, c.facts.actor)
    if (replay.tree === tree) return
  }
  const replay = await mergedTree(store, ours, theirs, baseSha, c.time, c.facts.actor)
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
async function judgeSignatures(cwd: string, store: ListStore, commits: CommitInfo[], policy: ListConfig, refuse: (commit: string, path: string | null, r: Refusal) => void): Promise<void> {
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
