/**
 * A removal is confirmed (docs/model.md, "Removing and restoring"): `rm`
 * without a terminal repeats the ids (`--confirm`) and gives a reason; on a
 * terminal the command line asks instead and fills both in. Checked on
 * every surface (command line, MCP, batch items) before the op runs; kept
 * apart from the op so the command bundle loads nothing more for it.
 */
import {UsageError} from './errors'

/** An id as typed, for comparing a confirmation with it: any case, with or without `tsk-`. */
function typed(id: string): string {
  const s = id.trim().toLowerCase()
  return s.startsWith('tsk-') ? s.slice(4) : s
}

/**
 * The confirmation of a removal made without a terminal: `confirm` names
 * exactly the ids of `ids` (as typed, in any order, any case, with or
 * without `tsk-`), and `reason` is not empty. Refused with exit 2 (usage),
 * before anything is read or written.
 */
export function assertRemovalConfirmed(ids: readonly string[], confirm: readonly string[] | undefined, reason: string | undefined): void {
  const soft = 'To retire work and keep it in the list, cancel it instead: `tasks cancel ID --reason R`.'
  if (confirm === undefined || confirm.length === 0) {
    throw new UsageError(`rm without a terminal needs the ids repeated and a reason: \`tasks rm ${ids.join(' ')} --confirm ${ids.join(' ')} --reason "…"\`; nothing was removed. ${soft}`, {ids: [...ids]}, 'confirm_required')
  }
  const want = new Set(ids.map(typed))
  const got = new Set(confirm.map(typed))
  if (want.size !== got.size || [...want].some((x) => !got.has(x))) {
    throw new UsageError(`--confirm (${confirm.join(' ')}) does not repeat the ids to remove (${ids.join(' ')}); nothing was removed`, {ids: [...ids], confirm: [...confirm]}, 'confirm_mismatch')
  }
  if (reason === undefined || reason.trim() === '') {
    throw new UsageError(`rm needs --reason: why ${ids.length === 1 ? 'it is' : 'they are'} removed (recorded in the commit, shown by \`tasks log\`); nothing was removed. ${soft}`, {ids: [...ids]}, 'reason_required')
  }
}
