/**
 * Node labels of the drawn graph, measured without a browser: an estimate of
 * how wide a string is in DejaVu Sans (the usual sans-serif on Linux, and
 * among the widest; Arial, Helvetica and Segoe UI are narrower), titles
 * wrapped at word boundaries into a few lines, and a node's size from its
 * lines. The SVG names DejaVu Sans first, so a browser draws with the font
 * the sizes were measured for, or a narrower one: text never leaves its box.
 * Pure.
 */
import type {GraphNode} from '../core/task-graph'

/** Advance widths of DejaVu Sans, in em, for printable ASCII (0x20 … 0x7e). */
// prettier-ignore
const ASCII_EM = [
  0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838, 0.318, 0.361, 0.318, 0.337,
  0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531,
  1.000, 0.684, 0.686, 0.698, 0.770, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787,
  0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.390, 0.337, 0.390, 0.838, 0.500,
  0.500, 0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612,
  0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838,
]

/** Wide (East Asian, emoji) code points take a full em or more. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/u
/** Marks drawn over the previous character take no room. */
const COMBINING = /\p{M}|[\u200b-\u200f\ufe00-\ufe0f]/u

/** Width of one character in em (an estimate on the generous side for anything outside ASCII). */
function charEm(ch: string): number {
  const c = ch.codePointAt(0)!
  if (c >= 0x20 && c <= 0x7e) return ASCII_EM[c - 0x20]!
  if (COMBINING.test(ch)) return 0
  if (WIDE.test(ch)) return 1.25
  return 0.8
}

/** Estimated width of `text` in px at `size` px (bold adds ~10%). */
export function textWidth(text: string, size: number, bold = false): number {
  let em = 0
  for (const ch of text) em += charEm(ch)
  return em * size * (bold ? 1.1 : 1)
}

/** One line: controls and line breaks become spaces, runs of spaces one. */
export function flatText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim()
}

/** `text` cut to fit `width` px, with an ellipsis when anything was cut. */
export function fitText(text: string, width: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= width) return text
  const chars = [...text]
  const ell = textWidth('…', size, bold)
  let w = 0
  let n = 0
  while (n < chars.length && w + textWidth(chars[n]!, size, bold) + ell <= width) w += textWidth(chars[n++]!, size, bold)
  return `${chars.slice(0, n).join('').trimEnd()}…`
}

/**
 * `text` wrapped into lines no wider than `width` px, at most `maxLines`:
 * words are kept whole where they fit (a word longer than a line is broken),
 * and the last line ends in an ellipsis only when text was left over.
 */
export function wrapText(text: string, width: number, size: number, maxLines: number): string[] {
  const words = flatText(text).split(' ').filter(Boolean)
  const lines: string[] = []
  let line = ''
  let cut = false
  for (let i = 0; i < words.length && !cut; i++) {
    let word = words[i]!
    while (word && !cut) {
      const joined = line ? `${line} ${word}` : word
      if (textWidth(joined, size) <= width) {
        line = joined
        word = ''
      } else if (line) {
        lines.push(line)
        line = ''
        cut = lines.length === maxLines
      } else {
        // A word wider than a whole line: break it where the line is full.
        const chars = [...word]
        let w = 0
        let n = 0
        while (n < chars.length && w + textWidth(chars[n]!, size) <= width) w += textWidth(chars[n++]!, size)
        n = Math.max(1, n)
        lines.push(chars.slice(0, n).join(''))
        word = chars.slice(n).join('')
        cut = lines.length === maxLines && (word !== '' || i < words.length - 1)
      }
    }
  }
  if (line) {
    if (lines.length < maxLines) lines.push(line)
    else cut = true
  }
  if (cut) {
    const chars = [...lines[maxLines - 1]!]
    while (chars.length > 0 && textWidth(`${chars.join('')}…`, size) > width) chars.pop()
    lines[maxLines - 1] = `${chars.join('').trimEnd()}…`
  }
  return lines
}

/** Sizes of a node's label, in px. */
export const LABEL = {
  /** Title text size. */
  title: 12.5,
  /** Id, priority, state and owner text size. */
  meta: 11,
  /** Line height of the title. */
  line: 16,
  /** Inner padding. */
  pad: 8,
  /** The widest a title line may be before it wraps. */
  wrap: 184,
  /** Title lines at most (then an ellipsis; the full title is in the tooltip). */
  maxLines: 3,
  /** The narrowest node. */
  minWidth: 150,
  /** Height of the id row and of the state row. */
  row: 17,
}

export interface NodeLabel {
  width: number
  height: number
  /** The id (short) and the priority, on the first row. */
  id: string
  priority: string
  /** The title, wrapped. */
  lines: string[]
  /** The state as a badge on the last row, and the owner (or `→ assignee`) after it, cut to fit. */
  state: string
  stateWidth: number
  who: string
}

/** A node's label laid out in rows (id and priority; the title's lines; state and owner), and the box that holds it. */
export function nodeLabel(n: GraphNode): NodeLabel {
  const lines = wrapText(n.title, LABEL.wrap, LABEL.title, LABEL.maxLines)
  if (lines.length === 0) lines.push('(untitled)')
  const state = n.state.replace('_', ' ')
  const stateWidth = textWidth(state, LABEL.meta) + 12
  const whoFull = n.owner ? n.owner : n.assignee ? `→ ${n.assignee}` : ''
  const titleW = Math.max(...lines.map((l) => textWidth(l, LABEL.title)))
  const idW = textWidth(n.short_id, LABEL.meta, true) + 8 + textWidth(`P${n.priority}`, LABEL.meta)
  const whoW = whoFull ? stateWidth + 8 + Math.min(textWidth(whoFull, LABEL.meta), LABEL.wrap - stateWidth - 8) : stateWidth
  const inner = Math.min(LABEL.wrap, Math.max(titleW, idW, whoW))
  const width = Math.ceil(Math.max(LABEL.minWidth, inner + LABEL.pad * 2))
  const who = whoFull ? fitText(whoFull, width - LABEL.pad * 2 - stateWidth - 8, LABEL.meta) : ''
  const height = Math.ceil(LABEL.pad + LABEL.row + lines.length * LABEL.line + 4 + LABEL.row + LABEL.pad - 2)
  return {width, height, id: n.short_id, priority: `P${n.priority}`, lines, state, stateWidth, who}
}
