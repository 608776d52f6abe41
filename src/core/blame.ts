/**
 * Blame of one card: for each of its fields (core/field-changes.ts
 * `cardFields`, the description left out) and each line of its
 * description, the commit that set the value it holds now. Pure: the
 * versions of the card along its history go in, newest first (as git walks), one commit at
 * a time; the attribution comes out.
 *
 * The walk is git blame's, over the card's own history (the commits that
 * changed its task.md, with their parents rewritten to the previous such
 * commit: `git log --parents -- <path>`). Every value still to
 * be explained sits at a commit. At that commit, a value one of its parents
 * holds too passes to the first such parent (the value was already there);
 * a value no parent holds was made by this commit, which is blamed for it.
 * For an ordinary commit that is "the newest commit whose change set it".
 * For a `sync` merge, a value that came from one side passes into that
 * side's history and ends at the commit there that set it, while a value
 * the merge itself produced (a reconciler repair, a resolved conflict, two
 * description edits folded together) differs from both sides and is the
 * merge's. Description lines pass through a line match instead of an
 * equality: the caller hands in merge/text-merge.ts `matchLines` (the core
 * does not import the merge engine).
 *
 * The walk is done as soon as every value is explained, so the caller can
 * stop reading history there.
 */
import {type CardVersion, cardChanges, cardFields} from './field-changes'

/** The commit a value is blamed on. */
export interface BlameCommit {
  commit: string
  /** The Actor trailer, else the commit author. */
  actor: string
  /** Author date, ISO-8601 as recorded. */
  date: string
  /** The Tasks-Op trailer (add, edit, claim, sync, …). */
  op: string
}

export interface FieldBlame extends BlameCommit {
  /** A TaskMeta key or `fields.<name>`. */
  field: string
  value: unknown
}

export interface LineBlame extends BlameCommit {
  /** 1-based line number in the description. */
  line: number
  text: string
}

/** One step of the walk: a commit of the card's history, the card there, and the card at each of its (rewritten) parents. */
export interface BlameStep extends BlameCommit {
  /** The card as this commit left it (null: it had no card). */
  version: CardVersion | null
  /** The card's previous commits in its history (a merge has several), each with the card there (null: none). */
  parents: ReadonlyArray<{commit: string; version: CardVersion | null}>
}

/** The description as lines: a final newline ends the last line, it does not start another. */
export function descriptionLines(body: string): string[] {
  if (body === '') return []
  return (body.endsWith('\n') ? body.slice(0, -1) : body).split('\n')
}

/** For each line of `a`, the index of the line of `b` it matches, or -1 (a longest common subsequence). */
export type LineMatcher = (a: readonly string[], b: readonly string[]) => ArrayLike<number>

interface Waiting {
  /** Fields (by name) waiting here, each with the commit that passed it on (for a history that ends early). */
  fields: Map<string, BlameCommit>
  /** Line index in the card as this commit has it → the description lines (0-based, current) waiting on it, with who passed them. */
  lines: Map<number, Array<{line: number; via: BlameCommit}>>
}

/**
 * The walk. `new BlameWalk(current, matchLines)` with the card as blamed; then `step`
 * for each commit of its history, the first being the newest commit that
 * changed the card (its version is `current`), and again for any commit in
 * `waitingAt()` that was stepped before values reached it; `done`
 * once every value is explained; `result()` at any point after that (or at
 * the end of the history: what is still open is blamed on the oldest commit
 * that held it).
 */
export class BlameWalk {
  private readonly values: Map<string, unknown>
  private readonly lineTexts: string[]
  private readonly fieldBlame = new Map<string, BlameCommit>()
  private readonly lineBlame: Array<BlameCommit | null>
  private readonly waiting = new Map<string, Waiting>()
  private open: number
  private started = false
  /** Commits stepped through, for measurements and tests. */
  steps = 0

  constructor(
    readonly current: CardVersion,
    private readonly matchLines: LineMatcher,
  ) {
    this.values = cardFields(current)
    this.values.delete('description')
    this.lineTexts = descriptionLines(current.body)
    this.lineBlame = this.lineTexts.map(() => null)
    this.open = this.values.size + this.lineTexts.length
  }

