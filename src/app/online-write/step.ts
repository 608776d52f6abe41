/**
 * The online write path as a state machine: `step(state, event)` takes what
 * the loop knows and the outcome of its last action and returns the next
 * action with the new state. Pure: no I/O, no clock (events carry the time),
 * no randomness (waits carry a window the driver draws from).
 *
 * One try: read the remote's list (fetch, or a tip known without one),
 * settle this command's own change if it is parked as a pending ref, pick
 * the commit the op runs on (merging unpublished local commits first), run
 * the op, and place its change: straight onto the list with a lease, folded
 * with what is pending in one atomic push, or parked as a pending ref of its
 * item for a leader's fold to carry (refstore/claim-refs.ts; docs/scale.md,
 * "Many agents on one remote"). A lost race is another try on a fresh read,
 * so the op re-validates. There is no fixed number of tries: a time budget
 * while the remote keeps moving, and a quick end when it stops moving.
 * Running out is a conflict (exit 4), not a hang.
 */
import {ConflictError} from '../../core/errors'
import {MAX_DECLINED, pushDeclined} from '../push-declined'
import {
  BUSY_LANDED,
  FOLD_PATIENCE_MS,
  LOOK_ONLY_WITHIN_MS,
  MAX_STALLED_TRIES,
  ONLINE_BUDGET_MS,
  PENDING_AFTER_LOSSES,
  PENDING_AT_ONCE,
  RECENT_MS,
  STALE_BASE_MS,
  type Window,
  backoffWindow,
  paceWindow,
  foldPatience,
  lookWindow,
  spreadFor,
} from './rules'
import type {Action, Event, Fate, Finished, OpOutcome, Parked, Pending, PushResult, Warning} from './types'

/** What the loop carries from one try to the next. */
export interface Memory<C> {
  /** The remote's name, for errors. */
  remote: string
  startedAt: number
  /** The try under way, counted since the last restart: the `tries` a result reports. */
  tries: number
  /** Reads in a row, each after a rejected try, that found the remote as the one before. */
  stalled: number
  lastSeen: string | undefined
  lastRejection: string
  /** Pushes the server declined (push-declined.ts). */
  declined: number
  /** Off once the remote refused a pending ref or an atomic push: from then on every try goes to the list's ref. */
  perItem: boolean
  /**
   * The host refuses pending refs as such (a permission, a hook on `refs/tasks-claims/*`): remembered by this clone
   * from an earlier command (then perItem is off from the start), or learnt by this one.
   */
  pendingRefused: boolean
  parked: Parked<C> | null
  /** Pending refs this command found taken when it pushed its own (another change of the item was there first). */
  collisions: number
  /** Races this command's direct pushes lost; after PENDING_AFTER_LOSSES its one-item change goes to a pending ref. */
  lost: number
  /** While parked: the list's tip at the last look, and when it was last seen to move. */
  lookedTip: string | null | undefined
  movedAt: number
  /** The longest the list was seen standing still while this change waited: how long a live leader's fold may take now. */
  longestGap: number
  lastGap: number
  /** When the try under way began: how long a try takes here now, the unit of the pace of pushes to the list's ref. */
  tryAt: number
  /** The most other actors this command saw landing changes lately (Based.othersLanded): about how many it contends with. */
  contenders: number
  /** The next try folds at once, without looking first (a leader that lost its direct pushes on a quiet list). */
  foldNow: boolean
  /** The next try folds another's pending change of its item at once, instead of waiting for it to settle (a silent leader). */
  settleNow: boolean
  /** The next try fetches the pending changes' objects with the list (a fold is due). */
  wantObjects: boolean
  /**
   * The first try may run on a tip a long-lived process (`tasks mcp`) left
   * the remote at and nobody has moved since, without fetching: the push's
   * lease on it is the compare-and-swap (ListStore.assumedRemoteTip). A
   * rejected push, or an op that fails or changes nothing there (an answer
   * no lease checked), restarts on a fetch.
   */
  mayAssume: boolean
  /** The first try may run on the last fetch's tip (STALE_BASE_MS): read once, before the first try. */
  mayStale: boolean
}

