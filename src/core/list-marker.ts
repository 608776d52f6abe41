/**
 * Marked lists: a list that is a plan (core/plan-marker.ts, issue 34) or a
 * scenario (core/scenario.ts, issue 33) says so by one file at the root of
 * its ref, its marker, written once in the commit that makes it one and
 * naming the list it is on. What the kinds share: how a marker is
 * described (its path, its parser, the list it names), and the check of a
 * name given for one. Reading markers is app/list-markers.ts; the guard's
 * judge of them is hooks/judges.ts (judgeMarkerFile).
 *
 * Pure: values in, values out.
 */
import {UsageError} from './errors'
import {isValidListName} from './store-layout'
import type {Parsed} from './task-file'

export type MarkerKind = 'plan' | 'scenario'

export interface ListMarker<F> {
  /** What a list with the marker is; also the key naming it in an error's details. */
  kind: MarkerKind
  /** The marker's path at the root of the list's tree (plan.yaml, scenario.yaml). */
  path: string
  parse(text: string): Parsed<F>
  /** The list the marker says it is on (its plan's or scenario's name). */
  listOf(file: F): string
}

/**
 * `name`, given for a list of kind `kind` (the plan or scenario itself, or
 * with `what` 'list' another list a command names), when it is usable as a
 * list's name; else bad_list (exit 2).
 */
export function checkMarkedName(kind: MarkerKind, name: string, what: string = kind): string {
  if (!isValidListName(name)) {
    throw new UsageError(`"${name}" is not a ${what} name: use letters, digits, . _ - (it becomes the list refs/tasks/${name})`, {[kind]: name}, 'bad_list')
  }
  return name
}
