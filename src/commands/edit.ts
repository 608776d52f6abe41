import type {TaskResult} from '../app/task-results'
import {UsageError} from '../core/errors'
import {edit} from '../operations/cards'
import {editTaskInEditor, interactive} from './editor'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

type Output = TaskResult & {fields: string[]; checks_reset?: string[]}

export default commandFrom<Output>(edit, {
  execute: async ({args, run, session}) => {
    // Issue 33: the dates, the repeat interval and custom fields are edits too.
    const given = ['title', 'body', 'type', 'priority', 'addTags', 'removeTags', 'session', 'due', 'scheduled', 'every', 'field', 'unsetField'].some((k) => args[k] !== undefined)
    if (!given && interactive()) return editTaskInEditor(await session(), args.id, args.ifRevision, args.reason)
    if (!given) throw new UsageError('nothing to edit: pass --title, --body, --body-file, --type, --priority, --add-tags, --remove-tags, --due, --scheduled, --every, --field or --unset-field (on a terminal, `tasks edit ID` alone opens $EDITOR)')
    return run(args)
  },
  render: (r, term) => engine().render.renderTaskLine(term, r.fields.length ? 'edited' : 'unchanged', r.task, r.fields.join(', ')),
})
