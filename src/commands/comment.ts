import {Args, Flags} from '@oclif/core'
import {TasksCommand, revisionFlag} from './base-command'
import {engine} from './engine-loader'
import {COMMENT_KINDS, type Comment} from '../core/task'
import {UsageError} from '../core/errors'
import {commentFromEditor, interactive, keepTextOnFailure} from './editor'
import {readInputFile} from './input-file'
import type {Terminal} from '../render/terminal'

type Output = {comment: Comment; commit: string | null}

export default class CommentCommand extends TasksCommand<Output> {
  static override summary = 'Comment on a task: a note, decision, problem, lesson or knowledge.'
  static override args = {
    id: Args.string({ignoreStdin: true, required: true, description: 'task id or unique prefix'}),
    text: Args.string({ignoreStdin: true, description: 'the comment (or --file)'}),
  }
  static override flags = {
    kind: Flags.string({char: 'k', description: 'Kind of comment.', options: [...COMMENT_KINDS], default: 'note'}),
    file: Flags.string({description: 'Read the comment from a file (- for stdin).'}),
    ...revisionFlag,
  }
  static override description = 'With neither TEXT nor --file on a terminal, opens $VISUAL or $EDITOR (else vi) for the text.'
  static override examples = ['<%= config.bin %> comment tsk-k3v9 "Chose CAS over locks" --kind decision', '<%= config.bin %> comment tsk-k3v9 --file - < notes.md']

  protected async execute(): Promise<Output> {
    const {args, flags} = await this.parse(CommentCommand)
    this.flagsForSession = flags
    if (args.text !== undefined && flags.file !== undefined) throw new UsageError('pass the comment TEXT or --file, not both')
    let text: string
    let fromEditor = false
    if (flags.file !== undefined) text = readInputFile(flags.file, 'comment')
    else if (args.text !== undefined) text = args.text
    else if (interactive()) {
      text = commentFromEditor(args.id, flags.kind)
      fromEditor = true
    } else throw new UsageError('pass the comment TEXT, or --file PATH (- for stdin); on a terminal, `tasks comment ID` opens $EDITOR')
    const post = async () => engine().actions.comment(await this.openSession(), args.id, text, flags.kind, flags['if-revision'])
    return fromEditor ? keepTextOnFailure(text, args.id, post) : post()
  }

  protected render(r: Output, term: Terminal): string {
    return `commented on ${engine().paint(term, 'yellow', r.comment.task)} [${r.comment.kind}]\n`
  }
}
