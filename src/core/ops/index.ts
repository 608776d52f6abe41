/**
 * The pure ops, as one namespace: what a batch item's step (declared on its
 * operation's spec in src/operations) is handed, so the operation table can
 * name ops without the command bundle loading them.
 */
export {addTask} from './add'
export {addCheck, recordCheck, supersedeCheck} from './checks'
export {claimWithoutSweep, heartbeat, nextWithoutSweep, releaseTask, sweepExpired, takeoverTask} from './claim'
export {addComment} from './comment'
export {assignTask, editTask, setDependencies} from './edit'
export {inverseEdges, setDependenciesAndBlocks, withInverseEdges} from './blocks'
export {flagTask, unflagTask} from './flag'
export {blockTask, cancelTask, finishTask, reopenTask} from './lifecycle'
export {deferTask, failTask} from './states'
export {removeTask} from './remove'
export {addTaskWithChecks} from './add-with-checks'
export {revertActor} from './revert'
export {startPlan} from './plan-start'