/** What this try read of the remote. */
export interface Seen {
  /** The tip is the long-lived process's assumption, not a fetch's... */
  assumed: boolean
  /** ...or the tracking ref as the last fetch left it: the change may only go pending. */
  stale: boolean
  remoteTip: string | null
  pending: Pending
  /** Whether `pending`'s commits are in this clone: a fold needs them. */
  pendingHere: boolean
}

export interface Placed extends Seen {
  localTip: string | null
}

/** ...and the commit the op runs on. */
export interface Based extends Placed {
  base: string | null
  othersLanded: number
  /** What merging unpublished local work decided, told once the result is out (not once per try). */
  warnings: Warning[]
}

/** Someone else's change of the item this try's change touches, waited on until it settles. */
export interface ItemWatch {
  item: string
  value: string | undefined
  tip: string | null
  movedLast: number
  pendingCount: number
}

export type Phase<C> =
  | {phase: 'checking-stale-base'}
  | {phase: 'looking-while-parked'; parked: Parked<C>}
  | {phase: 'learning-fate'; parked: Parked<C>}
  | {phase: 'assuming-tip'}
  | {phase: 'checking-busy'}
  | {phase: 'fetching'; stale: boolean}
  | {phase: 'withdrawing-to-give-up'; parked: Parked<C>}
  | {phase: 'learning-fate-to-give-up'; parked: Parked<C>}
  | {phase: 'reading-local-tip'; seen: Seen}
  | {phase: 'folding-parked'; view: Placed; parked: Parked<C>}
  | {phase: 'withdrawing-declined'; view: Placed}
  | {phase: 'finding-parked'; view: Placed; parked: Parked<C>}
  | {phase: 'relating'; view: Placed}
  | {phase: 'merging-local'; view: Placed; othersLanded: number}
  | {phase: 'running-op'; view: Based}
  | {phase: 'waiting-on-item'; watch: ItemWatch}
  | {phase: 'looking-at-item'; watch: ItemWatch}
  | {phase: 'settling'; view: Based}
  | {phase: 'pushing-direct'; view: Based; item: string; change: C}
  | {phase: 'parking'; view: Based; item: string; change: C; leader: boolean; busy: boolean}
  | {phase: 'noting-refusal'; view: Based; change: C}
  | {phase: 'pushing-list'; view: Based; change: C}
  | {phase: 'forgetting-assumed-tip'}
  | {phase: 'pausing'}
  | {phase: 'ended'}

export interface State<C> {
  memory: Memory<C>
  phase: Phase<C>
}

export interface Next<C> {
  state: State<C>
  action: Action<C>
}

type Of<C, K extends Event<C>['kind']> = Extract<Event<C>, {kind: K}>

function expect<C, K extends Event<C>['kind']>(event: Event<C>, kind: K): Of<C, K> {
  if (event.kind !== kind) throw new Error(`online write: a ${event.kind} event where ${kind} was due`)
  return event as Of<C, K>
}

const go = <C>(memory: Memory<C>, phase: Phase<C>, action: Action<C>): Next<C> => ({state: {memory, phase}, action})
const done = <C>(memory: Memory<C>, finished: Finished<C>): Next<C> => go(memory, {phase: 'ended'}, {kind: 'done', finished})
const fail = <C>(memory: Memory<C>, error: unknown): Next<C> => go(memory, {phase: 'ended'}, {kind: 'fail', error})
const pause = <C>(memory: Memory<C>, window: Window): Next<C> => go(memory, {phase: 'pausing'}, {kind: 'wait', ...window})

/** What the clone knew of the remote before this command (OnlineRemote.pendingRefused). */
export interface Known {
  /** The remote refused a pending ref lately: every change goes to the list's ref from the start. */
  pendingRefused?: boolean
}

