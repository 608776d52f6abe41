import type {TaskResult} from '../app/task-results'
import {block} from '../operations/claims'
import {engine} from './engine-loader'
import {commandFrom} from './from-spec'

/**
 * A blocked card is held: blocking a todo item takes it for the actor (docs/model.md),
 * so the line says who holds it now and how to give it back, never silently.
 */
export default commandFrom<TaskResult>(block, {
  render: (r, term) => {
    const line = engine().render.renderTaskLine(term, 'blocked', r.task, r.task.block_note ?? '')
    const t = r.task
    return t.owner ? `${line}held by ${t.owner} (epoch ${t.epoch}); \`tasks release ${t.short_id}\` gives it back, \`tasks claim ${t.short_id}\` resumes it\n` : line
  },
})
