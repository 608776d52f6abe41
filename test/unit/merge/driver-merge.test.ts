/**
 * The git merge driver's merge of one file (src/merge/driver-merge.ts) and
 * `tasks sync`'s merge of the same triples (mergeFiles): text that cannot be
 * merged is never dropped. The driver leaves it between conflict markers and
 * reports the file as conflicted (issue 14); sync keeps one text and files
 * the other as a comment.
 */
import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {taskDir} from '../../../src/core/ids'
import {CONFIG_PATH, commentPath, taskFilePath} from '../../../src/core/store-layout'
import {type Comment, DEFAULT_CONFIG, type TaskMeta} from '../../../src/core/task'
import {parseCommentFile, parseConfig, parseTaskFile, serialiseComment, serialiseConfig, serialiseTask} from '../../../src/core/task-file'
import {checkBody} from '../../../src/core/validation'
import {normaliseBody} from '../../../src/core/frontmatter'
import {driverMerge} from '../../../src/merge/driver-merge'
import {mergeFiles} from '../../../src/merge/tree-merge'
import type {TaskVersion} from '../../../src/merge/task-merge'
import {NOW, at, baseTask, edit, taskTripleArb} from './arbitraries'

const ID = 'tsk-0123456789'
const PATH = taskFilePath(ID)
const file = (v: TaskVersion): string => serialiseTask(v.meta, v.body)
const MARKER = /^(<{7}|={7}|>{7})( |$)/m

/** Lines of `side`'s description that are not in the base's (the lines that side added). */
function addedLines(base: TaskVersion, side: TaskVersion): string[] {
  const before = new Set(base.body.split('\n'))
  return side.body.split('\n').filter((l) => l.trim() !== '' && !before.has(l))
}

/** Typed text a side changed in the frontmatter: a title, a block note, a cancel reason. */
function typedFields(base: TaskVersion, side: TaskVersion): string[] {
  const out: string[] = []
  for (const k of ['title', 'block_note', 'cancel_reason'] as const) {
    const v = side.meta[k]
    if (v !== undefined && v !== base.meta[k]) out.push(JSON.stringify(v))
  }
  return out
}

describe('driverMerge: never drops text (issue 14)', () => {
  it('the output holds every line either side added to the description, and every changed title and note; clean or conflicted, never silent (property)', () => {
    let clean = 0
    let conflicted = 0
    fc.assert(
      fc.property(taskTripleArb, ([b, o, t]) => {
        const r = driverMerge(PATH, file(b), file(o), file(t), NOW)
        expect(r.content).not.toBeNull()
        const out = r.content!
        const lines = out.split('\n')
        for (const side of [o, t]) {
          for (const line of addedLines(b, side)) expect(lines).toContain(line)
          for (const text of typedFields(b, side)) expect(out).toContain(text)
        }
        const parsed = parseTaskFile(out, ID)
        if (r.clean) {
          clean++
          expect(out).not.toMatch(MARKER)
          expect(parsed.ok).toBe(true)
        } else {
          conflicted++
          // A file left in conflict reads as broken (by path), not as a task with markers in it.
          expect(parsed.ok).toBe(false)
          if (!parsed.ok) expect(parsed.error).toMatch(/unresolved merge conflict markers/)
          expect(r.notes.join('\n')).toMatch(/tasks doctor.*tasks sync/)
        }
      }),
      {numRuns: 1000},
    )
    // Both outcomes are exercised.
    expect(clean).toBeGreaterThan(100)
    expect(conflicted).toBeGreaterThan(100)
  })

  it('`tasks sync` on the same triples: every added line is in the description, or the other side\'s whole text is in a comment by its author (property)', () => {
    let filed = 0
    fc.assert(
      fc.property(taskTripleArb, fc.constantFrom('ours' as const, 'theirs' as const), ([b, o, t], published) => {
        const r = mergeFiles([{path: PATH, base: file(b), ours: file(o), theirs: file(t)}], {now: NOW, published})
        expect(r.conflicted).toEqual([])
        const text = r.files.find((f) => f.path === PATH)!.content!
        expect(text).not.toMatch(MARKER)
        const merged = parseTaskFile(text, ID)
        expect(merged.ok).toBe(true)
        if (!merged.ok) return
        const comments = r.files
          .filter((f) => f.path.startsWith(`${taskDir(ID)}/comments/`))
          .map((f) => {
            const c = parseCommentFile(f.content!, ID, f.path.split('/').pop()!.slice(0, -3))
            if (!c.ok) throw new Error(c.error)
            return c.value
          })
        const body = merged.value.body
        if (r.notes.some((n) => n.kind === 'body_conflict')) {
          filed++
          // One side's text whole; the other's whole text in a note by that side's author.
          const kept = body === normaliseBody(o.body) ? 'ours' : 'theirs'
          expect(body).toBe(normaliseBody(kept === 'ours' ? o.body : t.body))
          const other = kept === 'ours' ? t : o
          const holder = comments.find((c) => c.kind === 'note' && c.author === other.meta.updated_by && c.body.includes(other.body.replace(/\s+$/, '')))
          expect(holder, JSON.stringify(comments)).toBeDefined()
        } else {
          const lines = body.split('\n')
          for (const side of [o, t]) for (const line of addedLines(b, side)) expect(lines).toContain(line)
        }
      }),
      {numRuns: 1000},
    )
    expect(filed).toBeGreaterThan(10)
  })
})

