/**
 * The vocabulary of the online write path (docs/architecture.md, "A
 * mutation"): what the loop asks the world to do (Action), what comes back
 * (Event), what it remembers between steps (State), and the narrow interface
 * through which a driver performs the actions (OnlineRemote). The rules that
 * turn one into the other are in step.ts; nothing here does any I/O.
 *
 * `C` is the computed change: whatever the op produced on one try (its
 * plan, the snapshot it ran on, the commit once written). The step function
 * never looks inside it; it only carries it from the op to a push, and from
 * a push to the result.
 */

/** The remote's pending per-item changes: task id → commit (refstore/claim-refs.ts). */
export type Pending = ReadonlyMap<string, string>

/**
 * A push with a lease: `stale` lost a race (run the op again); `declined` is the server refusing the update itself,
 * `hostRefused` when what it refused was a pending ref as such (a permission or hook on `refs/tasks-claims/*`, not the
 * guard's judgement of the change): remembered for the remote, so that later commands go straight to the list's ref.
 */
export type PushResult = {ok: true} | {ok: false; reason: 'stale' | 'declined'; detail: string; hostRefused?: boolean}

/** A warning to print once the result is out (what merging unpublished local work decided). */
export interface Warning {
  kind: string
  message: string
  /** Whatever else the merge said (the task, the path): kept in `--json` output. */
  [key: string]: unknown
}

/** One `git ls-remote` of the list and its pending refs, without objects. */
export interface Look {
  tip: string | null
  pending: Pending
}

/**
 * Where a fetch reads the list from:
 * - `tracking`: no fetch; the tracking ref and pending copies as the last fetch left them (a stale base);
 * - `list-and-look`: the list's ref alone, with a look at the pending refs beside it (their objects stay
 *   on the remote); when the look fails, as `list` with the pending refs;
 * - `list`: the list's ref, with the pending refs and their objects when `claims`.
 */
export type FetchHow = 'tracking' | 'list-and-look' | 'list'

export interface Fetched {
  tip: string | null
  pending: Pending
  /** Whether the pending changes' commits are in this clone (a fold needs them). */
  pendingHere: boolean
}

/** How the local list's tip stands to the remote's (the walk of refstore's recentLine, else `git merge-base`). */
export interface Related {
  relation: 'same' | 'behind' | 'ahead' | 'diverged'
  /** The merge base of diverged tips (null: unrelated histories). */
  mergeBase: string | null
  /** Other actors with a change on the list lately (RECENT_MS): about how many agents are at work. */
  othersLanded: number
}

export interface Merged {
  commit: string
  warnings: Warning[]
}

/** Hints for an op run on a contended list (OpContext.busy and .spread). */
export interface Contention {
  busy: ReadonlySet<string>
  spread: number
}

export type OpOutcome<C> =
  /** The op (or its prepare step) threw: a refusal such as already_claimed, or a bad argument. */
  | {kind: 'refused'; error: unknown}
  | {kind: 'unchanged'; change: C}
  /**
   * `item`: the one task the change is confined to (its task.md and comments, besides the inbox records
   * and the actor's last_seen), which can wait on the remote as a pending ref; null for anything else.
   * `holdsItem`: the actor owns that item on the snapshot the op ran on.
   */
  | {kind: 'changed'; change: C; item: string | null; holdsItem: boolean}

export interface Folded {
  pushed: PushResult
  /** The fold's tip (the list's tip when nothing was folded). */
  tip: string
  /** Task id → the commit that carries its change on the list. */
  folded: ReadonlyMap<string, string>
}

/** A push of the computed change (to the list, or to its pending ref), with the commit written for it. */
export interface Pushed {
  pushed: PushResult
  commit: string
}

/** This command's change while it waits on the remote as a pending ref. */
export interface Parked<C> {
  id: string
  commit: string
  /** The list's tip it was computed on. */
  base: string
  /** When it was pushed. */
  at: number
  change: C
}

/** What became of a parked change, learnt by fetching the list alone. */
export interface Fate {
  tip: string | null
  /** Its commit on the list; null when it is not there (dropped). */
  landed: string | null
  /** The local tip, read only when it landed. */
  localTip: string | null
}

/** How the loop ended well. */
export type Finished<C> =
  | {kind: 'unchanged'; change: C; tries: number; warnings: Warning[]}
  | {
      kind: 'published'
      change: C
      /** The commit that carries the change on the list. */
      landed: string
      /** The list's tip after it (where the local ref follows). */
      tip: string
      localTip: string | null
      /** This command's own push put the list at `tip` (not a fold someone else pushed). */
      ownPush: boolean
      tries: number
      warnings: Warning[]
    }