/** The first step: before the first try, ask whether the clone's last fetch found the list busy (STALE_BASE_MS). */
export function begin<C>(remote: string, at: number, known: Known = {}): Next<C> {
  const refused = known.pendingRefused === true
  const memory: Memory<C> = {
    remote,
    startedAt: at,
    tries: 1,
    stalled: 0,
    lastSeen: undefined,
    lastRejection: '',
    declined: 0,
    perItem: !refused,
    pendingRefused: refused,
    parked: null,
    collisions: 0,
    lost: 0,
    lookedTip: undefined,
    tryAt: at,
    contenders: 0,
    movedAt: 0,
    longestGap: 0,
    lastGap: 0,
    foldNow: false,
    settleNow: false,
    wantObjects: false,
    mayAssume: true,
    mayStale: false,
  }
  return go(memory, {phase: 'checking-stale-base'}, {kind: 'check-fetch-note', withinMs: STALE_BASE_MS, pending: PENDING_AT_ONCE})
}

/** The next action, given the state and the outcome of the last one. */
export function step<C>(state: State<C>, event: Event<C>): Next<C> {
  const m = state.memory
  const p = state.phase
  switch (p.phase) {
    case 'checking-stale-base':
      return startTry({...m, mayStale: m.perItem && expect(event, 'fetch-note').busy}, event.at)
    case 'looking-while-parked':
      return afterParkedLook(m, p.parked, expect(event, 'looked').look, event.at)
    case 'learning-fate':
      return afterFate(m, p.parked, expect(event, 'fate'), () => nextTry({...m, parked: null}, event.at))
    case 'assuming-tip': {
      const tip = expect(event, 'assumed').tip
      if (tip === null) return fetchFresh(m)
      return afterRead({...m, mayStale: false, wantObjects: false}, {assumed: true, stale: false, remoteTip: tip, pending: new Map(), pendingHere: true}, event.at)
    }
    case 'checking-busy':
      return go(m, {phase: 'fetching', stale: false}, {kind: 'fetch', how: expect(event, 'fetch-note').busy ? 'list-and-look' : 'list', claims: m.perItem})
    case 'fetching': {
      const {tip, pending, pendingHere} = expect(event, 'fetched')
      return afterRead(m, {assumed: false, stale: p.stale, remoteTip: tip, pending, pendingHere}, event.at)
    }
    case 'withdrawing-to-give-up':
      if (expect(event, 'withdrawn').ok) return fail(m, exhausted(m, event.at))
      // Too late to take it back: someone folded (or dropped) it. Say what happened to it.
      return go(m, {phase: 'learning-fate-to-give-up', parked: p.parked}, {kind: 'learn-fate', parked: p.parked, seen: null})
    case 'learning-fate-to-give-up':
      return afterFate(m, p.parked, expect(event, 'fate'), () => fail(m, exhausted(m, event.at)))
    case 'reading-local-tip':
      return afterLocalTip(m, {...p.seen, localTip: expect(event, 'local-tip').tip}, event.at)
    case 'folding-parked':
      return afterParkedFold(m, p.view, p.parked, expect(event, 'folded'), event.at)
    case 'withdrawing-declined':
      // Gone already (folded or dropped): found out next round.
      if (!expect(event, 'withdrawn').ok) return nextTry(m, event.at)
      return chooseBase({...m, parked: null}, p.view, event.at)
    case 'finding-parked': {
      const landed = expect(event, 'landed').landed
      if (landed) return done(m, published(m, p.parked.change, landed, p.view.remoteTip!, p.view.localTip, false, []))
      return chooseBase({...m, parked: null}, p.view, event.at)
    }
    case 'relating':
      return afterRelate(m, p.view, expect(event, 'related'))
    case 'merging-local': {
      const merged = expect(event, 'merged')
      return runOp(m, {...p.view, base: merged.commit, othersLanded: p.othersLanded, warnings: merged.warnings})
    }
    case 'running-op':
      return afterOp(m, p.view, expect(event, 'op-ran').outcome, event.at)
    case 'waiting-on-item':
      expect(event, 'waited')
      return go(m, {phase: 'looking-at-item', watch: p.watch}, {kind: 'look'})
    case 'looking-at-item':
      return afterItemLook(m, p.watch, expect(event, 'looked').look, event.at)
    case 'settling':
      return afterSettle(m, expect(event, 'folded').pushed, event.at)
    case 'pushing-direct':
      return afterDirectPush(m, p.view, p.item, p.change, expect(event, 'folded'), event.at)
    case 'parking':
      return afterParking(m, p, expect(event, 'pushed'), event.at)
    case 'noting-refusal':
      expect(event, 'noted')
      // The change was computed on the fetched tip: the list's ref takes it now, with the same lease a direct push
      // has. One computed on a stale base runs again on a fetch.
      if (p.view.stale || !p.view.remoteTip) return restart(m, event.at)
      return go(m, {phase: 'pushing-list', view: p.view, change: p.change}, {kind: 'push-list', change: p.change, expected: p.view.remoteTip})
    case 'pushing-list':
      return afterListPush(m, p.view, p.change, expect(event, 'pushed'), event.at)
    case 'forgetting-assumed-tip':
      expect(event, 'forgot')
      return restart(m, event.at)
    case 'pausing':
      expect(event, 'waited')
      return nextTry(m, event.at)
    case 'ended':
      throw new Error('online write: a step after the end')
  }
}