describe('driverMerge: what is left in conflict', () => {
  const base: TaskVersion = {meta: baseTask(), body: 'line one\nline two\nline three\n'}

  it('the issue\'s case: fields merge outside the markers, only the conflicting lines are marked', () => {
    const a: TaskVersion = {meta: edit(base.meta, {priority: 0}, 'alice', 5), body: 'line one changed by a\nline two\nline three\n'}
    const b: TaskVersion = {meta: edit(base.meta, {title: 'title from b'}, 'bob', 6), body: 'line one\nline two changed by b\nline three\n'}
    const r = driverMerge(PATH, file(base), file(b), file(a), NOW)
    expect(r.clean).toBe(false)
    const merged = serialiseTask({...b.meta, priority: 0, revision: b.meta.revision + 1}, '')
    expect(r.content).toBe(
      `${merged}<<<<<<< ours\nline one\nline two changed by b\n=======\nline one changed by a\nline two\n>>>>>>> theirs\nline three\n`,
    )
    expect(r.notes).toEqual([expect.stringMatching(/description was edited on both sides .*left between conflict markers/), expect.stringMatching(/tasks doctor/)])
    expect(r.notes[0]).not.toMatch(/comment/)
  })

  it('non-overlapping edits merge cleanly, with no markers', () => {
    const body = 'a\nb\nc\nd\ne\n'
    const b0: TaskVersion = {meta: baseTask(), body}
    const o: TaskVersion = {meta: edit(b0.meta, {}, 'alice', 5), body: 'A\nb\nc\nd\ne\n'}
    const t: TaskVersion = {meta: edit(b0.meta, {}, 'bob', 6), body: 'a\nb\nc\nd\nE\n'}
    const r = driverMerge(PATH, file(b0), file(o), file(t), NOW)
    expect(r).toMatchObject({clean: true, notes: []})
    expect(parseTaskFile(r.content!, ID)).toMatchObject({ok: true, value: {body: 'A\nb\nc\nd\nE\n'}})
  })

  it('a title both sides changed: the title line between markers, everything else merged', () => {
    const o: TaskVersion = {meta: edit(base.meta, {title: 'Title A', priority: 1}, 'alice', 5), body: base.body}
    const t: TaskVersion = {meta: edit(base.meta, {title: 'Title B', tags: ['backend', 'p1', 'x']}, 'bob', 6), body: base.body}
    const r = driverMerge(PATH, file(base), file(o), file(t), NOW)
    expect(r.clean).toBe(false)
    expect(r.content).toContain('<<<<<<< ours\ntitle: "Title A"\n=======\ntitle: "Title B"\n>>>>>>> theirs\n')
    expect(r.notes[0]).toMatch(/both sides changed title; both values are left between conflict markers/)
    expect(r.content).toMatch(/^priority: 1$/m)
    expect(r.content).toContain('  - "x"\n')
    // Resolving the markers either way gives a readable task.
    const pick = r.content!.replace(/<{7} ours\n(.*\n)={7}\n.*\n>{7} theirs\n/, '$1')
    expect(parseTaskFile(pick, ID)).toMatchObject({ok: true, value: {meta: {title: 'Title A', priority: 1}}})
  })

  it('a superseded claim that carried a block note: each whole claim between markers, at the merged epoch', () => {
    const o: TaskVersion = {meta: edit(base.meta, {status: 'blocked', owner: 'alice', epoch: 2, block_note: 'waiting for the DBA'}, 'alice', 5), body: base.body}
    const t: TaskVersion = {meta: edit(base.meta, {status: 'in_progress', owner: 'bob', epoch: 2, claimed_at: at(1), lease_expires: at(61)}, 'bob', 6), body: base.body}
    const r = driverMerge(PATH, file(base), file(o), file(t), NOW)
    expect(r.clean).toBe(false)
    const out = r.content!
    expect(out).toContain('waiting for the DBA')
    expect(r.notes[0]).toMatch(/lost|superseded.*both claims, with their notes, are left between conflict markers/)
    const [, ours, theirs] = /<{7} ours\n([^]*?)={7}\n([^]*?)>{7} theirs\n/.exec(out)!
    expect(ours).toMatch(/status: "blocked"/)
    expect(ours).toMatch(/owner: "alice"/)
    expect(theirs).toMatch(/status: "in_progress"/)
    expect(theirs).toMatch(/owner: "bob"/)
    // Either resolution is readable and fenced: the epoch moved past both claims' 2.
    for (const side of [ours, theirs]) {
      const resolved = out.replace(/<{7} ours\n[^]*?>{7} theirs\n/, side!)
      const parsed = parseTaskFile(resolved, ID)
      expect(parsed.ok, resolved).toBe(true)
      if (parsed.ok) expect(parsed.value.meta).toMatchObject({epoch: 3, claim_epochs: [2, 3]})
    }
  })

  it('a lost claim with no text in it merges cleanly (the published claim) and says so', () => {
    const o: TaskVersion = {meta: edit(base.meta, {status: 'in_progress', owner: 'alice', epoch: 2}, 'alice', 5), body: base.body}
    const t: TaskVersion = {meta: edit(base.meta, {status: 'in_progress', owner: 'bob', epoch: 2}, 'bob', 6), body: base.body}
    const r = driverMerge(PATH, file(base), file(o), file(t), NOW)
    expect(r.clean).toBe(true)
    expect(parseTaskFile(r.content!, ID)).toMatchObject({ok: true, value: {meta: {owner: 'bob', epoch: 3, claim_epochs: [2, 3]}}})
    expect(r.notes.join('\n')).toMatch(/superseded.*alice.*epoch 2 is refused/)
  })

  it('a task file one side cannot read: both whole versions between markers', () => {
    const o = file({meta: edit(base.meta, {priority: 0}), body: base.body})
    const broken = '---\ntitle: [unclosed\n---\nhand edit\n'
    const r = driverMerge(PATH, file(base), o, broken, NOW)
    expect(r.clean).toBe(false)
    expect(r.content).toBe(`<<<<<<< ours\n${o}=======\n${broken}>>>>>>> theirs\n`)
  })

  it('a comment file written differently on both sides: both whole versions between markers, which then reads as broken', () => {
    const c = (body: string): Comment => ({id: '20261129T120300.000Z-0000abcd', task: ID, kind: 'note', author: 'alice', created_at: at(3), body})
    const path = commentPath(ID, c('').id)
    const o = serialiseComment(c('our text'))
    const t = serialiseComment(c('their text'))
    const r = driverMerge(path, null, o, t, NOW)
    expect(r.clean).toBe(false)
    expect(r.content).toBe(`<<<<<<< ours\n${o}=======\n${t}>>>>>>> theirs\n`)
    expect(r.notes[0]).toMatch(/written on both sides.*both versions are left between conflict markers/)
    expect(parseCommentFile(r.content!, ID, c('').id).ok).toBe(false)
  })

  it('config.yaml: a key both sides changed is marked, other keys merge; an unreadable side is marked whole', () => {
    const base = serialiseConfig({...DEFAULT_CONFIG})
    const o = serialiseConfig({...DEFAULT_CONFIG, lease_seconds: 600, admins: ['alice']})
    const t = serialiseConfig({...DEFAULT_CONFIG, lease_seconds: 900, max_title_bytes: 200})
    const r = driverMerge(CONFIG_PATH, base, o, t, NOW)
    expect(r.clean).toBe(false)
    expect(r.content).toContain('<<<<<<< ours\nlease_seconds: 600\n=======\nlease_seconds: 900\n>>>>>>> theirs\n')
    const resolved = r.content!.replace(/<{7} ours\n(.*\n)={7}\n.*\n>{7} theirs\n/, '$1')
    expect(parseConfig(resolved)).toMatchObject({ok: true, value: {lease_seconds: 600, max_title_bytes: 200, admins: ['alice']}})
    // Set-like lists and one-sided changes stay clean.
    expect(driverMerge(CONFIG_PATH, base, o, serialiseConfig({...DEFAULT_CONFIG, admins: ['bob']}), NOW)).toMatchObject({clean: true})
    const bad = 'lease_seconds: [\n'
    expect(driverMerge(CONFIG_PATH, base, o, bad, NOW)).toMatchObject({clean: false, content: `<<<<<<< ours\n${o}=======\n${bad}>>>>>>> theirs\n`})
  })
})

