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
import Deps from './deps'
import Doctor from './doctor'
import Done from './done'
import Edit from './edit'
import Heartbeat from './heartbeat'
import Init from './init'
import List from './list'
import Log from './log'
import MergeDriver from './merge-driver'
import Next from './next'
import Release from './release'
import RemoteSet from './remote/set'
import RemoteUnset from './remote/unset'
import Reopen from './reopen'
import Rm from './rm'
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
  deps: Deps,
  doctor: Doctor,
  done: Done,
  edit: Edit,
  heartbeat: Heartbeat,
  init: Init,
  list: List,
  log: Log,
  'merge-driver': MergeDriver,
  next: Next,
  release: Release,
  'remote:set': RemoteSet,
  'remote:unset': RemoteUnset,
  reopen: Reopen,
  rm: Rm,
  show: Show,
  start: Start,
  sync: Sync,
  undo: Undo,
}