/** Another try. */
function nextTry<C>(m: Memory<C>, at: number): Next<C> {
  return startTry({...m, tries: m.tries + 1}, at)
}

/** Another try that does not count: the last one ran on a tip no fetch confirmed, or must fetch the pending objects. */
function restart<C>(m: Memory<C>, at: number): Next<C> {
  return startTry({...m, tries: 1}, at)
}

function startTry<C>(m: Memory<C>, at: number): Next<C> {
  const skipLook = m.foldNow
  m = {...m, foldNow: false, tryAt: at}
  if (m.parked && !skipLook && at - m.startedAt <= ONLINE_BUDGET_MS) {
    // Waiting for a fold: look first (no objects).
    return go(m, {phase: 'looking-while-parked', parked: m.parked}, {kind: 'look'})
  }
  return chooseRead(m)
}

/**
 * A look while parked. The leader (the smallest pending id) folds; the
 * others fold only once the list has stood still for their patience (a
 * leader may have died), else they wait and look again. A change no longer
 * on its pending ref was folded or dropped by someone else.
 */
function afterParkedLook<C>(m: Memory<C>, parked: Parked<C>, look: {tip: string | null; pending: Pending} | null, at: number): Next<C> {
  if (!look) return chooseRead(m)
  if (look.tip !== m.lookedTip) {
    const lastGap = at - Math.max(m.movedAt, parked.at)
    m = {...m, lastGap, longestGap: Math.max(m.longestGap, lastGap), lookedTip: look.tip, movedAt: at}
  }
  const ahead = [...look.pending.keys()].filter((id) => id < parked.id).length
  const idle = at - Math.max(m.movedAt, parked.at) >= foldPatience(m.longestGap, ahead)
  if (look.pending.get(parked.id) !== parked.commit) {
    // Finding out needs the list only: the objects of the changes still pending are for whoever folds them next.
    return go(m, {phase: 'learning-fate', parked}, {kind: 'learn-fate', parked, seen: look.pending})
  }
  if (!idle && ahead > 0) return pause(m, lookWindow(look.pending.size, m.lastGap))
  return chooseRead(m)
}

/** What became of a parked change: its landing is the command's success; `otherwise` says what follows when it is not on the list. */
function afterFate<C>(m: Memory<C>, parked: Parked<C>, fate: Fate, otherwise: () => Next<C>): Next<C> {
  if (fate.landed && fate.tip) return done(m, published(m, parked.change, fate.landed, fate.tip, fate.localTip, false, []))
  return otherwise()
}

/** How this try reads the remote: a tip assumed without a fetch, the last fetch's tip, or a fetch. */
function chooseRead<C>(m: Memory<C>): Next<C> {
  // Not after a refusal learnt by this command (perItem off, mayAssume already spent); a remote known to refuse
  // pending refs is no reason not to assume: nothing can be pending there for this clone to fold.
  const assume = m.mayAssume && m.tries === 1 && (m.perItem || m.pendingRefused) && !m.parked
  m = {...m, mayAssume: false}
  if (assume) return go(m, {phase: 'assuming-tip'}, {kind: 'assume-tip'})
  return fetchFresh(m)
}

