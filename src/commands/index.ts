/**
 * The command table for oclif's `explicit` discovery strategy: the bundle
 * exports it as COMMANDS, so oclif never scans directories at start-up.
 */
import ActorAdd from './actor/add'
import ActorAlias from './actor/alias'
import ActorList from './actor/list'
import Add from './add'
import Assign from './assign'
import Block from './block'
import Checkpoint from './checkpoint'
import Board from './board'
import BoardStatus from './board-status'
import BoardStop from './board-stop'
import Branch from './branch'
import Cancel from './cancel'
import Defer from './defer'
import Fail from './fail'
import CheckAdd from './check/add'
import CheckFail from './check/fail'
import CheckList from './check/list'
import CheckPass from './check/pass'
import CheckSupersede from './check/supersede'
import Claim from './claim'
import CollabAdd from './collab/add'
import CollabRm from './collab/rm'
import CommentCommand from './comment'
import Completion from './completion'
import ConfigGet from './config/get'
import ConfigList from './config/list'
import ConfigSet from './config/set'
import ConfigUnset from './config/unset'
import Deps from './deps'
import Doctor from './doctor'
import Done from './done'
import Edit from './edit'
import Graph from './graph'
import Events from './events'
import Flag from './flag'
import Heartbeat from './heartbeat'
import HooksInstall from './hooks/install'
import HooksRun from './hooks/run'
import HooksStatus from './hooks/status'
import HooksUninstall from './hooks/uninstall'
import Inbox from './inbox/index'
import InboxAck from './inbox/ack'
import SessionCreate from './session/create'
import SessionShow from './session/show'
import SessionList from './session/list'
import SessionSearch from './session/search'
import SessionClaim from './session/claim'
import SessionRevise from './session/revise'
import SessionCheckpoint from './session/checkpoint'
import SessionHeartbeat from './session/heartbeat'
import SessionRelease from './session/release'
import SessionComplete from './session/complete'
import SessionCancel from './session/cancel'
import SessionTakeover from './session/takeover'
import ScenarioStart from './scenario/start'
import ScenarioStatus from './scenario/status'
import ScenarioList from './scenario/list'
import PlanStart from './plan/start'
import PlanList from './plan/list'
import PlanRm from './plan/rm'
import PlanMerge from './plan/merge'
import PlanDiff from './plan/diff'
import Export from './export'
import Import from './import'
import Init from './init'
import List from './list'
import Lists from './lists'
import Log from './log'
import Blame from './blame'
import Mcp from './mcp/index'
import McpInstall from './mcp/install'
import McpListTools from './mcp/list-tools'
import McpDoctor from './mcp/doctor'
import MergeDriver from './merge-driver'
import Next from './next'
import Notify from './notify'
import Prune from './prune'
import Prime from './prime'
import Release from './release'
import Remind from './remind'
import Remote from './remote/index'
import RemoteSet from './remote/set'
import RemoteUnset from './remote/unset'
import Reopen from './reopen'
import Restore from './restore'
import Revert from './revert'
import Diff from './diff'
import Rm from './rm'
import ServerInstallHook from './server/install-hook'
import Search from './search'
import Show from './show'
import Stale from './stale'
import Start from './start'
import Sweep from './sweep'
import Sync from './sync'
import Takeover from './takeover'
import Undo from './undo'
import Verify from './verify'
import Unwatch from './unwatch'
import Watch from './watch'
import Unflag from './unflag'
import Batch from './batch'

export const COMMANDS = {
  'actor:add': ActorAdd,
  'actor:alias': ActorAlias,
  'actor:list': ActorList,
  add: Add,
  assign: Assign,
  block: Block,
  checkpoint: Checkpoint,
  board: Board,
  'board:status': BoardStatus,
  'board:stop': BoardStop,
  branch: Branch,
  batch: Batch,
  cancel: Cancel,
  defer: Defer,
  fail: Fail,
  'check:add': CheckAdd,
  'check:fail': CheckFail,
  'check:list': CheckList,
  'check:pass': CheckPass,
  'check:supersede': CheckSupersede,
  claim: Claim,
  'collab:add': CollabAdd,
  'collab:rm': CollabRm,
  comment: CommentCommand,
  completion: Completion,
  'config:get': ConfigGet,
  'config:list': ConfigList,
  'config:set': ConfigSet,
  'config:unset': ConfigUnset,
  deps: Deps,
  doctor: Doctor,
  done: Done,
  edit: Edit,
  graph: Graph,
  events: Events,
  flag: Flag,
  heartbeat: Heartbeat,
  'hooks:install': HooksInstall,
  'hooks:run': HooksRun,
  'hooks:status': HooksStatus,
  'hooks:uninstall': HooksUninstall,
  inbox: Inbox,
  'inbox:ack': InboxAck,
  'session:create': SessionCreate,
  'scenario:start': ScenarioStart,
  'scenario:status': ScenarioStatus,
  'scenario:list': ScenarioList,
  'plan:start': PlanStart,
  'plan:list': PlanList,
  'plan:rm': PlanRm,
  'plan:merge': PlanMerge,
  'plan:diff': PlanDiff,
  'session:show': SessionShow,
  'session:list': SessionList,
  'session:search': SessionSearch,
  'session:claim': SessionClaim,
  'session:revise': SessionRevise,
  'session:checkpoint': SessionCheckpoint,
  'session:heartbeat': SessionHeartbeat,
  'session:release': SessionRelease,
  'session:complete': SessionComplete,
  'session:cancel': SessionCancel,
  'session:takeover': SessionTakeover,
  export: Export,
  import: Import,
  init: Init,
  list: List,
  lists: Lists,
  log: Log,
  blame: Blame,
  mcp: Mcp,
  'mcp:install': McpInstall,
  'mcp:list-tools': McpListTools,
  'mcp:doctor': McpDoctor,
  'merge-driver': MergeDriver,
  next: Next,
  notify: Notify,
  prune: Prune,
  prime: Prime,
  release: Release,
  remind: Remind,
  remote: Remote,
  'remote:set': RemoteSet,
  'remote:unset': RemoteUnset,
  reopen: Reopen,
  restore: Restore,
  revert: Revert,
  diff: Diff,
  rm: Rm,
  'server:install-hook': ServerInstallHook,
  search: Search,
  show: Show,
  stale: Stale,
  start: Start,
  sweep: Sweep,
  sync: Sync,
  takeover: Takeover,
  undo: Undo,
  verify: Verify,
  unwatch: Unwatch,
  watch: Watch,
  unflag: Unflag,
}