  get done(): boolean {
    return this.open === 0
  }

  /** The commits values wait on now (each is to be stepped, again if it was already: see `step`). */
  waitingAt(): IterableIterator<string> {
    return this.waiting.keys()
  }

  /** Whether anything waits on `commit` (the caller may skip reading what it does not need). */
  wants(commit: string): boolean {
    return !this.started || this.waiting.has(commit)
  }

  /**
   * Explain what waits on this commit: pass each value on to a parent or
   * blame it here. A commit nothing waits on is passed over; one stepped
   * before values reached it (a history read in date order, where a parent
   * dated after its child by another clone's clock comes first) is simply
   * stepped again for them: each value's way is its own.
   */
  step(s: BlameStep): void {
    this.steps++
    let here: Waiting | undefined
    if (!this.started) {
      this.started = true
      here = {fields: new Map([...this.values.keys()].map((f) => [f, s])), lines: new Map(this.lineTexts.map((_, i) => [i, [{line: i, via: s as BlameCommit}]]))}
    } else {
      here = this.waiting.get(s.commit)
      this.waiting.delete(s.commit)
    }
    if (!here) return
    const by: BlameCommit = {commit: s.commit, actor: s.actor, date: s.date, op: s.op}
    const parents = s.version === null ? [] : s.parents.filter((p) => p.version !== null)
    // Fields: to the first parent whose value is the same (cardChanges does not list it), else this commit's.
    const changed = parents.map((p) => new Set(cardChanges(p.version, s.version).map((c) => c.field)))
    for (const field of here.fields.keys()) {
      const i = changed.findIndex((set) => !set.has(field))
      if (i === -1) this.blameField(field, by)
      else this.wait(parents[i]!.commit).fields.set(field, by)
    }
    // Lines: to the first parent where the line matches one of its lines, else this commit's.
    if (here.lines.size > 0) {
      const mine = s.version ? descriptionLines(s.version.body) : []
      const matches = parents.map((p) => this.matchLines(mine, descriptionLines(p.version!.body)))
      for (const [index, lines] of here.lines) {
        const i = matches.findIndex((m) => (m[index] ?? -1) >= 0)
        if (i === -1) {
          for (const l of lines) this.blameLine(l.line, by)
          continue
        }
        const at = matches[i]![index]!
        const there = this.wait(parents[i]!.commit).lines
        const list = there.get(at) ?? []
        for (const l of lines) list.push({line: l.line, via: by})
        there.set(at, list)
      }
    }
  }

  /** The attribution: every field and line; what still waits when the history ended is blamed on the last commit that held it. */
  result(): {fields: FieldBlame[]; lines: LineBlame[]} {
    for (const w of this.waiting.values()) {
      for (const [field, via] of w.fields) this.blameField(field, via)
      for (const lines of w.lines.values()) for (const l of lines) this.blameLine(l.line, l.via)
    }
    this.waiting.clear()
    const fields: FieldBlame[] = []
    for (const [field, value] of this.values) {
      const b = this.fieldBlame.get(field)
      if (b) fields.push({field, value, ...b})
    }
    const lines: LineBlame[] = []
    this.lineTexts.forEach((text, i) => {
      const b = this.lineBlame[i]
      if (b) lines.push({line: i + 1, text, ...b})
    })
    return {fields, lines}
  }

  private wait(commit: string): Waiting {
    let w = this.waiting.get(commit)
    if (!w) this.waiting.set(commit, (w = {fields: new Map(), lines: new Map()}))
    return w
  }

  private blameField(field: string, by: BlameCommit): void {
    if (this.fieldBlame.has(field)) return
    this.fieldBlame.set(field, strip(by))
    this.open--
  }

  private blameLine(line: number, by: BlameCommit): void {
    if (this.lineBlame[line]) return
    this.lineBlame[line] = strip(by)
    this.open--
  }
}

function strip(b: BlameCommit): BlameCommit {
  return {commit: b.commit, actor: b.actor, date: b.date, op: b.op}
}