describe('a description holding conflict markers', () => {
  it('is refused on input (the reader would report the card broken); quoted (indented) markers are text', () => {
    expect(() => checkBody('a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n', DEFAULT_CONFIG)).toThrow(expect.objectContaining({code: 'conflict_markers', exitCode: 5}))
    expect(checkBody('a\n    <<<<<<< ours\n    =======\n    >>>>>>> theirs\n', DEFAULT_CONFIG)).toContain('<<<<<<< ours')
    expect(checkBody('<<<<<<< only a start\n', DEFAULT_CONFIG)).toBe('<<<<<<< only a start\n')
  })

  it('makes a task file unreadable with the line, whatever part of the file holds them', () => {
    const meta: TaskMeta = baseTask()
    const inBody = serialiseTask(meta, 'x\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n')
    expect(parseTaskFile(inBody, ID)).toEqual({ok: false, error: expect.stringMatching(/^unresolved merge conflict markers at line \d+/)})
    const inFrontmatter = serialiseTask(meta, '').replace(/^title: .*$/m, '<<<<<<< ours\ntitle: "A"\n=======\ntitle: "B"\n>>>>>>> theirs')
    expect(parseTaskFile(inFrontmatter, ID)).toEqual({ok: false, error: expect.stringMatching(/^unresolved merge conflict markers at line 3:/)})
  })
})
