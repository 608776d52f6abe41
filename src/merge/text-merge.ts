/**
 * Line-based 3-way merge of free text (task descriptions, unknown files):
 * diff3 over a Myers diff of lines. This module owns the diff, the chunk
 * rules and the rendering of git-style conflict markers; it never decides
 * which side wins a conflict. `tasks sync` keeps one text and files the other
 * as a comment; the git merge driver writes the regions with markers
 * (renderConflict) and lets the person resolve them.
 *
 * Pure and deterministic: values in, values out.
 */

/**
 * One region of a merged text: merged cleanly, or changed differently on
 * both sides (with the three versions of that region).
 */
export type MergeRegion = {conflict: false; text: string} | {conflict: true; base: string; ours: string; theirs: string}

/**
 * Result of a 3-way text merge. On conflict both sides come back whole, and
 * `regions` cut the text into the parts that merged (non-overlapping edits
 * applied) and the parts that did not, in order.
 */
export type TextMergeResult = {clean: true; text: string} | {clean: false; ours: string; theirs: string; regions: MergeRegion[]}

/** Labels of the two sides in conflict markers. */
export interface ConflictLabels {
  ours: string
  theirs: string
}

/** Git's conflict marker lines: seven characters, then a space and a label. */
export const MARKER_SIZE = 7

const withNewline = (s: string): string => (s === '' || s.endsWith('\n') ? s : `${s}\n`)

/**
 * Text with git-style conflict markers (`<<<<<<< ours`, `=======`,
 * `>>>>>>> theirs`, git's default "merge" style) around every conflicting
 * region; the clean regions as they merged. Every line of both sides of a
 * conflict is in the output, so nothing is lost until a person resolves it.
 */
export function renderConflict(regions: readonly MergeRegion[], labels: ConflictLabels): string {
  const out: string[] = []
  for (const r of regions) {
    if (!r.conflict) out.push(r.text)
    else {
      // A region that does not end with a newline (the end of the text) must not glue onto a marker.
      const prev = out.length > 0 ? out[out.length - 1]! : ''
      if (prev !== '' && !prev.endsWith('\n')) out.push('\n')
      out.push(`${'<'.repeat(MARKER_SIZE)} ${labels.ours}\n`, withNewline(r.ours), `${'='.repeat(MARKER_SIZE)}\n`, withNewline(r.theirs), `${'>'.repeat(MARKER_SIZE)} ${labels.theirs}\n`)
    }
  }
  return out.join('')
}

/**
 * Two versions of a text that differ in one stretch (the same text with one
 * choice made differently) as one conflict: the common leading and trailing
 * lines once, the differing lines between them as a conflict region.
 */
export function twoWayRegions(ours: string, theirs: string): MergeRegion[] {
  if (ours === theirs) return [{conflict: false, text: ours}]
  const a = splitLines(ours)
  const b = splitLines(theirs)
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let post = 0
  while (post < a.length - pre && post < b.length - pre && a[a.length - 1 - post] === b[b.length - 1 - post]) post++
  const regions: MergeRegion[] = []
  if (pre > 0) regions.push({conflict: false, text: a.slice(0, pre).join('')})
  regions.push({conflict: true, base: '', ours: a.slice(pre, a.length - post).join(''), theirs: b.slice(pre, b.length - post).join('')})
  if (post > 0) regions.push({conflict: false, text: a.slice(a.length - post).join('')})
  return regions
}


/**
 * Split text into lines, each keeping its `\n` terminator (the last line may
 * have none). Concatenating the lines gives the text back byte for byte.
 */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

/**
 * Pairs of equal lines of a longest common subsequence of `a` and `b`
 * (Myers' O(ND) algorithm, linear-space "middle snake" variant), as
 * `match[i] = j` (line i of a equals line j of b) or -1 for unmatched lines.
 * Deterministic: the same inputs always give the same matching.
 */
