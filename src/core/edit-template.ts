/**
 * The text `tasks edit ID` and `tasks comment ID` put in $EDITOR, and how
 * the saved file is read back. Pure: strings in, strings out.
 *
 * Instructions sit at the end, below a scissors line (as `git commit -v`
 * does): everything from that line down is dropped, so a Markdown heading
 * (`# …`) in a description or comment survives. If the scissors line was
 * deleted, the instruction lines themselves are still removed.
 */

export const SCISSORS = '# ------------------------ >8 ------------------------'

function instructions(lines: string[]): string[] {
  return [SCISSORS, '# Do not change or remove the line above: everything from it down is ignored.', ...lines.map((l) => `# ${l}`)]
}

/** What was typed above the instructions, without trailing blank lines. */
function typedText(saved: string, template: string): string {
  const lines = saved.replace(/\r\n/g, '\n').split('\n')
  const cut = lines.indexOf(SCISSORS)
  let kept = cut === -1 ? lines : lines.slice(0, cut)
  if (cut === -1) {
    const ours = new Set(template.split('\n').filter((l) => l.startsWith('# ')))
    kept = kept.filter((l) => !ours.has(l))
  }
  return kept.join('\n').replace(/\s+$/, '')
}

const editLines = (id: string) =>
  instructions([`Editing ${id}: the first line is the title; the description follows after a blank line.`, 'Save and quit to apply; an empty file aborts and changes nothing.'])

/** Title on the first line, a blank line, the description, then the instructions. */
export function editTemplate(id: string, title: string, body: string): string {
  const text = body.replace(/\s+$/, '')
  return `${title}\n\n${text}${text ? '\n' : ''}\n${editLines(id).join('\n')}\n`
}

/** The title and description of a saved edit template, or null when it was emptied. */
export function parseEditTemplate(saved: string, template: string): {title: string; body: string} | null {
  const text = typedText(saved, template)
  if (text.trim() === '') return null
  const [first, ...rest] = text.split('\n')
  return {title: first!.trim(), body: rest.join('\n').replace(/^\s*\n/, '').replace(/^\n+/, '')}
}

/** An empty comment, then the instructions. */
export function commentTemplate(id: string, kind: string): string {
  return `\n\n${instructions([`Comment (${kind}) on ${id}. Markdown is fine.`, 'Save and quit to post it; an empty file aborts and posts nothing.']).join('\n')}\n`
}

/** The comment text of a saved comment template, or null when it is empty. */
export function parseCommentTemplate(saved: string, template: string): string | null {
  const text = typedText(saved, template).replace(/^\s*\n/, '')
  return text.trim() === '' ? null : text
}
