/**
 * Task ids for shell completion (`tasks __complete`): one prefix search in
 * the list's index. Never writes; an unusable repository or list gives no
 * candidates rather than an error (completion must stay quiet).
 */
import {shortIdOf} from '../core/ids'
import {tablesOf} from '../core/snapshot'
import {Session} from './session'

const MAX = 200

/**
 * Ids (the short form when it still starts with `typed`) that start with `typed`, with title and
 * status; only of `statuses` when given (`done`, `claim`, `block` … offer open items only).
 */
export async function completeIds(where: {cwd: string; list: string}, typed: string, statuses?: readonly string[]): Promise<Array<{value: string; description: string}>> {
  let session: Session | undefined
  try {
    session = await Session.open({cwd: where.cwd, list: where.list})
    const snap = (await session.store.load()).snapshot
    const tables = tablesOf(snap)
    // `k3v9` means `tsk-k3v9`, as everywhere ids are typed.
    const bare = typed !== '' && !'tsk-'.startsWith(typed) && !typed.startsWith('tsk-')
    const prefix = bare ? `tsk-${typed}` : typed
    const out: Array<{value: string; description: string}> = []
    // With a status filter, look further than MAX ids so that finished ones do not crowd out open ones.
    for (const id of tables.idsWithPrefix(prefix, statuses ? Number.MAX_SAFE_INTEGER : MAX)) {
      if (out.length >= MAX) break
      const entry = snap.tasks.get(id)
      if (statuses && !(entry?.meta && statuses.includes(entry.meta.status))) continue
      const short = shortIdOf(tables, id)
      let value = short.length >= prefix.length ? short : id
      if (bare) value = value.slice(4)
      out.push({value, description: entry?.meta ? `${entry.meta.status}: ${entry.meta.title}` : '(unreadable)'})
    }
    return out
  } catch {
    return []
  } finally {
    session?.close()
  }
}
