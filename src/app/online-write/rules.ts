/**
 * The numbers and windows of the online write path, with why each is what
 * it is. Pure; the measurements behind them are in docs/scale.md, "Many
 * agents on one remote".
 */

/**
 * Online, a lost push is not counted against a fixed number of tries: with
 * many agents on one remote a fair agent can lose races for minutes while
 * the list makes progress, and a fixed count turned that into failures. It
 * keeps trying while the remote keeps moving, for up to this long in all...
 */
export const ONLINE_BUDGET_MS = 30 * 60_000
/**
 * ...and gives up at once when this many reads in a row, each after a
 * rejected try, found neither the list nor its pending changes moved:
 * nobody is winning (a stuck remote, a lock left on the server).
 */
export const MAX_STALLED_TRIES = 12
/**
 * A one-item change is pushed to the list directly (carrying whatever is
 * pending) until it has lost this many races; then it waits as a pending
 * ref. With few agents the second try usually wins, and a pending ref costs
 * two pushes; with many, waiting lets one push carry everyone's change.
 */
export const PENDING_AFTER_LOSSES = 2
/**
 * ...or at once when the list is busy: at least this many changes of others
 * pending, or changes of BUSY_LANDED other actors on the list in the last
 * RECENT_MS, or a race lost while others wait. A direct push would then
 * most likely lose (to the leader's fold, or to another direct push), and a
 * lost try (a fetch, the op, a push) is pure waste. That holds for the
 * leader-to-be (no older pending id) too: its direct push carrying every
 * pending change races the live leader's fold, so it waits in line like
 * the rest, and folds at its first look if it still leads.
 */
export const PENDING_AT_ONCE = 2
export const BUSY_LANDED = 3
/**
 * How far back the list's changes count as news of who is at work. Anyone's
 * changes count, not only those since this clone last published: with many
 * agents a clone's last publish is often older than this, and right after a
 * big fold, with nothing pending, a change would look uncontended when it is not.
 */
export const RECENT_MS = 60_000
/**
 * A pending change whose list has not moved for this long (nobody folding:
 * a leader may have died) is folded by its own command even when it is not
 * the leader. Long, because a waiter that runs out of patience while a live
 * leader folds makes a fold that loses, and a dead leader's change is folded
 * anyway by the next leader-to-be or list writer that comes along.
 */
export const FOLD_PATIENCE_MS = 8000
/** ...or three times the longest the list stood still while it waited (a busy machine folds slower), up to this. */
export const MAX_FOLD_PATIENCE_MS = 30_000
/**
 * A change of an item the actor holds goes pending on the list as this
 * clone last saw it, without a fetch first, when that look was at most this
 * long ago and found at least PENDING_AT_ONCE changes pending (the list is
 * busy: the change would wait as a pending ref anyway). The fold checks the
 * item's directory against what the change was computed on, so a stale base
 * is safe for the item. In a drain it is the `done` after a `next` whose
 * last fetch is moments old: one fetch saved per item.
 */
export const STALE_BASE_MS = 5000
/**
 * When the clone's last fetch of the list, at most this long ago, found a
 * change pending, a new change fetches the list alone and looks at the
 * pending refs (`git ls-remote`) alongside, instead of fetching the pending
 * changes' objects too: on a busy list it will most likely wait as a
 * pending change itself, only a fold needs the others' objects, and a fetch
 * with them costs about twice the list's alone. A fold that turns out due
 * fetches them and runs the op again.
 */
export const LOOK_ONLY_WITHIN_MS = 60_000
/**
 * The longest a waiter sleeps between looks. Each look is a process forked
 * from node and a `git ls-remote`, a large share of a drain's CPU when
 * frequent; at this interval a waiter still sees each move of a busy list
 * a few times.
 */
export const MAX_LOOK_MS = 3000
/** The longest pace window (paceWindow): over ssh a try takes about 0.65 s, and eight contenders would make 9 s. */
export const MAX_PACE_MS = 3000
/** The most ready items `next` spreads its pick over (OpContext.spread). */
export const MAX_SPREAD = 64

/** A jittered sleep: uniformly drawn in [minMs, maxMs). */
export interface Window {
  minMs: number
  maxMs: number
}

/**
 * How long a waiting change sleeps between looks: longer as more changes
 * are pending, since the leader's next fold carries them all and takes
 * longer the busier the remote is, and about as long as the list last took
 * to move (a busy machine folds slower; a shorter sleep makes looks that
 * can only see nothing new). Jittered by half either way.
 */
export function lookWindow(pendingCount: number, gapMs: number): Window {
  const window = Math.min(MAX_LOOK_MS, Math.max(150 + 50 * pendingCount, gapMs * 0.9))
  return {minMs: window * 0.5, maxMs: window * 1.5}
}

/**
 * Wait before another online try: uniformly jittered (agents that lost
 * together do not retry together) in a window that doubles from 50 ms and
 * stops at one second, so past the ramp every contender draws from the same
 * window (uncapped exponential backoff starves exactly the agents that
 * waited longest). On top of that the window narrows with the time already
 * spent losing, down to a fifth after two minutes: the
 * longest-waiting agents try most often, which shortens the tail of who
 * waits how long.
 */
export function backoffWindow(tries: number, waitedMs: number): Window {
  const window = Math.min(1000, 50 * 2 ** Math.min(tries - 1, 5)) * Math.max(0.2, 1 - waitedMs / 150_000)
  return {minMs: 0, maxMs: window}
}

/**
 * Wait before another try after losing a push of the list's ref where no
 * change can wait as a pending ref (the host refuses them). There every
 * try of every contender is a push of that one ref and one per round
 * lands: a lost try (a fetch, the op, a push) is pure waste, and on a
 * machine the contenders share it also slows the try that wins. So the
 * window is two tries long per contender (the other actors seen landing
 * changes lately, at least one: this push lost to someone), each try as
 * long as this one took: with each contender alternating a try and a wait
 * of half the window on average, about one of them tries per round.
 * Narrowed with the time already spent losing, as backoffWindow is. The
 * measurements are in docs/scale.md, "A host that refuses the pending refs".
 */
export function paceWindow(tryMs: number, contenders: number, waitedMs: number): Window {
  const window = Math.min(MAX_PACE_MS, Math.max(50, 2 * tryMs * Math.max(1, contenders))) * Math.max(0.2, 1 - waitedMs / 150_000)
  return {minMs: 0, maxMs: window}
}

/**
 * The patience of a waiter before it folds for a silent leader: the fold
 * patience (or three times the longest pause of the list seen, up to
 * MAX_FOLD_PATIENCE_MS), times its place in the line. Waiters take over one
 * at a time (the next in line after one patience, the one after it after
 * two...): when all of them did at once, all folds but one lost their race.
 */
export function foldPatience(longestGapMs: number, ahead: number): number {
  return Math.max(FOLD_PATIENCE_MS, Math.min(3 * longestGapMs, MAX_FOLD_PATIENCE_MS)) * Math.max(1, ahead)
}

/**
 * How many equally good ready items `next` spreads over on a contended
 * list: at least one per change pending and per other actor at work, and
 * doubling with each try and each collision on a pending ref.
 */
export function spreadFor(pendingCount: number, othersLanded: number, collisions: number, tries: number): number {
  return Math.min(MAX_SPREAD, Math.max(pendingCount + 1, othersLanded + 1, 2 ** Math.min(collisions + tries, 6)))
}
