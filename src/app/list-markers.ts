/**
 * Reading the markers of marked lists (core/list-marker.ts): a plan's
 * plan.yaml, a scenario's scenario.yaml. One reader for both kinds: the
 * marker at a commit or a root tree, and every list here that carries one.
 */
import type {ListMarker} from '../core/list-marker'
import {isValidListName} from '../core/store-layout'
import type {ListStore} from '../refstore/list-store'
import {listRefs} from '../refstore/remote'

/** A marker as read: its file, why it cannot be read, or null when there is none. */
export type MarkerRead<F> = {file: F} | {error: string} | null

/** `marker`'s file at the root of commit `commit`, or of tree `rootTree`. */
export async function readMarker<F>(store: ListStore, marker: ListMarker<F>, at: {commit: string} | {rootTree: string}): Promise<MarkerRead<F>> {
  const read = await store.readRootFile(at, marker.path)
  if (read === null) return null
  if ('error' in read) return read
  const parsed = marker.parse(read.text)
  return parsed.ok ? {file: parsed.value} : {error: parsed.error}
}

export interface MarkedLists<F> {
  /** Every list's tip here, by ref (refs/tasks/<list>). */
  tips: ReadonlyMap<string, string>
  /** The lists whose tip carries the marker, in the order of their refs. */
  lists: Array<{list: string; ref: string; commit: string; file: F}>
  /** Lists whose marker cannot be read, by list. */
  broken: Array<{list: string; error: string}>
}

/** Every list here whose tip carries `marker` (`tasks plan list`, `tasks scenario list`). */
export async function markedLists<F>(store: ListStore, marker: ListMarker<F>): Promise<MarkedLists<F>> {
  const refs = await listRefs(store.repo.cwd, ['refs/tasks/'])
  const out: MarkedLists<F> = {tips: new Map(refs.map((r) => [r.ref, r.oid])), lists: [], broken: []}
  for (const {ref, oid} of refs) {
    const list = ref.slice('refs/tasks/'.length)
    if (list.includes('/') || !isValidListName(list)) continue
    const read = await readMarker(store, marker, {commit: oid})
    if (read === null) continue
    if ('error' in read) out.broken.push({list, error: read.error})
    else out.lists.push({list, ref, commit: oid, file: read.file})
  }
  return out
}
