import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {InitResult} from '../app/task-actions'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Init extends TasksCommand<InitResult> {
  static override summary = 'Create the task list (refs/tasks/<list>) in this repository.'
  static override description =
    'The root commit is deterministic: two clones that initialise apart get the same commit, so their histories join. Running it again is harmless. Without --remote, a list this repository lacks is looked for on its remotes: when exactly one has it, init adopts it as --remote would (not with --offline). With --remote, the remote is recorded (git config tasks.remote) and the list is synced with it: a list the remote already has is adopted. Also registers the field-level merge driver for people who merge the tasks ref with plain git.'
  static override flags = {
    remote: Flags.string({description: 'Share the list through this git remote (e.g. origin).'}),
  }
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --offline', '<%= config.bin %> init --remote origin', '<%= config.bin %> init --list release-2']

  protected async execute(): Promise<InitResult> {
    const {flags} = await this.parse(Init)
    this.flagsForSession = flags
    return engine().actions.initList(await this.openSession(), {remote: flags.remote, cli: process.argv[1] ?? 'tasks'})
  }

  protected render(r: InitResult, _term: Terminal): string {
    if (r.discovered) return `found the list on remote "${r.remote}" and adopted it: ${r.ref} at ${r.commit.slice(0, 10)} (tasks.remote = ${r.remote})\n`
    const head = r.created ? `initialised ${r.ref} at ${r.commit.slice(0, 10)}` : `${r.ref} already exists (${r.commit.slice(0, 10)})`
    const remote = r.remote ? `\nremote: ${r.remote}${r.sync ? ` (${r.sync.replace(/_/g, ' ')})` : ''}` : ''
    return `${head}${remote}\n`
  }
}
