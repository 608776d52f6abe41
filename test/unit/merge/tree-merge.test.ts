import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {idFromSeed, taskDir} from '../../../src/core/ids'
import {CONFIG_PATH, META_PATH, commentPath, taskFilePath} from '../../../src/core/store-layout'
import {type Comment, DEFAULT_CONFIG, type TaskMeta} from '../../../src/core/task'
import {parseCommentFile, parseConfig, parseTaskFile, serialiseComment, serialiseConfig, serialiseMeta, serialiseTask} from '../../../src/core/task-file'
import {type FileVersions, type FilesMergeContext, type MergedFile, mergeFiles} from '../../../src/merge/tree-merge'
import type {MergeNote, Side} from '../../../src/merge/merge-types'
import {NOW, at, baseTask, edit, taskTripleArb} from './arbitraries'

const ID = 'tsk-0123456789'
const file = (meta: TaskMeta, body = 'Body\n'): string => serialiseTask(meta, body)
const comment = (task: string, body: string, author = 'alice', when = at(3), id = `20261129T120300.000Z-${body.length.toString(16).padStart(8, '0')}`): Comment => ({
  id,
  task,
  kind: 'note',
  author,
  created_at: when,
  body,
})
const cfile = (c: Comment): {path: string; text: string} => ({path: commentPath(c.task, c.id), text: serialiseComment(c)})
const ctxOf = (published: Side = 'theirs', extra: Partial<FilesMergeContext> = {}): FilesMergeContext => ({now: NOW, published, ...extra})
const swapCtx = (c: FilesMergeContext): FilesMergeContext => ({...c, published: c.published === 'ours' ? 'theirs' : 'ours'})
const swapPaths = (ps: FileVersions[]): FileVersions[] => ps.map((p) => ({...p, ours: p.theirs, theirs: p.ours}))
const get = (files: MergedFile[], path: string): string | null | undefined => files.find((f) => f.path === path)?.content
const commentsOf = (files: MergedFile[], id: string): Comment[] =>
  files
    .filter((f) => f.content !== null && f.path.startsWith(`${taskDir(id)}/comments/`))
    .map((f) => {
      const parsed = parseCommentFile(f.content!, id, f.path.split('/').pop()!.slice(0, -3))
      if (!parsed.ok) throw new Error(parsed.error)
      return parsed.value
    })
const taskOf = (files: MergedFile[], id: string): {meta: TaskMeta; body: string} => {
  const text = get(files, taskFilePath(id))
  if (!text) throw new Error(`no task file for ${id}`)
  const parsed = parseTaskFile(text, id)
  if (!parsed.ok) throw new Error(parsed.error)
  return parsed.value
}

describe('mergeFiles: one-sided and equal changes', () => {
  it('takes the side that changed, the common value when equal, and returns every input path', () => {
    const base = baseTask()
    const a = {...baseTask('tsk-aaaaaaaaaa')}
    const ours = edit(base, {title: 'ours'}, 'alice')
    const paths: FileVersions[] = [
      {path: taskFilePath(ID), base: file(base), ours: file(ours), theirs: file(base)},
      {path: taskFilePath(a.id), base: file(a), ours: null, theirs: file(a)},
      {path: 'inbox/bob/20261129T120000.000Z-0000abcd.md', base: null, ours: 'x\n', theirs: 'x\n'},
    ]
    const r = mergeFiles(paths, ctxOf())
    expect(r.files).toEqual([
      {path: 'inbox/bob/20261129T120000.000Z-0000abcd.md', content: 'x\n'},
      {path: taskFilePath(ID), content: file(ours)},
      {path: taskFilePath(a.id), content: null},
    ].sort((x, y) => (x.path < y.path ? -1 : 1)))
    expect(r.notes).toEqual([])
  })

  it('adds comment files from both sides: separate files never conflict', () => {
    const c1 = cfile(comment(ID, 'from alice'))
    const c2 = cfile(comment(ID, 'from bob!', 'bob'))
    const r = mergeFiles(
      [
        {path: c1.path, base: null, ours: c1.text, theirs: null},
        {path: c2.path, base: null, ours: null, theirs: c2.text},
      ],
      ctxOf(),
    )
    expect(get(r.files, c1.path)).toBe(c1.text)
    expect(get(r.files, c2.path)).toBe(c2.text)
  })
})

