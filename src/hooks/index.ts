/** The hooks layer as the engine bundle exposes it to the commands. */
export {install, uninstall, status, installServerHook, type HooksResult, type ServerHookResult} from './install'
export {runQueue, type RunResult} from './runner'
export {verify, type VerifyResult} from './verify'
export {streamEvents, type TaskEvent, type EventLine, type UnblockedEvent} from './events'
export {branchForTask, type BranchOutput} from './branch'
export {renderHooks, renderVerify, renderEvent, renderServerHook} from './render'
