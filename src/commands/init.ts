import {TasksCommand} from './base-command'
import type {InitResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Init extends TasksCommand<InitResult> {
  static override summary = 'Create the task list (refs/tasks/<list>) in this repository.'
  static override description =
    'The root commit is deterministic: two clones that initialise apart get the same commit, so their histories join. Running it again is harmless.'
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --list release-2']

  protected async execute(): Promise<InitResult> {
    const {flags} = await this.parse(Init)
    this.flagsForSession = flags
    return engine().actions.initList(await this.openSession())
  }

  protected render(r: InitResult, _term: Terminal): string {
    return r.created ? `initialised ${r.ref} at ${r.commit.slice(0, 10)}\n` : `${r.ref} already exists (${r.commit.slice(0, 10)})\n`
  }
}
