/**
 * Entry of the second bundle, dist/engine.js: everything a command runs
 * (app, core, refstore, render). The command bundle (dist/tasks.js) holds
 * only oclif and the command definitions and loads this on first use, so
 * `tasks --version` and `tasks help` never compile the engine.
 */
export * as actions from './app/task-actions'
export * as history from './app/history-actions'
export * as config from './app/config-actions'
export * as batch from './app/batch-actions'
export * as coordination from './app/coordination-actions'
export {undo} from './app/undo'
export {Session} from './app/session'
export * as render from './render/tasks'
export * as renderHistory from './render/history'
export * as compact from './render/compact-views'
export * as sharing from './app/sharing'
export * as sharingRender from './render/sharing'
export {detectTerminal, paint, visible} from './render/terminal'
export {neutralize, neutralizeDeep} from './core/untrusted-text'
export {toTasksError} from './app/error-mapping'
export {runMergeDriver} from './app/merge-driver'
export {completeIds} from './app/complete'
export * as graph from './app/graph-actions'
export {renderMermaid, renderDot} from './render/graph-text'
export * as hooks from './hooks/index'
export * as inbox from './app/inbox-actions'
export * as renderInbox from './render/inbox'
export * as search from './app/search'
export * as prime from './app/prime'
export * as interchange from './app/interchange'
export * as mcpInstall from './app/mcp-install'
export {serveStdio} from './agent/mcp-server'
export {workTreeRoot} from './refstore/repository'
