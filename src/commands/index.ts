/**
 * The command table for oclif's `explicit` discovery strategy: the bundle
 * exports it as COMMANDS, so oclif never scans directories at start-up.
 */
import Add from './add'
import Assign from './assign'
import Block from './block'
import Cancel from './cancel'
import CheckAdd from './check/add'
import CheckFail from './check/fail'
import CheckList from './check/list'
import CheckPass from './check/pass'
import CheckSupersede from './check/supersede'
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
import Flag from './flag'
import Heartbeat from './heartbeat'
import Init from './init'
import List from './list'
import Lists from './lists'
import Log from './log'
import MergeDriver from './merge-driver'
import Next from './next'
import Prune from './prune'
import Release from './release'
import Remote from './remote/index'
import RemoteSet from './remote/set'
import RemoteUnset from './remote/unset'
import Reopen from './reopen'
import Restore from './restore'
import Rm from './rm'
import Show from './show'
import Start from './start'
import Sweep from './sweep'
import Sync from './sync'
import Takeover from './takeover'
import Undo from './undo'
import Unflag from './unflag'
import Batch from './batch'

export const COMMANDS = {
  add: Add,
  assign: Assign,
  block: Block,
  batch: Batch,
  cancel: Cancel,
  'check:add': CheckAdd,
  'check:fail': CheckFail,
  'check:list': CheckList,
  'check:pass': CheckPass,
  'check:supersede': CheckSupersede,
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
  flag: Flag,
  heartbeat: Heartbeat,
  init: Init,
  list: List,
  lists: Lists,
  log: Log,
  'merge-driver': MergeDriver,
  next: Next,
  prune: Prune,
  release: Release,
  remote: Remote,
  'remote:set': RemoteSet,
  'remote:unset': RemoteUnset,
  reopen: Reopen,
  restore: Restore,
  rm: Rm,
  show: Show,
  start: Start,
  sweep: Sweep,
  sync: Sync,
  takeover: Takeover,
  undo: Undo,
  unflag: Unflag,
}