function fetchFresh<C>(m: Memory<C>): Next<C> {
  const stale = m.mayStale && m.tries === 1 && !m.parked
  const lookOnly = m.perItem && !stale && !m.parked && !m.wantObjects
  m = {...m, mayStale: false, wantObjects: false}
  if (stale) return go(m, {phase: 'fetching', stale: true}, {kind: 'fetch', how: 'tracking', claims: true})
  // On a busy list a new change fetches the list alone and learns what is pending from a look made alongside
  // (LOOK_ONLY_WITHIN_MS): the pending changes' objects are for whoever folds them, and most changes only wait.
  if (lookOnly) return go(m, {phase: 'checking-busy'}, {kind: 'check-fetch-note', withinMs: LOOK_ONLY_WITHIN_MS, pending: 1})
  return go(m, {phase: 'fetching', stale: false}, {kind: 'fetch', how: 'list', claims: m.perItem})
}

/** The remote as this try read it: count a round nobody won, give up when due, else read the local tip. */
function afterRead<C>(m: Memory<C>, seen: Seen, at: number): Next<C> {
  // A rejection after which neither the list nor its pending changes had moved means nobody won that round.
  const key = `${seen.remoteTip} ${[...seen.pending].sort().join(',')}`
  const stalled = m.tries > 1 ? (key === m.lastSeen ? m.stalled + 1 : 0) : m.stalled
  m = {...m, stalled, lastSeen: key}
  if (stalled >= MAX_STALLED_TRIES || at - m.startedAt > ONLINE_BUDGET_MS) {
    // A parked change is taken back first: it must not land after the command said it failed.
    if (m.parked) return go(m, {phase: 'withdrawing-to-give-up', parked: m.parked}, {kind: 'withdraw', parked: m.parked})
    return fail(m, exhausted(m, at))
  }
  return go(m, {phase: 'reading-local-tip', seen}, {kind: 'read-local-tip'})
}

function exhausted<C>(m: Memory<C>, at: number): ConflictError {
  const why = m.stalled >= MAX_STALLED_TRIES ? `${m.stalled} pushes in a row were rejected while the remote did not change` : `it kept losing races for ${Math.round((at - m.startedAt) / 1000)} s`
  return new ConflictError('cas_exhausted', `the remote kept rejecting the push: ${why} (last: ${m.lastRejection || 'rejected'}); gave up after ${m.tries - 1} tries. Try again.`, {
    tries: m.tries - 1,
    remote: m.remote,
    last_rejection: m.lastRejection,
  })
}

function afterLocalTip<C>(m: Memory<C>, view: Placed, at: number): Next<C> {
  // A stale base is only good while the local list is the last fetch's tip; else fetch as usual.
  if (view.stale && (!view.remoteTip || view.localTip !== view.remoteTip)) return restart(m, at)
  const parked = m.parked
  if (parked && view.remoteTip) {
    // Still pending: fold it (with everyone else's) into the list.
    if (view.pending.get(parked.id) === parked.commit) return go(m, {phase: 'folding-parked', view, parked}, {kind: 'fold', tip: view.remoteTip, pending: view.pending, own: null})
    // Else someone else folded it, or dropped it because its item moved on.
    return go(m, {phase: 'finding-parked', view, parked}, {kind: 'find-landed', tip: view.remoteTip, parked})
  }
  return chooseBase(m, view, at)
}

function afterParkedFold<C>(m: Memory<C>, view: Placed, parked: Parked<C>, fold: {pushed: PushResult; tip: string; folded: ReadonlyMap<string, string>}, at: number): Next<C> {
  if (fold.pushed.ok) {
    const landed = fold.folded.get(parked.id)
    if (landed) return done(m, published(m, parked.change, landed, fold.tip, view.localTip, false, []))
    // Dropped: its item changed on the list meanwhile; run the op again on the new tip.
    return nextTry({...m, parked: null}, at)
  }
  m = {...m, lastRejection: fold.pushed.detail}
  if (fold.pushed.reason === 'declined') return go({...m, perItem: false}, {phase: 'withdrawing-declined', view}, {kind: 'withdraw', parked})
  return pause(m, backoffWindow(m.tries, at - m.startedAt))
}

