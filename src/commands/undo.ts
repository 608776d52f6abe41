import type {UndoOutput} from '../app/undo'
import {engine} from './engine-loader'
import {undo} from '../operations/history'
import {commandFrom} from './from-spec'

export default commandFrom<UndoOutput>(undo, {
  render: (r, term) => {
    const what = [...r.restored.map((t) => `restored ${t.id}  ${t.title}`), ...r.removed.map((t) => `removed ${t.id}  ${t.title}`), ...r.files.map((f) => `${f.change === 'removed' ? 'removed' : 'put back'} ${f.path}`)]
    return `undid ${engine().paint(term, 'yellow', r.undone.slice(0, 10))}  ${r.subject}\n${what.map((w) => `  ${w}\n`).join('')}`
  },
})