export function matchLines(a: readonly string[], b: readonly string[]): Int32Array {
  // Intern lines to integers so that every comparison is a number compare.
  const ids = new Map<string, number>()
  const intern = (s: string): number => {
    let id = ids.get(s)
    if (id === undefined) ids.set(s, (id = ids.size))
    return id
  }
  const A0 = Int32Array.from(a, intern)
  const B0 = Int32Array.from(b, intern)
  // A line that occurs on one side only can never be matched: leave it out of
  // the search (as GNU diff does). The LCS is the same, and a rewritten text
  // costs nothing instead of O((N+M)·D).
  const inA = new Uint8Array(ids.size)
  const inB = new Uint8Array(ids.size)
  for (const x of A0) inA[x] = 1
  for (const x of B0) inB[x] = 1
  const aIdx = [...A0.keys()].filter((i) => inB[A0[i]!])
  const bIdx = [...B0.keys()].filter((j) => inA[B0[j]!])
  const A = Int32Array.from(aIdx, (i) => A0[i]!)
  const B = Int32Array.from(bIdx, (j) => B0[j]!)
  const sub = new Int32Array(A.length).fill(-1)
  const max = A.length + B.length + 2
  const vf = new Int32Array(2 * max + 1)
  const vb = new Int32Array(2 * max + 1)
  diffRange(A, 0, A.length, B, 0, B.length, sub, vf, vb, max)
  const match = new Int32Array(a.length).fill(-1)
  for (let i = 0; i < sub.length; i++) if (sub[i]! >= 0) match[aIdx[i]!] = bIdx[sub[i]!]!
  return match
}

function diffRange(
  A: Int32Array,
  aLo: number,
  aHi: number,
  B: Int32Array,
  bLo: number,
  bHi: number,
  match: Int32Array,
  vf: Int32Array,
  vb: Int32Array,
  off: number,
): void {
  // Iterative on the right half, recursive on the left: depth stays O(log D).
  for (;;) {
    while (aLo < aHi && bLo < bHi && A[aLo] === B[bLo]) match[aLo++] = bLo++
    while (aLo < aHi && bLo < bHi && A[aHi - 1] === B[bHi - 1]) match[--aHi] = --bHi
    if (aLo === aHi || bLo === bHi) return
    const [x, y, u, v] = middleSnake(A, aLo, aHi, B, bLo, bHi, vf, vb, off)
    diffRange(A, aLo, x, B, bLo, y, match, vf, vb, off)
    for (let i = x, j = y; i < u; i++, j++) match[i] = j
    aLo = u
    bLo = v
  }
}

/**
 * The middle snake of Myers' paper (section 4b) for A[aLo,aHi) × B[bLo,bHi):
 * returns its start (x, y) and end (u, v) in absolute coordinates. Called only
 * when both ranges are non-empty and share no common prefix or suffix, so the
 * edit distance is at least 2 and both halves are strictly smaller.
 */
function middleSnake(
  A: Int32Array,
  aLo: number,
  aHi: number,
  B: Int32Array,
  bLo: number,
  bHi: number,
  vf: Int32Array,
  vb: Int32Array,
  off: number,
): [number, number, number, number] {
  const n = aHi - aLo
  const m = bHi - bLo
  const delta = n - m
  const odd = (delta & 1) !== 0
  const dMax = Math.ceil((n + m) / 2)
  vf[off + 1] = 0
  vb[off + 1] = 0
  for (let d = 0; d <= dMax; d++) {
    // Forward paths from (0, 0).
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && vf[off + k - 1]! < vf[off + k + 1]!) ? vf[off + k + 1]! : vf[off + k - 1]! + 1
      let y = x - k
      const xs = x
      const ys = y
      while (x < n && y < m && A[aLo + x] === B[bLo + y]) x++, y++
      vf[off + k] = x
      const kb = delta - k
      if (odd && kb >= -(d - 1) && kb <= d - 1 && x + vb[off + kb]! >= n) {
        return [aLo + xs, bLo + ys, aLo + x, bLo + y]
      }
    }
    // Backward paths from (n, m), in reversed coordinates.
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && vb[off + k - 1]! < vb[off + k + 1]!) ? vb[off + k + 1]! : vb[off + k - 1]! + 1
      let y = x - k
      const xs = x
      const ys = y
      while (x < n && y < m && A[aHi - 1 - x] === B[bHi - 1 - y]) x++, y++
      vb[off + k] = x
      const kf = delta - k
      if (!odd && kf >= -d && kf <= d && x + vf[off + kf]! >= n) {
        return [aLo + n - x, bLo + m - y, aLo + n - xs, bLo + m - ys]
      }
    }
  }
  throw new Error('internal: no middle snake')
}

