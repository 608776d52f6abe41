/**
 * The pure merge engine: 3-way merge of text, of one task, of a list's
 * files, and the reconciler that repairs the merged list's invariants. The
 * git side (fetch, merge base, reading the three trees, writing the merge
 * commit, push) lives in src/refstore and calls these; nothing here does I/O,
 * reads a clock or draws randomness. Rules: docs/merge.md.
 */
export {type ConflictLabels, type MergeRegion, type TextMergeResult, matchLines, mergeText, renderConflict, splitLines, twoWayRegions} from './text-merge'
export {type TaskMergeResult, type TaskVersion, compareSides, mergeSet, mergeTask} from './task-merge'
export {type FileVersions, type FilesMergeContext, type FilesMergeResult, type MergedFile, mergeFiles} from './tree-merge'
export {type ReconcileContext, type ReconcileResult, type Repair, type RepairKind, type Violation, checkInvariants, findCycle, reconcile} from './reconcile'
export {type ClaimState, MERGE_ACTOR, type MergeContext, type MergeNote, type Side} from './merge-types'
export {type DriverMerge, DRIVER_LABELS, RESOLVE_ADVICE, driverMerge} from './driver-merge'
