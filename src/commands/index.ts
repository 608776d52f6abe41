/**
 * The command table for oclif's `explicit` discovery strategy: the bundle
 * exports it as COMMANDS, so oclif never scans directories at start-up.
 */
import Add from './add'
import Assign from './assign'
import Block from './block'
import Cancel from './cancel'
import Claim from './claim'
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
import Export from './export'
import Heartbeat from './heartbeat'
import Import from './import'
import Init from './init'
import List from './list'
import Lists from './lists'
import Log from './log'
import Mcp from './mcp/index'
import McpInstall from './mcp/install'
import MergeDriver from './merge-driver'
import Next from './next'
import Prime from './prime'
import Release from './release'
import Remote from './remote/index'
import RemoteSet from './remote/set'
import RemoteUnset from './remote/unset'
import Reopen from './reopen'
import Restore from './restore'
import Rm from './rm'
import Search from './search'
import Show from './show'
import Start from './start'
import Sync from './sync'
import Undo from './undo'

export const COMMANDS = {
  add: Add,
  assign: Assign,
  block: Block,
  cancel: Cancel,
  claim: Claim,
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
  export: Export,
  heartbeat: Heartbeat,
  import: Import,
  init: Init,
  list: List,
  lists: Lists,
  log: Log,
  mcp: Mcp,
  'mcp:install': McpInstall,
  'merge-driver': MergeDriver,
  next: Next,
  prime: Prime,
  release: Release,
  remote: Remote,
  'remote:set': RemoteSet,
  'remote:unset': RemoteUnset,
  reopen: Reopen,
  restore: Restore,
  rm: Rm,
  search: Search,
  show: Show,
  start: Start,
  sync: Sync,
  undo: Undo,
}