describe('mergeFiles: task files changed on both sides', () => {
  it('merges fields and writes the comments mergeTask makes', () => {
    const base = baseTask()
    const ours = edit(base, {title: 'Alice title', status: 'in_progress', owner: 'alice', epoch: 2}, 'alice', 20)
    const theirs = edit(base, {title: 'Bob title', status: 'in_progress', owner: 'bob', epoch: 2}, 'bob', 10)
    const r = mergeFiles([{path: taskFilePath(ID), base: file(base), ours: file(ours), theirs: file(theirs)}], ctxOf('theirs'))
    const t = taskOf(r.files, ID)
    expect(t.meta).toMatchObject({title: 'Alice title', owner: 'bob', status: 'in_progress', revision: base.revision + 2, updated_at: ours.updated_at})
    const comments = commentsOf(r.files, ID)
    expect(comments.map((c) => [c.kind, c.author])).toEqual(
      expect.arrayContaining([
        ['problem', 'git-tasks'],
        ['note', 'bob'],
      ]),
    )
    expect(comments.find((c) => c.author === 'bob')!.body).toContain('Bob title')
    expect(r.notes.map((n) => n.kind).sort()).toEqual(['field_conflict', 'lost_claim'])
    // Every new comment file is named commentPath(task, id) and parses back to what was made.
    for (const c of comments) expect(get(r.files, commentPath(ID, c.id))).toBe(serialiseComment(c))
  })

  it('keeps a conflicting description as a comment file', () => {
    const base = baseTask()
    const ours = edit(base, {}, 'alice', 5)
    const theirs = edit(base, {}, 'bob', 9)
    const r = mergeFiles([{path: taskFilePath(ID), base: file(base, 'one\n'), ours: file(ours, 'alice wrote\n'), theirs: file(theirs, 'bob wrote\n')}], ctxOf())
    expect(taskOf(r.files, ID).body).toBe('bob wrote\n')
    const [c] = commentsOf(r.files, ID)
    expect(c).toMatchObject({author: 'alice', kind: 'note'})
    expect(c!.body).toContain('alice wrote')
  })
})

describe('mergeFiles: a change wins over a removal', () => {
  const base = baseTask()
  const old = cfile(comment(ID, 'an old comment'))

  it('keeps a task removed on one side and modified on the other, with its comments', () => {
    const theirs = edit(base, {priority: 0})
    for (const published of ['ours', 'theirs'] as const) {
      const r = mergeFiles(
        [
          {path: taskFilePath(ID), base: file(base), ours: null, theirs: file(theirs)},
          {path: old.path, base: old.text, ours: null, theirs: old.text},
        ],
        ctxOf(published),
      )
      expect(taskOf(r.files, ID).meta.priority).toBe(0)
      expect(get(r.files, old.path)).toBe(old.text)
      expect(r.notes).toEqual([expect.objectContaining({kind: 'kept_over_delete', task: ID})])
      expect(commentsOf(r.files, ID).some((c) => c.author === 'git-tasks' && c.kind === 'problem')).toBe(true)
    }
  })

  it('keeps a task removed on one side when the other added a comment to it', () => {
    const added = cfile(comment(ID, 'a new comment', 'bob', at(8), '20261129T120800.000Z-aaaaaaaa'))
    const r = mergeFiles(
      [
        {path: taskFilePath(ID), base: file(base), ours: file(base), theirs: null},
        {path: old.path, base: old.text, ours: old.text, theirs: null},
        {path: added.path, base: null, ours: added.text, theirs: null},
      ],
      ctxOf(),
    )
    expect(get(r.files, taskFilePath(ID))).toBe(file(base))
    expect(get(r.files, old.path)).toBe(old.text)
    expect(get(r.files, added.path)).toBe(added.text)
  })

  it('a plain removal (the other side unchanged) removes the task and its comments', () => {
    const r = mergeFiles(
      [
        {path: taskFilePath(ID), base: file(base), ours: file(base), theirs: null},
        {path: old.path, base: old.text, ours: old.text, theirs: null},
      ],
      ctxOf(),
    )
    expect(r.files).toEqual([
      {path: old.path, content: null},
      {path: taskFilePath(ID), content: null},
    ])
  })
})