/**
 * The commit the op runs on: the remote's tip, or the local tip when it
 * has unpublished commits on top, or their merge when the two diverged.
 */
function chooseBase<C>(m: Memory<C>, view: Placed, at: number): Next<C> {
  const {remoteTip, localTip} = view
  // Neither side has the list: base null, and loading it says not_initialised.
  if (!remoteTip) return runOp(m, {...view, base: localTip, othersLanded: 0, warnings: []})
  if (!localTip || localTip === remoteTip) return runOp(m, {...view, base: remoteTip, othersLanded: 0, warnings: []})
  // The walk that relates the tips also counts who else landed changes lately (anyone's, not only since this
  // clone last published).
  return go(m, {phase: 'relating', view}, {kind: 'relate', remoteTip, localTip, recentSince: Math.floor((at - RECENT_MS) / 1000)})
}

function afterRelate<C>(m: Memory<C>, view: Placed, related: {relation: string; mergeBase: string | null; othersLanded: number}): Next<C> {
  const {remoteTip, localTip} = view as Placed & {remoteTip: string; localTip: string}
  const based = {othersLanded: related.othersLanded, warnings: []}
  if (related.relation === 'behind' || related.relation === 'same') return runOp(m, {...view, ...based, base: remoteTip})
  if (related.relation === 'ahead') return runOp(m, {...view, ...based, base: localTip})
  // Unpublished local commits diverged from the remote: merge them first, and say what the merge decided.
  return go(m, {phase: 'merging-local', view, othersLanded: related.othersLanded}, {kind: 'merge-local', remoteTip, localTip, mergeBase: related.mergeBase})
}

/** Whether the op runs on the remote's tip itself with pending refs in use: only then can a change go per item. */
function onTip(m: Memory<unknown>, view: Based): view is Based & {remoteTip: string} {
  return m.perItem && view.remoteTip !== null && view.base === view.remoteTip
}

function runOp<C>(m: Memory<C>, view: Based): Next<C> {
  m = {...m, contenders: Math.max(m.contenders, view.othersLanded)}
  // Contended (a lost race, others' changes pending, or others landing changes lately: about that many agents are
  // picking now): `next` skips pending items and spreads its pick over the ready ones.
  const contended = onTip(m, view) && (m.tries > 1 || view.pending.size > 0 || view.othersLanded >= BUSY_LANDED)
  const contention = contended ? {busy: new Set(view.pending.keys()), spread: spreadFor(view.pending.size, view.othersLanded, m.collisions, m.tries)} : null
  return go(m, {phase: 'running-op', view}, {kind: 'run-op', base: view.base, contention})
}

