/**
 * Human messages name items by their short id, as list, show and every
 * result line do (`tsk-k3v9`); JSON keeps the full id. Errors are made in
 * the core with the full id, so the text printer shortens them here, on the
 * error path only (one index load, already cached by the failed command).
 */
import {shortIdOf} from '../core/ids'
import {tablesOf} from '../core/snapshot'
import type {Session} from './session'

const FULL_ID = /\btsk-[0-9a-z]{8,26}\b/g

/** `text` with every full id of an item of the session's list replaced by its short id; unchanged on any failure. */
export async function withShortIds(session: Session, text: string): Promise<string> {
  if (!FULL_ID.test(text)) return text
  FULL_ID.lastIndex = 0
  try {
    const snap = (await session.store.load()).snapshot
    const tables = tablesOf(snap)
    return text.replace(FULL_ID, (id) => (snap.tasks.has(id) ? shortIdOf(tables, id) : id))
  } catch {
    return text
  }
}
