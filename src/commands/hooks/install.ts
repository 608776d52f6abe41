import {Flags} from '@oclif/core'
import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {HooksResult} from '../../hooks/install'

export default class HooksInstall extends TasksCommand<HooksResult> {
  static override summary = 'Install the git hooks that link commits to cards (prepare-commit-msg, post-commit, pre-push).'
  static override description =
    'Installs into the directory git runs hooks from: core.hooksPath when set (husky, lefthook, pre-commit), else the hooks directory every worktree shares. A hook already there is kept and runs first (renamed to <name>.git-tasks-chained); `tasks hooks uninstall` puts it back exactly. The hooks only record the commit or push and start a background worker; they never fail a commit or a push.'
  static override examples = ['<%= config.bin %> hooks install', '<%= config.bin %> hooks install --copy', '<%= config.bin %> hooks status']
  static override flags = {
    copy: Flags.boolean({
      description:
        'Vendor the hooks into .githooks/ in the work tree and point core.hooksPath there, for a team that commits its hooks: the scripts start `tasks` from PATH, so they are the same on every clone; each clone runs this once. Refused when core.hooksPath names another directory or the git dir holds hooks that would stop running.',
    }),
  }

  protected async execute(): Promise<HooksResult> {
    const {flags} = await this.parse(HooksInstall)
    this.flagsForSession = flags
    return engine().hooks.install(process.cwd(), process.argv[1] ?? 'tasks', {copy: flags.copy})
  }

  protected render(r: HooksResult): string {
    return engine().hooks.renderHooks(r, 'installed')
  }
}
