/**
 * `tasks diff [FROM [TO]]`: what happened to the list between two points of
 * its history, card by card (core/list-diff.ts builds it). `diffCommits` is
 * the use case over two commits, also behind `tasks plan diff`.
 *
 * Without `--actor` the diff is the net change between the two trees: only
 * the paths that differ are read (one tree diff, one blob batch), so a day
 * on a list of 10,000 cards reads the cards of that day. With `--actor` it
 * is the change made by that actor's commits in the window: every commit
 * reachable from TO and not from FROM (both lines of a `sync` merge, so
 * what an actor wrote on another clone counts for them once it arrived),
 * each against its parent; a merge commit itself is skipped, since what it
 * brings was made by the commits it merges, not by whoever merged.
 */
import {EnvironmentError} from '../core/errors'
import {actorsNamed} from '../core/flag-values'
import {type DiffPoint, type ListDiff, buildListDiff, cardsWithoutTaskFile} from '../core/list-diff'
import {parseTaskFile} from '../core/task-file'
import {type PrefixSearch, shortIdBetween, shortIdOf} from '../core/ids'
import {tablesOf} from '../core/snapshot'
import {taskFilePath} from '../core/store-layout'
import {unifiedDiff} from '../merge/unified-diff'
import {changedCardFiles, commitDates, commitsBetween, filesAt} from '../refstore/list-diff-read'
import {resolveAt} from './at'
import type {Session} from './session'

export type {ListDiff}

export interface DiffOptions {
  /** Only the changes made by commits of these actors (`@me`: the current one); comma-separated values are split. */
  actor?: string[]
}

/**
 * The diff of the session's list from commit `from` to commit `to` (full
 * ids of commits of the repository), optionally only what `actor` did.
 */
export async function diffCommits(session: Session, from: string, to: string, options: DiffOptions = {}): Promise<ListDiff> {
  return diffPoints(session, {commit: from, input: null}, {commit: to, input: null}, options, tipIds(session))
}

/**
 * The diff between two commits the caller knows hold the same tree (a
 * commit onto itself, a merge that changes nothing): empty, so only the two
 * commits' dates are read (no tree diff, no index for short ids).
 */
export async function unchangedDiff(session: Session, from: string, to: string): Promise<ListDiff> {
  const dates = await commitDates(session.store.reader, [from, to])
  const point = (commit: string): DiffPoint => ({commit, date: dates.get(commit) ?? '', input: null})
  return buildListDiff({list: session.list, from: point(from), to: point(to), actors: null}, [], unifiedDiff)
}

/**
 * The ids of the list at its tip (the index cache, brought up to date),
 * for short ids; started first, so it overlaps the git reads. A
 * list that cannot be loaded gives no short ids (full ids are shown).
 */
function tipIds(session: Session): Promise<PrefixSearch | null> {
  return session.store.load().then(
    (loaded) => tablesOf(loaded.snapshot),
    () => null,
  )
}

/** A side of a diff: a commit, what was typed for it, and its committer date when already known (resolveAt read it). */
interface Side {
  commit: string
  input: string | null
  date?: string
}

async function diffPoints(session: Session, from: Side, to: Side, options: DiffOptions, idsP: Promise<PrefixSearch | null>): Promise<ListDiff> {
  const cwd = session.store.repo.cwd
  const named = await actorsNamed(options.actor, () => session.actor())
  const actors = named.size === 0 ? null : [...named].sort()
  const reader = session.store.reader
  // Only the dates not known yet are read (a commit given by id, the tip): resolveAt dated what WHEN named.
  const datesP = commitDates(reader, [from, to].filter((p) => p.date === undefined).map((p) => p.commit))
  let pairs: Array<{from: string; to: string; actor: string | null}>
  if (actors === null) {
    pairs = [{from: from.commit, to: to.commit, actor: null}]
  } else {
    const only = new Set(actors)
    const commits = await commitsBetween(cwd, from.commit, to.commit)
    pairs = commits.filter((c) => c.parents.length === 1 && only.has(c.actor)).map((c) => ({from: c.parents[0]!, to: c.commit, actor: c.actor}))
  }
  const steps = await changedCardFiles(cwd, reader, pairs)
  // A card only commented on or checked: its title as TO has it, else as FROM had it (removed since).
  const untitled = cardsWithoutTaskFile(steps)
  const titles = new Map<string, string>()
  if (untitled.length > 0) {
    const paths = untitled.map(taskFilePath)
    const [atTo, atFrom] = await Promise.all([filesAt(reader, to.commit, paths), filesAt(reader, from.commit, paths)])
    for (const id of untitled) {
      const text = atTo.get(taskFilePath(id)) ?? atFrom.get(taskFilePath(id))
      const parsed = text === undefined ? null : parseTaskFile(text, id)
      if (parsed?.ok) titles.set(id, parsed.value.meta.title)
    }
  }
  // Short ids as the list at its tip knows them (a removed card keeps its full id).
  const tables = await idsP
  const dates = await datesP
  const point = (p: Side): DiffPoint => ({commit: p.commit, date: p.date ?? dates.get(p.commit) ?? '', input: p.input})
  // A prefix search or two a card (the index reads one span for each), not every id of the list.
  const short = (id: string): string | undefined => {
    if (!tables) return undefined
    const s = shortIdOf(tables, id)
    return s !== id || tables.idsWithPrefix(id, 1)[0] === id ? s : undefined
  }
  const diff = buildListDiff({list: session.list, from: point(from), to: point(to), actors}, steps, (a, b) => unifiedDiff(a, b), titles, short)
  // A card TO holds that the tip does not (what `plan diff` would add): a prefix no card at the tip and no
  // other card of the diff starts with, so it names that card once the change lands. A removed one stays in full.
  // The cards come sorted by id (core/list-diff.ts): a card's neighbours are the ones beside it.
  diff.cards.forEach((c, i) => {
    if (!tables || c.change === 'removed' || c.short_id !== c.id) return
    const local = shortIdBetween(diff.cards[i - 1]?.id, c.id, diff.cards[i + 1]?.id)
    let len = local.length
    while (len < c.id.length && tables.idsWithPrefix(c.id.slice(0, len), 1).length > 0) len++
    c.short_id = c.id.slice(0, len)
  })
  return diff
}

/** `tasks diff [FROM [TO]]`: FROM defaults to one day ago, TO to the list's tip; both WHEN forms (app/at.ts). */
export async function diff(session: Session, args: {from?: string; to?: string; actor?: string[]}): Promise<ListDiff> {
  // The tip, FROM and TO are read at once (a missing list is reported as such, before anything WHEN said).
  const [tip, from, to] = await Promise.allSettled([session.store.refreshTip(), resolveAt(session, args.from ?? '1d', 'from'), args.to === undefined ? null : resolveAt(session, args.to, 'to')])
  if (tip.status === 'rejected') throw tip.reason
  if (!tip.value) throw new EnvironmentError('not_initialised', `no task list "${session.list}" here (${session.store.ref} does not exist); run \`tasks init${session.list === 'main' ? '' : ` --list ${session.list}`}\` first`, {list: session.list, ref: session.store.ref})
  if (from.status === 'rejected') throw from.reason
  if (to.status === 'rejected') throw to.reason
  return diffPoints(session, {commit: from.value.commit, input: args.from ?? null, date: from.value.date}, {commit: to.value?.commit ?? tip.value, input: args.to ?? null, date: to.value?.date}, {actor: args.actor}, tipIds(session))
}