/** Where the op's change goes: nowhere (unchanged), the list's ref, a fold, or the item's pending ref. */
function afterOp<C>(m: Memory<C>, view: Based, outcome: OpOutcome<C>, at: number): Next<C> {
  // An answer on a tip no fetch confirmed (assumed or stale) is not final: decide on the remote's own.
  const unconfirmed = view.assumed || view.stale
  if (outcome.kind === 'refused') return unconfirmed ? restart(m, at) : fail(m, outcome.error)
  if (outcome.kind === 'unchanged') return unconfirmed ? restart(m, at) : done(m, {kind: 'unchanged', change: outcome.change, tries: m.tries, warnings: view.warnings})
  const {change} = outcome
  const item = onTip(m, view) ? outcome.item : null
  const {pending} = view
  // On a stale base only a change of an item this actor holds may go on (to its pending ref); anything else fetches.
  if (view.stale && (!item || pending.has(item) || !outcome.holdsItem)) return restart(m, at)
  if (onTip(m, view) && item && pending.has(item) && pending.size >= PENDING_AT_ONCE && !m.settleNow) {
    // Someone else's change of this item waits in a busy line (`next` hands out a pending item only when nothing
    // else is ready): the leader's fold settles it, and a fold of it by this command would race that one. Look
    // until it is gone, then run the op again; if the list stands still for the fold patience meanwhile (a leader
    // may have died), fold it on the next try.
    const watch = {item, value: pending.get(item), tip: view.remoteTip, movedLast: at, pendingCount: pending.size}
    return go(m, {phase: 'waiting-on-item', watch}, {kind: 'wait', ...lookWindow(pending.size, m.lastGap)})
  }
  m = {...m, settleNow: false}
  if (onTip(m, view) && (item ? pending.has(item) : pending.size > 0)) {
    // Settle what is pending first (fold or drop it), then run the op on the result: someone else's change of
    // this item, or, for a change that cannot carry pending ones, all of them, so none waits on this writer.
    if (!view.pendingHere) return fetchObjects(m, at)
    return go(m, {phase: 'settling', view}, {kind: 'fold', tip: view.remoteTip, pending, own: null})
  }
  if (item && view.remoteTip) return placeItem(m, view as Based & {remoteTip: string}, item, change, at)
  return go(m, {phase: 'pushing-list', view, change}, {kind: 'push-list', change, expected: view.remoteTip})
}

/** A fold is due but the pending changes' objects are not here: fetch them with the list and run the op again. */
function fetchObjects<C>(m: Memory<C>, at: number): Next<C> {
  return restart({...m, wantObjects: true}, at)
}

/**
 * A one-item change: pushed directly while the list is quiet (carrying
 * whatever is pending, in one push), else, or after PENDING_AFTER_LOSSES
 * lost races, parked as a pending ref.
 */
function placeItem<C>(m: Memory<C>, view: Based & {remoteTip: string}, item: string, change: C, at: number): Next<C> {
  const {pending} = view
  const leader = ![...pending.keys()].some((id) => id < item)
  const busy = pending.size >= PENDING_AT_ONCE || view.othersLanded >= BUSY_LANDED || (m.lost > 0 && pending.size > 0)
  if (!view.stale && m.lost < PENDING_AFTER_LOSSES && !busy) {
    // The direct push carries what is pending: it needs their objects.
    if (!view.pendingHere && pending.size > 0) return fetchObjects(m, at)
    return go(m, {phase: 'pushing-direct', view, item, change}, {kind: 'fold', tip: view.remoteTip, pending, own: {id: item, change}})
  }
  return go(m, {phase: 'parking', view, item, change, leader, busy}, {kind: 'push-pending', id: item, change})
}

function afterSettle<C>(m: Memory<C>, pushed: PushResult, at: number): Next<C> {
  if (pushed.ok) return nextTry(m, at)
  m = {...m, lastRejection: pushed.detail, perItem: pushed.reason === 'declined' ? false : m.perItem}
  return pause(m, backoffWindow(m.tries, at - m.startedAt))
}

function afterDirectPush<C>(m: Memory<C>, view: Based, item: string, change: C, fold: {pushed: PushResult; tip: string; folded: ReadonlyMap<string, string>}, at: number): Next<C> {
  const landed = fold.folded.get(item)
  if (fold.pushed.ok && landed) return done(m, published(m, change, landed, fold.tip, view.localTip, true, view.warnings))
  if (fold.pushed.ok) return nextTry(m, at)
  if (view.assumed && fold.pushed.reason === 'stale') return forgetAssumedTip(m)
  m = {...m, lastRejection: fold.pushed.detail}
  if (fold.pushed.reason === 'declined') {
    m = {...m, perItem: false, declined: m.declined + 1}
    if (m.declined >= MAX_DECLINED) return fail(m, pushDeclined(m.remote, m.declined, fold.pushed.detail, m.tries))
  } else {
    m = {...m, lost: m.lost + 1} // contended: after PENDING_AFTER_LOSSES this command's change waits as a pending ref
  }
  return pause(m, backoffWindow(m.tries, at - m.startedAt))
}