describe('mergeFiles: the same id created on both sides', () => {
  const mk = (title: string, key: string | undefined, who: string, minutes: number): TaskMeta => ({
    ...baseTask(),
    title,
    key,
    tags: [who],
    created_at: at(minutes),
    created_by: who,
    updated_at: at(minutes),
    updated_by: who,
    revision: 1,
  })

  it('the same key on two clones: one task, merged without a base', () => {
    const ours = mk('Add login', 'login', 'alice', 1)
    const theirs = mk('Add login', 'login', 'bob', 2)
    const r = mergeFiles([{path: taskFilePath(ID), base: null, ours: file(ours), theirs: file(theirs)}], ctxOf())
    const t = taskOf(r.files, ID)
    expect(t.meta).toMatchObject({key: 'login', tags: ['alice', 'bob'], created_by: 'alice', revision: 2})
    expect(r.notes.some((n) => n.kind === 'id_collision')).toBe(false)
  })

  it('different tasks: the published one keeps the id, the other moves with its comments and references', () => {
    const ours = mk('Alice task', undefined, 'alice', 1)
    const theirs = mk('Bob task', 'bob-key', 'bob', 2)
    const oursComment = cfile(comment(ID, 'alice comments her task'))
    const child = {...baseTask('tsk-cccccccccc'), parent: ID, title: 'sub-item of alice task'}
    const dependent = {...baseTask('tsk-dddddddddd'), depends_on: [ID, 'tsk-aaaaaaaaaa']}
    const existing = baseTask('tsk-eeeeeeeeee')
    const theirsDependent = {...baseTask('tsk-ffffffffff'), depends_on: [ID]}
    const paths: FileVersions[] = [
      {path: taskFilePath(ID), base: null, ours: file(ours), theirs: file(theirs)},
      {path: oursComment.path, base: null, ours: oursComment.text, theirs: null},
      {path: taskFilePath(child.id), base: null, ours: file(child), theirs: null},
      {path: taskFilePath(dependent.id), base: file(existing), ours: file(dependent), theirs: file(existing)},
      {path: taskFilePath(theirsDependent.id), base: null, ours: null, theirs: file(theirsDependent)},
    ]
    // `dependent` reuses existing's path only to have a modified file: give it the right id.
    paths[3] = {path: taskFilePath(dependent.id), base: file({...existing, id: dependent.id}), ours: file(dependent), theirs: file({...existing, id: dependent.id})}
    const r = mergeFiles(paths, ctxOf('theirs'))
    const moved = r.notes.find((n): n is Extract<MergeNote, {kind: 'id_collision'}> => n.kind === 'id_collision')!
    expect(moved).toBeDefined()
    const to = moved.moved_to
    expect(to).toBe(idFromSeed(`merge-collision\0${ID}\0${file(ours)}`, (c) => c === ID))
    expect(taskOf(r.files, ID).meta.title).toBe('Bob task')
    expect(taskOf(r.files, to).meta).toMatchObject({id: to, title: 'Alice task'})
    expect(get(r.files, oursComment.path)).toBeNull()
    const movedComment = commentPath(to, oursComment.path.split('/').pop()!.slice(0, -3))
    expect(get(r.files, movedComment)).toBe(oursComment.text)
    expect(commentsOf(r.files, to).some((c) => c.author === 'git-tasks' && c.body.includes(ID))).toBe(true)
    // References made on the moving side now point at the moved task; the published side's stay.
    expect(taskOf(r.files, child.id).meta.parent).toBe(to)
    expect(taskOf(r.files, dependent.id).meta.depends_on).toEqual([to, 'tsk-aaaaaaaaaa'].sort())
    expect(taskOf(r.files, theirsDependent.id).meta.depends_on).toEqual([ID])
    // Symmetric: swapping the sides with `published` gives the same files.
    expect(mergeFiles(swapPaths(paths), ctxOf('ours')).files).toEqual(r.files)
  })

  it('avoids ids the caller says are taken', () => {
    const ours = mk('A', undefined, 'alice', 1)
    const theirs = mk('B', undefined, 'bob', 2)
    const paths = [{path: taskFilePath(ID), base: null, ours: file(ours), theirs: file(theirs)}]
    const first = (mergeFiles(paths, ctxOf()).notes[0] as {moved_to: string}).moved_to
    const second = (mergeFiles(paths, ctxOf('theirs', {taken: (id) => id === first})).notes[0] as {moved_to: string}).moved_to
    expect(second).not.toBe(first)
    expect(second.startsWith(first)).toBe(true) // idFromSeed grows the id by one character
  })
})

