import {Args, Command} from '@oclif/core'
import {SHELLS, completionScript} from './complete-words'

/** Prints a completion script; the script asks `tasks __complete` for candidates on each TAB. */
export default class Completion extends Command {
  static override summary = 'Print a shell completion script (bash, zsh or fish): commands, flags and task ids.'
  static override description =
    'The script completes command names, flags, flag values with a fixed set of choices, and task ids by prefix (from the index of the list: --list, TASKS_LIST, else main). In bash it also completes `git tasks …` when git\'s own completion is loaded.'
  static override args = {shell: Args.string({required: true, options: [...SHELLS], description: 'bash, zsh or fish'})}
  static override examples = [
    'eval "$(<%= config.bin %> completion bash)"        # in ~/.bashrc',
    'source <(<%= config.bin %> completion zsh)          # in ~/.zshrc, after compinit',
    '<%= config.bin %> completion fish > ~/.config/fish/completions/tasks.fish',
  ]

  public async run(): Promise<void> {
    const {args} = await this.parse(Completion)
    process.stdout.write(completionScript(args.shell as (typeof SHELLS)[number]))
  }
}
