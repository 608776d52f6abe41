import {TasksCommand} from './base-command'
import type {SyncResult} from '../app/sync'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Sync extends TasksCommand<SyncResult> {
  static override summary = 'Merge the local list with the remote one and publish the result.'
  static override description =
    'Fetches the remote list, fast-forwards or merges field by field (a real merge commit with both parents), repairs what the merge broke (cycles, dangling edges, …), and pushes with a lease, retrying when someone else pushed first. Prints what merged, what conflicted and how it was resolved.'
  static override examples = ['<%= config.bin %> sync', '<%= config.bin %> sync --json']

  protected async execute(): Promise<SyncResult> {
    const {flags} = await this.parse(Sync)
    this.flagsForSession = flags
    return engine().actions.sync(await this.openSession())
  }

  protected render(r: SyncResult, _term: Terminal): string {
    const what: Record<SyncResult['action'], string> = {
      up_to_date: 'already up to date',
      fast_forward: 'fast-forwarded to the remote',
      pushed: 'published local changes',
      merged: 'merged local and remote changes',
      published: 'published the list to the remote',
    }
    const lines = [`${r.remote}/tasks/${r.list}: ${what[r.action]} (${r.commit.slice(0, 10)})`]
    for (const n of r.notes) lines.push(`  ${n.kind.replace(/_/g, ' ')}: ${n.message}`)
    for (const rep of r.repairs) lines.push(`  repaired ${rep.kind.replace(/_/g, ' ')}: ${rep.message}`)
    return `${lines.join('\n')}\n`
  }
}