describe('mergeFiles: append-only files', () => {
  it('keeps both versions of a comment or inbox record written at the same path', () => {
    for (const path of [commentPath(ID, '20261129T120300.000Z-0badc0de'), 'inbox/bob/20261129T120300.000Z-0badc0de.md']) {
      const r = mergeFiles([{path, base: null, ours: 'ours text\n', theirs: 'theirs text\n'}], ctxOf('theirs'))
      expect(get(r.files, path)).toBe('theirs text\n')
      const other = r.files.find((f) => f.path !== path)!
      expect(other.content).toBe('ours text\n')
      expect(other.path).toMatch(/\/20261129T120300\.000Z-[0-9a-f]{8}\.md$/)
      expect(r.notes).toEqual([expect.objectContaining({kind: 'path_collision', path, moved_to: other.path})])
      expect(mergeFiles([{path, base: null, ours: 'theirs text\n', theirs: 'ours text\n'}], ctxOf('ours')).files).toEqual(r.files)
    }
  })
})

describe('mergeFiles: config.yaml and meta.yaml', () => {
  const cfg = (over: Record<string, unknown>): string => serialiseConfig({...DEFAULT_CONFIG, ...over} as typeof DEFAULT_CONFIG)

  it('merges per top-level key; both changed: numbers by size, lists as sets', () => {
    const base = cfg({admins: ['root']})
    const ours = cfg({lease_seconds: 600, admins: ['root', 'alice'], clock_skew_seconds: 60})
    const theirs = cfg({lease_seconds: 7200, admins: ['bob']})
    const r = mergeFiles([{path: CONFIG_PATH, base, ours, theirs}], ctxOf())
    const merged = parseConfig(get(r.files, CONFIG_PATH)!)
    expect(merged.ok && merged.value).toMatchObject({lease_seconds: 7200, admins: ['alice', 'bob'], clock_skew_seconds: 60})
    expect(r.notes).toEqual([expect.objectContaining({kind: 'config_conflict', key: 'lease_seconds', kept: 7200, dropped: 600})])
    expect(mergeFiles([{path: CONFIG_PATH, base, ours: theirs, theirs: ours}], ctxOf('ours')).files).toEqual(r.files)
  })

  it('keeps unknown keys and a key removed on one side but changed on the other', () => {
    const base = 'lease_seconds: 3600\nteam: "core"\n'
    // (`notify` became a known key with the inbox: the unknown key here is `alerts`.)
    const ours = 'lease_seconds: 3600\nteam: "platform"\nalerts: true\n'
    const theirs = 'lease_seconds: 100\n'
    const r = mergeFiles([{path: CONFIG_PATH, base, ours, theirs}], ctxOf())
    expect(get(r.files, CONFIG_PATH)).toBe('lease_seconds: 100\nalerts: true\nteam: "platform"\n')
  })

  it('a key changed to null on one side and removed on the other keeps the null', () => {
    const r = mergeFiles([{path: CONFIG_PATH, base: 'lease_seconds: 3600\nteam: "core"\n', ours: 'lease_seconds: 3600\nteam: null\n', theirs: 'lease_seconds: 3600\n'}], ctxOf())
    expect(get(r.files, CONFIG_PATH)).toMatch(/^team: null$/m)
  })

  it('takes the side that parses when one does not', () => {
    const r = mergeFiles([{path: CONFIG_PATH, base: cfg({}), ours: 'lease_seconds: [oops\n', theirs: cfg({lease_seconds: 5})}], ctxOf('ours'))
    expect(get(r.files, CONFIG_PATH)).toBe(cfg({lease_seconds: 5}))
    expect(r.notes).toEqual([expect.objectContaining({kind: 'unreadable', path: CONFIG_PATH, side: 'ours'})])
  })

  it('meta.yaml: the higher format wins', () => {
    const r = mergeFiles([{path: META_PATH, base: serialiseMeta(1), ours: serialiseMeta(2), theirs: 'format: 1\n# note\n'}], ctxOf())
    expect(get(r.files, META_PATH)).toBe(serialiseMeta(2))
  })
})

describe('mergeFiles: unreadable task files', () => {
  const base = baseTask()

  it('takes the side that parses and files the unreadable text as a comment', () => {
    const theirs = edit(base, {priority: 0})
    const broken = '---\nid: "tsk-0123456789"\ntitle: [unclosed\n---\nalice typed this\n'
    const r = mergeFiles([{path: taskFilePath(ID), base: file(base), ours: broken, theirs: file(theirs)}], ctxOf('ours'))
    expect(get(r.files, taskFilePath(ID))).toBe(file(theirs))
    expect(r.notes).toEqual([expect.objectContaining({kind: 'unreadable', side: 'ours'})])
    expect(commentsOf(r.files, ID)[0]!.body).toContain('alice typed this')
  })

  it('neither parses: the published text, the other filed', () => {
    const r = mergeFiles([{path: taskFilePath(ID), base: file(base), ours: 'ours junk\n', theirs: 'theirs junk\n'}], ctxOf('theirs'))
    expect(get(r.files, taskFilePath(ID))).toBe('theirs junk\n')
    expect(r.notes).toEqual([expect.objectContaining({kind: 'unreadable', side: 'both'})])
    expect(commentsOf(r.files, ID)[0]!.body).toContain('ours junk')
  })
})

