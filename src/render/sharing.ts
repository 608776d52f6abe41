/**
 * Human renderings of the sharing results (`tasks remote`, `tasks lists`)
 * and the word every mutation's line carries about publishing. Input is
 * exactly the --json result; nothing here reads state.
 */
import type {ListsResult, RemoteStatus} from '../app/sharing'
import {renderTable} from './table'
import type {Terminal} from './terminal'

const short = (oid: string | null): string => (oid ? oid.slice(0, 10) : '-')
const commits = (n: number): string => `${n} commit${n === 1 ? '' : 's'}`

/** `tasks remote`: the remote, its URL, and where the local list stands against the last fetch. */
export function renderRemoteStatus(r: RemoteStatus): string {
  if (!r.remote) return 'no tasks remote: the lists are local only (`tasks remote set NAME` to share them)\n'
  const lines = [`remote: ${r.remote}${r.url ? ` (${r.url})` : ''}${r.offline ? ', offline now (--offline / TASKS_OFFLINE)' : ''}`]
  lines.push(`list ${r.list}: local ${short(r.local_tip)}, ${r.remote} ${short(r.remote_tip)} (${r.tracking_ref}, last fetched ${r.last_fetch ?? 'never'})`)
  if (r.ahead === null || r.behind === null) {
    lines.push(r.local_tip ? `not fetched yet: \`tasks sync\` publishes the list` : `not here yet: \`tasks init --remote ${r.remote}\` adopts it`)
  } else if (r.ahead === 0 && r.behind === 0) lines.push('up to date with the last fetch')
  else {
    const parts = [...(r.ahead ? [`${commits(r.ahead)} not published`] : []), ...(r.behind ? [`${commits(r.behind)} behind`] : [])]
    lines.push(`${parts.join(', ')}: run \`tasks sync\``)
  }
  const refused = r.pending_refs_refused
  if (refused) lines.push(`${r.remote} refused the pending-change refs (refs/tasks-claims/*) at ${refused.since}: changes go straight to the list's ref until ${refused.until}`)
  return `${lines.join('\n')}\n`
}

/** `tasks lists`: one row per list, the current one marked. */
export function renderLists(term: Terminal, r: ListsResult): string {
  if (r.lists.length === 0) return 'no task lists here (`tasks init` creates one)\n'
  type Row = ListsResult['lists'][number]
  const cols = [
    {header: '', cell: (l: Row) => (l.name === r.current ? '*' : '')},
    {header: 'LIST', cell: (l: Row) => l.name},
    {header: 'TASKS', cell: (l: Row) => (l.tasks === null ? '' : String(l.tasks))},
    {header: 'COMMIT', cell: (l: Row) => short(l.commit)},
    ...(r.remote
      ? [
          {
            header: r.remote.toUpperCase(),
            cell: (l: Row) => (l.remote_commit === null ? '-' : l.commit === null ? `${short(l.remote_commit)} (remote only)` : l.remote_commit === l.commit ? 'same' : short(l.remote_commit)),
          },
        ]
      : []),
  ]
  return renderTable(term, cols, r.lists)
}

/**
 * The word a mutation's human output carries about publishing, on its
 * first line: nothing when the lists are local only (no remote), else
 * "published to REMOTE" or "committed offline".
 */
export function withPublication(text: string, pub: {published: boolean; remote: string | null} | null): string {
  if (!pub || !pub.remote || !text) return text
  const word = pub.published ? `[published to ${pub.remote}]` : '[committed offline: `tasks sync` publishes it]'
  const nl = text.indexOf('\n')
  return nl === -1 ? `${text}  ${word}` : `${text.slice(0, nl)}  ${word}${text.slice(nl)}`
}