export type Action<C> =
  | {kind: 'check-fetch-note'; withinMs: number; pending: number}
  | {kind: 'assume-tip'}
  | {kind: 'fetch'; how: FetchHow; claims: boolean}
  | {kind: 'look'}
  | {kind: 'read-local-tip'}
  | {kind: 'relate'; remoteTip: string; localTip: string; recentSince: number}
  | {kind: 'merge-local'; remoteTip: string; localTip: string; mergeBase: string | null}
  /** `base` null: there is no list on either side (loading it raises not_initialised). */
  | {kind: 'run-op'; base: string | null; contention: Contention | null}
  | {kind: 'fold'; tip: string; pending: Pending; own: {id: string; change: C} | null}
  | {kind: 'push-pending'; id: string; change: C}
  | {kind: 'push-list'; change: C; expected: string | null}
  | {kind: 'withdraw'; parked: Parked<C>}
  /** `seen`: the pending refs of the look that found it gone (noted, and copies of others gone dropped). */
  | {kind: 'learn-fate'; parked: Parked<C>; seen: Pending | null}
  | {kind: 'find-landed'; tip: string; parked: Parked<C>}
  | {kind: 'forget-assumed-tip'}
  /** The remote refused a pending ref as such: remember it (for this clone, for a while) and say so once. */
  | {kind: 'note-pending-refused'; detail: string}
  /** Sleep a uniformly drawn time in [minMs, maxMs). */
  | {kind: 'wait'; minMs: number; maxMs: number}
  | {kind: 'done'; finished: Finished<C>}
  | {kind: 'fail'; error: unknown}

/** The outcome of the last action; `at` is the clock once it was done. */
export type Event<C> = {at: number} & (
  | {kind: 'fetch-note'; busy: boolean}
  | {kind: 'assumed'; tip: string | null}
  | ({kind: 'fetched'} & Fetched)
  | {kind: 'looked'; look: Look | null}
  | {kind: 'local-tip'; tip: string | null}
  | ({kind: 'related'} & Related)
  | ({kind: 'merged'} & Merged)
  | {kind: 'op-ran'; outcome: OpOutcome<C>}
  | ({kind: 'folded'} & Folded)
  | ({kind: 'pushed'} & Pushed)
  | {kind: 'withdrawn'; ok: boolean}
  | ({kind: 'fate'} & Fate)
  | {kind: 'landed'; landed: string | null}
  | {kind: 'forgot'}
  | {kind: 'noted'}
  | {kind: 'waited'}
)

/**
 * Everything the online loop needs from the world, one method per kind of
 * action (the driver, drive.ts, maps one to the other). The git-backed one
 * is git-remote.ts; tests drive the loop with a fake.
 */
export interface OnlineRemote<C> {
  now(): number
  sleep(ms: number): Promise<void>
  /** Uniform in [0, 1). */
  random(): number
  /** Whether this clone's last fetch of the list was at most `withinMs` ago and found at least `pending` changes pending. */
  fetchedBusy(withinMs: number, pending: number): boolean
  /** A long-lived process's own idea of the remote's tip, good enough to push on with a lease (null: fetch). */
  assumedTip(): Promise<string | null>
  /** Read the list (see FetchHow); a real fetch is noted (the fetch note, the store's note). */
  fetch(how: FetchHow, claims: boolean): Promise<Fetched>
  /** Null: the remote could not be asked. */
  look(): Promise<Look | null>
  localTip(): Promise<string | null>
  relate(remoteTip: string, localTip: string, recentSince: number): Promise<Related>
  /** Merge unpublished local commits with the remote's tip (a commit, nothing moves). */
  mergeLocal(remoteTip: string, localTip: string, mergeBase: string | null): Promise<Merged>
  runOp(base: string | null, contention: Contention | null): Promise<OpOutcome<C>>
  /** Fold `pending` (and this command's own change, written as a commit on `tip`) into the list: one atomic push. */
  fold(tip: string, pending: Pending, own: {id: string; change: C} | null): Promise<Folded>
  pushPending(id: string, change: C): Promise<Pushed>
  pushList(change: C, expected: string | null): Promise<Pushed>
  /** Take the parked change back; false when it was no longer there. */
  withdraw(parked: Parked<C>): Promise<boolean>
  learnFate(parked: Parked<C>, seen: Pending | null): Promise<Fate>
  findLanded(tip: string, parked: Parked<C>): Promise<string | null>
  /** A push on the assumed tip lost: the next mutations fetch first. */
  forgetAssumedTip(): void
  /** Whether this clone remembers that the remote refuses pending refs (a note under an hour old): then every change goes to the list's ref. */
  pendingRefused(): boolean
  /** The remote refused a pending ref as such: remember it for the next commands, and tell the user once. */
  notePendingRefused(detail: string): void
}