describe('mergeFiles: other files', () => {
  it('merges text 3-way, and keeps both when the edits overlap', () => {
    const clean = mergeFiles([{path: 'notes/readme.txt', base: 'a\nb\nc\n', ours: 'A\nb\nc\n', theirs: 'a\nb\nC\n'}], ctxOf())
    expect(clean.files).toEqual([{path: 'notes/readme.txt', content: 'A\nb\nC\n'}])
    const both = mergeFiles([{path: 'notes/readme.txt', base: 'a\n', ours: 'x\n', theirs: 'y\n'}], ctxOf('ours'))
    expect(get(both.files, 'notes/readme.txt')).toBe('x\n')
    expect(both.files.find((f) => f.path.startsWith('notes/readme.txt.merge-'))?.content).toBe('y\n')
  })
})

// ---------------------------------------------------------------------------
// Symmetry property over random trees.

const IDS = ['tsk-0123456789', 'tsk-1123456789', 'tsk-2123456789']

/** One task's paths: a field-level triple, perhaps removed or added on a side, perhaps broken, with comments. */
const taskPathsArb = (id: string): fc.Arbitrary<FileVersions[]> =>
  fc
    .record({
      triple: taskTripleArb,
      shape: fc.constantFrom('both', 'removed-ours', 'removed-theirs', 'added-both', 'added-ours', 'broken-ours', 'broken-theirs'),
      sameKey: fc.boolean(),
      comments: fc.array(fc.record({side: fc.constantFrom('ours', 'theirs', 'both', 'clash'), n: fc.integer({min: 0, max: 3}), inBase: fc.boolean()}), {maxLength: 3}),
    })
    .map(({triple: [b, o, t], shape, sameKey, comments}) => {
      const withId = (m: TaskMeta): TaskMeta => ({...m, id})
      let base: string | null = file(withId(b.meta), b.body)
      let ours: string | null = file(withId(o.meta), o.body)
      let theirs: string | null = file(withId(t.meta), t.body)
      if (shape === 'removed-ours') ours = null
      if (shape === 'removed-theirs') theirs = null
      if (shape === 'added-both' || shape === 'added-ours') {
        base = null
        const key = sameKey ? 'k' : undefined
        ours = file({...withId(o.meta), key, title: `${o.meta.title} (ours)`}, o.body)
        theirs = shape === 'added-ours' ? null : file({...withId(t.meta), key: sameKey ? 'k' : 'other'}, t.body)
      }
      if (shape === 'broken-ours') ours = `---\nid: [\n---\n${o.body}`
      if (shape === 'broken-theirs') theirs = `not a task file\n${t.body}`
      const out: FileVersions[] = [{path: taskFilePath(id), base, ours, theirs}]
      comments.forEach(({side, n, inBase}, i) => {
        const c = cfile(comment(id, `comment ${i} ${n}`, 'carol', at(i), `20261129T12000${i}.000Z-0000000${n}`))
        if (out.some((p) => p.path === c.path)) return
        if (inBase && base !== null) out.push({path: c.path, base: c.text, ours: ours === null ? null : c.text, theirs: theirs === null ? null : c.text})
        else if (side === 'clash') out.push({path: c.path, base: null, ours: c.text, theirs: `${c.text}different\n`})
        else out.push({path: c.path, base: null, ours: side !== 'theirs' ? c.text : null, theirs: side !== 'ours' ? c.text : null})
      })
      return out
    })

const configArb = fc.record({
  o: fc.record({lease_seconds: fc.constantFrom(60, 3600, 7200), admins: fc.subarray(['alice', 'bob', 'root'])}, {requiredKeys: []}),
  t: fc.record({lease_seconds: fc.constantFrom(60, 3600, 7200), admins: fc.subarray(['alice', 'bob', 'root'])}, {requiredKeys: []}),
})

