import type {Comment} from '../core/task'
import {UsageError} from '../core/errors'
import {comment} from '../operations/cards'
import {commentFromEditor, interactive, keepTextOnFailure} from './editor'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

export default commandFrom<{comment: Comment; created: boolean; commit: string | null}>(comment, {
  // Neither TEXT nor --file on a terminal: the text comes from $EDITOR, and is kept if writing it fails.
  execute: ({args, run}) => {
    if (args.text !== undefined) return run(args)
    if (!interactive()) throw new UsageError('pass the comment TEXT, or --file PATH (- for stdin); on a terminal, `tasks comment ID` opens $EDITOR')
    const text = commentFromEditor(args.id, args.kind)
    return keepTextOnFailure(text, args.id, () => run({...args, text}))
  },
  render: (r, term) => (r.created ? `commented on ${engine().paint(term, 'yellow', r.comment.task)} [${r.comment.kind}]\n` : `already commented on ${engine().paint(term, 'yellow', r.comment.task)} with key ${r.comment.key} (${r.comment.id}): nothing recorded\n`),
})
