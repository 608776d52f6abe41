import {TasksCommand} from './base-command'
import type {ListsResult} from '../app/sharing'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Lists extends TasksCommand<ListsResult> {
  static override summary = 'Show the task lists: refs/tasks/* here, and those only the remote has.'
  static override description =
    'TASKS is the number of tasks (blank for a list never read in this clone: run `tasks --list NAME list` once). With a remote, its column compares each list with the remote\'s as last fetched; a list only the remote has is adopted with `tasks init --remote NAME --list LIST`.'
  static override examples = ['<%= config.bin %> lists', '<%= config.bin %> lists --json']

  protected async execute(): Promise<ListsResult> {
    const {flags} = await this.parse(Lists)
    this.flagsForSession = flags
    return engine().sharing.lists(await this.openSession())
  }

  protected render(r: ListsResult, term: Terminal): string {
    return engine().sharingRender.renderLists(term, r)
  }
}
