/**
 * A unified diff of two texts (`diff -u` without the file header): the
 * lines of each hunk, `@@ -a,b +c,d @@` then ` ` context, `-` removed and
 * `+` added lines, without their line feeds. Lines are matched by the merge
 * engine's longest common subsequence (text-merge.ts `matchLines`), so a
 * diff and a merge agree on what changed. Pure.
 */
import {matchLines, splitLines} from './text-merge'

const strip = (line: string): string => (line.endsWith('\n') ? line.slice(0, -1) : line)

/** The hunks of `before` → `after` as lines; empty when the texts are the same. */
export function unifiedDiff(before: string, after: string, context = 3): string[] {
  if (before === after) return []
  const a = splitLines(before)
  const b = splitLines(after)
  const match = matchLines(a, b)
  // The edit script as a sequence of [kind, line index in a, line index in b].
  type Op = {kind: ' ' | '-' | '+'; i: number; j: number}
  const ops: Op[] = []
  let j = 0
  for (let i = 0; i < a.length; i++) {
    const m = match[i]!
    if (m < 0) {
      ops.push({kind: '-', i, j})
      continue
    }
    while (j < m) ops.push({kind: '+', i, j: j++})
    ops.push({kind: ' ', i, j: j++})
  }
  while (j < b.length) ops.push({kind: '+', i: a.length, j: j++})
  // A text whose last line lost or gained its line feed differs only there.
  const noNewline = '\\ No newline at end of file'
  const out: string[] = []
  let k = 0
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++
    if (k >= ops.length) break
    // A hunk: `context` lines before the first change, changes joined while at most 2×context lines apart.
    const start = Math.max(0, k - context)
    let end = k
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++
      let same = end
      while (same < ops.length && ops[same]!.kind === ' ') same++
      if (same < ops.length && same - end <= 2 * context) end = same
      else {
        end = Math.min(ops.length, end + context)
        break
      }
    }
    const hunk = ops.slice(start, end)
    const aLines = hunk.filter((o) => o.kind !== '+')
    const bLines = hunk.filter((o) => o.kind !== '-')
    const aStart = aLines.length ? aLines[0]!.i + 1 : hunk[0]!.i
    const bStart = bLines.length ? bLines[0]!.j + 1 : hunk[0]!.j
    out.push(`@@ -${aStart}${aLines.length === 1 ? '' : `,${aLines.length}`} +${bStart}${bLines.length === 1 ? '' : `,${bLines.length}`} @@`)
    for (const o of hunk) {
      const line = o.kind === '+' ? b[o.j]! : a[o.i]!
      out.push(`${o.kind}${strip(line)}`)
      if (!line.endsWith('\n')) out.push(noNewline)
    }
    k = end
  }
  return out
}