/** One region of a 3-way merge: lines of base, ours and theirs. */
interface Chunk {
  base: string[]
  ours: string[]
  theirs: string[]
  stable: boolean
}

/**
 * Cut base/ours/theirs into alternating stable chunks (lines of base that
 * both sides kept, in place) and unstable chunks (everything between), as
 * diff3 does.
 */
function chunks(base: string[], ours: string[], theirs: string[]): Chunk[] {
  const mo = matchLines(base, ours)
  const mt = matchLines(base, theirs)
  const out: Chunk[] = []
  let o = 0
  let a = 0
  let b = 0
  while (o < base.length || a < ours.length || b < theirs.length) {
    let j = 0
    while (o + j < base.length && mo[o + j] === a + j && mt[o + j] === b + j) j++
    if (j > 0) {
      out.push({base: base.slice(o, o + j), ours: ours.slice(a, a + j), theirs: theirs.slice(b, b + j), stable: true})
      o += j
      a += j
      b += j
      continue
    }
    let next = o
    while (next < base.length && (mo[next] === -1 || mt[next] === -1)) next++
    const aEnd = next < base.length ? mo[next]! : ours.length
    const bEnd = next < base.length ? mt[next]! : theirs.length
    out.push({base: base.slice(o, next), ours: ours.slice(a, aEnd), theirs: theirs.slice(b, bEnd), stable: false})
    o = next
    a = aEnd
    b = bEnd
  }
  return out
}

function sameLines(x: readonly string[], y: readonly string[]): boolean {
  if (x.length !== y.length) return false
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false
  return true
}

/**
 * 3-way merge of text by lines. A region changed on one side takes that
 * side; a region changed identically on both sides is taken once; a region
 * changed differently on both sides (overlapping or adjacent edits) is a
 * conflict, and then both texts are returned whole so the caller can keep
 * one and file the other, with the regions for a caller that renders
 * conflict markers (renderConflict). Never emits markers itself.
 *
 * Symmetric: swapping ours and theirs gives the same clean text.
 */
export function mergeText(base: string, ours: string, theirs: string): TextMergeResult {
  if (ours === theirs || theirs === base) return {clean: true, text: ours}
  if (ours === base) return {clean: true, text: theirs}
  // Chunks of lines are joined, never spread into push(): a file of many
  // short lines (a hand-edited body, a raised size limit) would overflow the stack.
  const merged: string[] = []
  const regions: MergeRegion[] = []
  const flush = (): void => {
    if (merged.length > 0) regions.push({conflict: false, text: merged.join('')})
    merged.length = 0
  }
  for (const c of chunks(splitLines(base), splitLines(ours), splitLines(theirs))) {
    if (c.stable || sameLines(c.ours, c.theirs) || sameLines(c.theirs, c.base)) merged.push(c.ours.join(''))
    else if (sameLines(c.ours, c.base)) merged.push(c.theirs.join(''))
    else {
      flush()
      regions.push({conflict: true, base: c.base.join(''), ours: c.ours.join(''), theirs: c.theirs.join('')})
    }
  }
  if (regions.length === 0) return {clean: true, text: merged.join('')}
  flush()
  return {clean: false, ours, theirs, regions}
}