const treeArb = fc
  .tuple(fc.subarray(IDS, {minLength: 1}).chain((ids) => fc.tuple(...ids.map(taskPathsArb))), fc.option(configArb), fc.option(fc.tuple(fc.constantFrom('a\nb\n', 'x\n'), fc.constantFrom('a\nB\n', 'y\n'))))
  .map(([tasks, config, other]) => {
    const paths: FileVersions[] = tasks.flat()
    if (config) {
      const base = serialiseConfig(DEFAULT_CONFIG)
      paths.push({path: CONFIG_PATH, base, ours: serialiseConfig({...DEFAULT_CONFIG, ...config.o}), theirs: serialiseConfig({...DEFAULT_CONFIG, ...config.t})})
    }
    if (other) paths.push({path: 'misc/notes.txt', base: 'a\nb\n', ours: other[0], theirs: other[1]})
    return paths.filter((p) => !(p.base === p.ours && p.ours === p.theirs))
  })

const sideless = (notes: MergeNote[]): unknown[] => notes.map((n) => (n.kind === 'unreadable' ? {...n, side: n.side === 'ours' || n.side === 'theirs' ? 'one' : n.side} : n))

describe('mergeFiles: properties', () => {
  it('is symmetric: swapping ours and theirs together with `published` gives the same files', () => {
    const kinds = new Map<string, number>()
    fc.assert(
      fc.property(treeArb, fc.constantFrom<Side>('ours', 'theirs'), (paths, published) => {
        const ctx = ctxOf(published)
        const r1 = mergeFiles(paths, ctx)
        const r2 = mergeFiles(swapPaths(paths), swapCtx(ctx))
        expect(r2.files).toEqual(r1.files)
        expect(sideless(r2.notes)).toEqual(sideless(r1.notes))
        for (const n of r1.notes) kinds.set(n.kind, (kinds.get(n.kind) ?? 0) + 1)
      }),
      {numRuns: 500},
    )
    // The generator reaches every rule.
    for (const k of ['lost_claim', 'field_conflict', 'body_conflict', 'kept_over_delete', 'id_collision', 'path_collision', 'unreadable', 'config_conflict']) {
      expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0)
    }

  })

  it('is deterministic, returns every input path once, and writes only readable task and comment files', () => {
    fc.assert(
      fc.property(treeArb, fc.constantFrom<Side>('ours', 'theirs'), (paths, published) => {
        const r = mergeFiles(paths, ctxOf(published))
        expect(mergeFiles(paths, ctxOf(published))).toEqual(r)
        const out = r.files.map((f) => f.path)
        expect(new Set(out).size).toBe(out.length)
        for (const p of paths) expect(out).toContain(p.path)
        for (const f of r.files) {
          if (f.content === null) continue
          const comment = /^tasks\/[0-9a-f]{2}\/(tsk-[0-9a-z]+)\/comments\/(.+)\.md$/.exec(f.path)
          const input = paths.find((p) => p.path === f.path)
          const fromInput = input && (f.content === input.ours || f.content === input.theirs)
          if (comment && !fromInput) expect(parseCommentFile(f.content, comment[1]!, comment[2]!).ok).toBe(true)
          const task = /^tasks\/[0-9a-f]{2}\/(tsk-[0-9a-z]+)\/task\.md$/.exec(f.path)
          if (task && !fromInput) expect(parseTaskFile(f.content, task[1]).ok).toBe(true)
        }
      }),
      {numRuns: 300},
    )
  })

  it('drops no comment file either side added', () => {
    fc.assert(
      fc.property(treeArb, fc.constantFrom<Side>('ours', 'theirs'), (paths, published) => {
        const r = mergeFiles(paths, ctxOf(published))
        const contents = new Set(r.files.map((f) => f.content))
        for (const p of paths) {
          if (!p.path.includes('/comments/') || p.base !== null) continue
          for (const text of [p.ours, p.theirs]) if (text !== null) expect(contents.has(text)).toBe(true)
        }
      }),
      {numRuns: 300},
    )
  })

  it('merging one side with an unchanged base gives that side', () => {
    fc.assert(
      fc.property(treeArb, (paths) => {
        const oneSided = paths.map((p) => ({...p, theirs: p.base}))
        const r = mergeFiles(oneSided, ctxOf('theirs'))
        expect(r.files).toEqual(oneSided.map((p) => ({path: p.path, content: p.ours})).sort((a, b) => (a.path < b.path ? -1 : 1)))
      }),
    )
  })
})
