/**
 * What every command shares: the global flags (--json, --list, --as), the
 * session, printing a result as JSON or as text, and turning any failure
 * into the documented exit code (with --json: one JSON object on stderr).
 * Commands implement `execute` (one call into the app layer, returning the
 * result that is also the --json output) and `render` (text for people).
 */
import {Command, Flags, type Interfaces} from '@oclif/core'
import type {Session} from '../app/session'
import type {Terminal} from '../render/terminal'
import {engine} from './engine-loader'
import {neutralize} from '../core/untrusted-text'
import type {CommandInfo} from './argv'
import {usageFromParseError} from './parse-errors'
import {InvalidError, UsageError} from '../core/errors'

export const globalFlags = {
  json: Flags.boolean({description: 'Print the result as JSON (errors as JSON on stderr).', helpGroup: 'GLOBAL'}),
  list: Flags.string({description: 'Task list to use: refs/tasks/<list>.', default: 'main', env: 'TASKS_LIST', helpGroup: 'GLOBAL'}),
  as: Flags.string({description: 'Act as this actor (else $TASKS_ACTOR, git config tasks.actor, user.email).', helpGroup: 'GLOBAL'}),
  offline: Flags.boolean({description: 'Commit locally only, even with a remote configured (also TASKS_OFFLINE=1); `tasks sync` publishes later.', helpGroup: 'GLOBAL'}),
}

/** --force/--reason for acting on an item someone else holds; recorded as Tasks-Override. */
export const overrideFlags = {
  force: Flags.boolean({description: 'Act on an item held by someone else (needs --reason; recorded in history).'}),
  reason: Flags.string({description: 'Why you are overriding (with --force).'}),
}

/** --session: the agent session acting (else TASKS_SESSION); a claim records it. */
export const sessionFlag = {
  session: Flags.string({description: 'Agent session acting (else $TASKS_SESSION); a claim records it, `release --session` frees it.'}),
}

export const epochFlag = {
  epoch: Flags.integer({description: 'Fencing token from your claim: refuse if the item was claimed again since.'}),
}

/** Optimistic edits: apply only while the card is still at the revision that was read (docs/cli.md, "Optimistic edits"). */
export const revisionFlag = {
  'if-revision': Flags.integer({description: 'Apply only if the card is still at this revision (from show/list --json); else exit 4 revision_mismatch, nothing written.', min: 0}),
}

