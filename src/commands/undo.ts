import {TasksCommand} from './base-command'
import type {UndoOutput} from '../app/undo'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Undo extends TasksCommand<UndoOutput> {
  static override summary = 'Take back your last change to the list, as a new commit.'
  static override description =
    'Reverts the newest commit whose actor is you (Tasks-Undo: <commit> in the new one). Refused (exit 4, undo_conflict) when a later commit, by anyone, touched the same tasks. Undoing an undo redoes.'
  static override examples = ['<%= config.bin %> undo', '<%= config.bin %> undo --json']

  protected async execute(): Promise<UndoOutput> {
    const {flags} = await this.parse(Undo)
    this.flagsForSession = flags
    return engine().undo(await this.openSession())
  }

  protected render(r: UndoOutput, term: Terminal): string {
    const what = [...r.restored.map((t) => `restored ${t.id}  ${t.title}`), ...r.removed.map((t) => `removed ${t.id}  ${t.title}`), ...r.files.map((f) => `${f.change === 'removed' ? 'removed' : 'put back'} ${f.path}`)]
    return `undid ${engine().paint(term, 'yellow', r.undone.slice(0, 10))}  ${r.subject}\n${what.map((w) => `  ${w}\n`).join('')}`
  }
}
