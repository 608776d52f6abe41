/**
 * The layout of a list's tree on its ref, and the fixed content of a new
 * list. `init` must produce the same root commit everywhere, so the initial
 * files, author, date and message are constants.
 */
import {taskDir} from './ids'
import {DEFAULT_CONFIG, FORMAT_VERSION, INIT_CONFIG_KEYS, type ListConfig} from './task'
import {serialiseConfig, serialiseMeta} from './task-file'

export const META_PATH = 'meta.yaml'
export const CONFIG_PATH = 'config.yaml'
export const TASKS_DIR = 'tasks'
export const TASK_FILE = 'task.md'
export const COMMENTS_DIR = 'comments'

export const taskFilePath = (id: string): string => `${taskDir(id)}/${TASK_FILE}`
export const commentPath = (taskId: string, commentId: string): string => `${taskDir(taskId)}/${COMMENTS_DIR}/${commentId}.md`

/** The config.yaml of a new list: the defaults of the keys format 1 started with. */

/** Files of a freshly initialised list. */
export function initialFiles(): Array<{path: string; content: string}> {
  return [
    // Keys added after format 1 shipped are left out, so every version computes the same root commit.
    {path: CONFIG_PATH, content: serialiseConfig(Object.fromEntries(INIT_CONFIG_KEYS.map((k) => [k, DEFAULT_CONFIG[k]])) as unknown as ListConfig)},
    {path: META_PATH, content: serialiseMeta(FORMAT_VERSION)},
  ]
}

/** Identity and message of the deterministic root commit. */
export const INIT_COMMIT = {
  author: 'git-tasks',
  email: '',
  /** Seconds since the epoch; 0 so every clone computes the same commit. */
  time: 0,
  message: 'init: task list\n\nTasks-Op: init\n',
} as const

/** Ref names: list `main` is refs/tasks/main. */
export function listRef(list: string): string {
  return `refs/tasks/${list}`
}

const LIST_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** True for list names usable as one ref component (no slashes, no `..`, no `.lock`). */
export function isValidListName(list: string): boolean {
  return LIST_RE.test(list) && !list.includes('..') && !list.endsWith('.lock') && !list.endsWith('.')
}