function afterParking<C>(m: Memory<C>, p: Extract<Phase<C>, {phase: 'parking'}>, pushed: {pushed: PushResult; commit: string}, at: number): Next<C> {
  const {view, item, change} = p
  if (pushed.pushed.ok) {
    const parked: Parked<C> = {id: item, commit: pushed.commit, base: view.remoteTip!, at, change}
    m = {...m, parked, lookedTip: view.remoteTip, movedAt: at}
    // A leader that lost its direct pushes on a quiet list folds at once. On a busy one it looks first: the
    // leader it took over from may have a fold on its way, which a fold now would race. One that opened the batch
    // (nothing else was pending) first lets others join it, so its fold carries more; the others let the
    // leader's fold carry theirs.
    if (p.leader && view.pending.size > 0 && !p.busy) return nextTry({...m, foldNow: true}, at)
    return pause(m, lookWindow(view.pending.size + 1, 0))
  }
  m = {...m, lastRejection: pushed.pushed.detail}
  if (!pushed.pushed.ok && pushed.pushed.hostRefused) {
    // The host refuses the pending refs themselves: remember it for this clone's next commands, say so once, and
    // push this change to the list's ref at once (it was computed on the remote's tip; no reason to wait).
    m = {...m, perItem: false, pendingRefused: true}
    return go(m, {phase: 'noting-refusal', view, change}, {kind: 'note-pending-refused', detail: pushed.pushed.detail})
  }
  // Declined: the server refuses pending refs. Else the item's pending ref was taken: try again after a collision.
  m = pushed.pushed.reason === 'declined' ? {...m, perItem: false} : {...m, collisions: m.collisions + 1}
  return pause(m, backoffWindow(m.tries, at - m.startedAt))
}

function afterListPush<C>(m: Memory<C>, view: Based, change: C, pushed: {pushed: PushResult; commit: string}, at: number): Next<C> {
  const result = pushed.pushed
  if (!result.ok && view.assumed && result.reason === 'stale') return forgetAssumedTip(m)
  if (result.ok) return done(m, published(m, change, pushed.commit, pushed.commit, view.localTip, true, view.warnings))
  m = {...m, lastRejection: result.detail}
  if (result.reason === 'declined') {
    m = {...m, declined: m.declined + 1}
    if (m.declined >= MAX_DECLINED) return fail(m, pushDeclined(m.remote, m.declined, result.detail, m.tries))
    return pause(m, backoffWindow(m.tries, at - m.startedAt))
  }
  // Lost to another push of the list. Where nothing can wait as a pending change, every contender's next try is
  // another push of this one ref: pace them to about one per round.
  if (!m.perItem) return pause(m, paceWindow(at - m.tryAt, m.contenders, at - m.startedAt))
  return pause(m, backoffWindow(m.tries, at - m.startedAt))
}

/** The assumed tip was not the remote's: fetch and run the op again, as if this try had not been made. */
function forgetAssumedTip<C>(m: Memory<C>): Next<C> {
  return go(m, {phase: 'forgetting-assumed-tip'}, {kind: 'forget-assumed-tip'})
}

function afterItemLook<C>(m: Memory<C>, watch: ItemWatch, look: {tip: string | null; pending: Pending} | null, at: number): Next<C> {
  if (!look) return nextTry(m, at)
  if (look.tip !== watch.tip) watch = {...watch, tip: look.tip, movedLast: at}
  if (look.pending.get(watch.item) !== watch.value) return nextTry(m, at)
  if (at - watch.movedLast >= FOLD_PATIENCE_MS || at - m.startedAt > ONLINE_BUDGET_MS) return nextTry({...m, settleNow: true}, at)
  return go(m, {phase: 'waiting-on-item', watch}, {kind: 'wait', ...lookWindow(watch.pendingCount, m.lastGap)})
}

function published<C>(m: Memory<C>, change: C, landed: string, tip: string, localTip: string | null, ownPush: boolean, warnings: Warning[]): Finished<C> {
  return {kind: 'published', change, landed, tip, localTip, ownPush, tries: m.tries, warnings}
}