export const OUTPUT_FORMATS = ['text', 'json', 'compact'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** `--format` of the read commands (list, show, next, log): compact is the token-lean form for models (docs/compact.md). */
export const formatFlag = {
  format: Flags.string({
    description: 'Output format: text, json (same as --json) or compact (token-lean lines for models, docs/compact.md). Default: $TASKS_FORMAT, else text.',
    options: [...OUTPUT_FORMATS],
    helpValue: 'text|json|compact',
  }),
}

/**
 * The format a read command prints: `--format`, else `--json`, else
 * TASKS_FORMAT, else text. `--json` with another `--format` is a usage
 * error; so is a TASKS_FORMAT that names no format.
 */
export function chooseFormat(flags: {format?: string; json?: boolean}, env: NodeJS.ProcessEnv = process.env): OutputFormat {
  if (flags.format !== undefined) {
    if (flags.json && flags.format !== 'json') throw new UsageError(`--json and --format ${flags.format} ask for different outputs: pass one`)
    return flags.format as OutputFormat
  }
  if (flags.json) return 'json'
  const fromEnv = env.TASKS_FORMAT
  if (fromEnv === undefined || fromEnv === '') return 'text'
  if (!(OUTPUT_FORMATS as readonly string[]).includes(fromEnv)) throw new UsageError(`TASKS_FORMAT is "${fromEnv}": use text, json or compact`, {format: fromEnv})
  return fromEnv as OutputFormat
}

/** A progress checkpoint's text (`checkpoint`, `release`, `done`; docs/model.md, "Checkpoints"). */
export const checkpointFlags = {
  summary: Flags.string({description: 'What is done so far (recorded as a checkpoint on the card).'}),
  next: Flags.string({description: 'The next step, for whoever picks the item up.'}),
  session: Flags.string({description: 'The agent session writing the checkpoint (default $TASKS_SESSION).', env: 'TASKS_SESSION'}),
}

type GlobalFlags = Interfaces.InferredFlags<typeof globalFlags>

/**
 * Node decodes arguments as UTF-8 and turns invalid bytes into U+FFFD, so
 * that character in an argument means the bytes were not UTF-8: refuse it
 * rather than store the replacement (exit 5, nothing written).
 */
function refuseUndecodableArguments(argv: readonly string[]): void {
  const i = argv.findIndex((a) => a.includes('\uFFFD'))
  if (i !== -1) throw new InvalidError('bad_utf8', `argument ${i + 1} is not valid UTF-8 text`, {argument: i + 1})
}

export abstract class TasksCommand<R> extends Command {
  static override baseFlags = globalFlags
  /** Opened on first use by openSession(); closed when the command ends. */
  protected session: Session | null = null

  /** Run the command against a session and return the result (the --json output). */
  protected abstract execute(): Promise<R>

  /** Text for a person. */
  protected abstract render(result: R, term: Terminal): string

  protected flagsForSession: GlobalFlags & {force?: boolean; reason?: string; session?: string} = {json: false, list: 'main', as: undefined, offline: false}

  /** Set by commands that take --format (chooseFormat); null: text, or JSON with --json. */
  protected format: OutputFormat | null = null

  /** The compact document of a result, for commands that take --format compact. */
  protected renderCompact?(result: R): string

  /** Decide --format/--json/TASKS_FORMAT once the flags are parsed (read commands). */
  protected useFormat(flags: {format?: string; json?: boolean}): void {
    this.format = chooseFormat({format: flags.format, json: flags.json || this.argv.includes('--json')})
  }

  /** Open the session for this invocation (once). */
  protected async openSession(): Promise<Session> {
    if (!this.session) {
      const f = this.flagsForSession
      this.session = await engine().Session.open({cwd: process.cwd(), list: f.list, as: f.as, force: f.force, reason: f.reason, offline: f.offline, json: this.jsonMode(), session: f.session})
    }
    return this.session
  }

  /** Print the --json result: one JSON object on one line. A command with a large result may stream it instead. */
  protected async writeJson(result: R): Promise<void> {
    process.stdout.write(`${JSON.stringify(result)}\n`)
  }

  /** Machine output: --json, --format json, or --format compact (errors and warnings are JSON lines on stderr then). */
  protected jsonMode(): boolean {
    if (this.format !== null) return this.format !== 'text'
    return this.flagsForSession.json || this.argv.includes('--json')
  }

  /** Print human output; `log` overrides it to go through a pager on a terminal. */
  protected async writeHuman(text: string): Promise<void> {
    process.stdout.write(text)
  }

  public async run(): Promise<void> {
    try {
      refuseUndecodableArguments(this.argv)
      let result = await this.execute()
      // A mutation ran: its result says whether it is published (recorded by the transaction, app/session.ts).
      const pub = this.session?.publication() ?? null
      if (pub) result = {...result, published: pub.published}
      if (this.format === 'compact' && this.renderCompact) process.stdout.write(this.renderCompact(result))
      else if (this.jsonMode()) await this.writeJson(result)
      // Renderers see the result with every string neutralized (escape sequences, bidi controls): text from
      // agents and remote collaborators cannot drive the terminal. JSON stays exact.
      else await this.writeHuman(engine().sharingRender.withPublication(this.render(engine().neutralizeDeep(result), engine().detectTerminal()), pub))
    } finally {
      this.session?.close()
    }
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}; code?: string}): Promise<void> {
    // oclif's parse errors need no engine: they become our own one-line usage errors.
    let error = usageFromParseError(err, this.id, this.ctor as unknown as CommandInfo) ?? engine().toTasksError(err)
    // The list is not here: say so better when a remote has it (looked up only on this path).
    if (error.code === 'not_initialised' && this.session) error = await engine().sharing.explainMissingList(this.session, error)
    if (this.jsonMode()) {
      this.session?.close()
      process.stderr.write(`${JSON.stringify(error.toJSON())}\n`)
    } else {
      // Text names items by their short id, as every result line does; JSON keeps the full id.
      const message = this.session ? await engine().withShortIds(this.session, error.message) : error.message
      this.session?.close()
      process.stderr.write(`error: ${neutralize(message)}\n`)
      if (error.code === 'internal' && process.env.TASKS_DEBUG) process.stderr.write(`${err.stack}\n`)
    }
    process.exitCode = error.exitCode
  }
}
