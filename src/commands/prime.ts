import {Flags} from '@oclif/core'
import {TasksCommand} from './base-command'
import type {PrimeResult, PrimeWriteResult} from '../app/prime'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

type PrimeOutput = PrimeResult | (PrimeResult & PrimeWriteResult)

export default class Prime extends TasksCommand<PrimeOutput> {
  static override summary = "A short guide for an agent's system prompt, from the list's current state."
  static override description =
    'How to find work, claim, heartbeat, record evidence, finish and what to run on stop, with this list\'s lease and remote, and what is ready now. --write FILE keeps a marked section of FILE (such as AGENTS.md) current: the rest of the file is left as it is, and the section holds no counts, so it changes only when the setup does.'
  static override flags = {
    write: Flags.string({description: 'Keep the git-tasks section of this file current (created when missing).', helpValue: 'FILE'}),
  }
  static override examples = ['<%= config.bin %> prime', '<%= config.bin %> prime --json', '<%= config.bin %> prime --write AGENTS.md']

  protected async execute(): Promise<PrimeOutput> {
    const {flags} = await this.parse(Prime)
    this.flagsForSession = flags
    const session = await this.openSession()
    if (flags.write !== undefined) return engine().prime.writePrime(session, flags.write, process.cwd())
    return engine().prime.prime(session)
  }

  protected render(r: PrimeOutput, _term: Terminal): string {
    if ('action' in r) return `${r.path}: ${r.action === 'unchanged' ? 'the git-tasks section is current' : r.action === 'created' ? 'created with the git-tasks section' : r.action === 'appended' ? 'git-tasks section added' : 'git-tasks section updated'}\n`
    return r.markdown
  }
}
