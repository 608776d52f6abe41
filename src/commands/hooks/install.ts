import {TasksCommand} from '../base-command'
import {engine} from '../engine-loader'
import type {HooksResult} from '../../hooks/install'

export default class HooksInstall extends TasksCommand<HooksResult> {
  static override summary = 'Install the git hooks that link commits to cards (prepare-commit-msg, post-commit, pre-push).'
  static override description =
    'Installs into the directory git runs hooks from: core.hooksPath when set (husky, lefthook, pre-commit), else the hooks directory every worktree shares. A hook already there is kept and runs first (renamed to <name>.git-tasks-chained); `tasks hooks uninstall` puts it back exactly. The hooks only record the commit or push and start a background worker; they never fail a commit or a push.'
  static override examples = ['<%= config.bin %> hooks install', '<%= config.bin %> hooks status']

  protected async execute(): Promise<HooksResult> {
    const {flags} = await this.parse(HooksInstall)
    this.flagsForSession = flags
    return engine().hooks.install(process.cwd(), process.argv[1] ?? 'tasks')
  }

  protected render(r: HooksResult): string {
    return engine().hooks.renderHooks(r, 'installed')
  }
}
