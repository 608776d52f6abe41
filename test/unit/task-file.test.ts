import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {parseCommentFile, parseConfig, parseMeta, parseTaskFile, serialiseComment, serialiseConfig, serialiseTask} from '../../src/core/task-file'
import {YAML_STYLE, parseCanonical, serialiseFrontmatter, splitFrontmatter} from '../../src/core/frontmatter'
import * as YAML from 'yaml'
import {DEFAULT_CONFIG} from '../../src/core/task'
import {task} from '../helpers/snapshot'

describe('task files', () => {
  it('round-trips frontmatter and body byte for byte', () => {
    const meta = task({id: 'tsk-abcdefghjk', title: 'Wire "the" CAS: now', tags: ['backend', 'p1'], owner: 'bob', epoch: 2, lease_expires: '2026-11-29T13:00:00.000Z'})
    const text = serialiseTask(meta, 'Body line\n')
    const parsed = parseTaskFile(text, meta.id)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.value.meta).toEqual(meta)
    expect(parsed.value.body).toBe('Body line\n')
    expect(serialiseTask(parsed.value.meta, parsed.value.body)).toBe(text)
  })

  it('writes deterministic text: ordered keys, quoted strings, LF, one final newline', () => {
    const meta = task({id: 'tsk-abcdefghjk', title: 'yes', key: '0755'})
    const text = serialiseTask(meta, 'x\r\n\r\n\r\n')
    expect(text).toMatch(/^---\nid: "tsk-abcdefghjk"\ntitle: "yes"\nstatus: "todo"\npriority: 2\n/)
    expect(text.endsWith('---\nx\n')).toBe(true)
    expect(text).toContain('key: "0755"')
    expect(text).not.toContain('\r')
  })

  it('keeps a body with --- and YAML as text', () => {
    const body = '---\nid: "tsk-0000000000"\nstatus: done\n---\n\n- item\n---'
    const text = serialiseTask(task({id: 'tsk-abcdefghjk'}), body)
    const parsed = parseTaskFile(text, 'tsk-abcdefghjk')
    expect(parsed.ok && parsed.value.body).toBe(`${body}\n`)
    expect(parsed.ok && parsed.value.meta.status).toBe('todo')
  })

  it('round-trips any title and body (property)', () => {
    fc.assert(
      fc.property(fc.string({minLength: 1, maxLength: 80}).filter((s) => s.trim().length > 0 && !/[\n\r]/.test(s)), fc.string({maxLength: 300}), (title, body) => {
        const meta = task({id: 'tsk-abcdefghjk', title})
        const parsed = parseTaskFile(serialiseTask(meta, body), meta.id)
        expect(parsed.ok).toBe(true)
        if (!parsed.ok) return
        expect(parsed.value.meta.title).toBe(title)
        const normalised = body.replace(/\r\n?/g, '\n').replace(/\s+$/, '')
        expect(parsed.value.body).toBe(normalised ? `${normalised}\n` : '')
      }),
      {numRuns: 300},
    )
  })

  it('preserves unknown frontmatter keys', () => {
    const text = serialiseTask(task({id: 'tsk-abcdefghjk'}), '').replace('revision: 1\n', 'revision: 1\nzz_custom: "kept"\naa_other: 3\n')
    const parsed = parseTaskFile(text, 'tsk-abcdefghjk')
    expect(parsed.ok && parsed.value.meta.extra).toEqual({zz_custom: 'kept', aa_other: 3})
    const again = parsed.ok ? serialiseTask(parsed.value.meta, '') : ''
    expect(again).toContain('aa_other: 3\nzz_custom: "kept"\n')
  })

  it('reports what is wrong with a broken file', () => {
    const good = serialiseTask(task({id: 'tsk-abcdefghjk'}), '')
    const cases: Array<[string, RegExp]> = [
      ['no frontmatter', /does not start/],
      ['---\ntitle: x\n', /not closed/],
      ['---\n: : :\n---\n', /invalid YAML|not a mapping/],
      [good.replace('status: "todo"', 'status: "nope"'), /status/],
      [good.replace('priority: 2', 'priority: 9'), /priority/],
      [good.replace('title: ', 'title: "a"\ntitle: '), /invalid YAML/],
    ]
    for (const [text, why] of cases) {
      const parsed = parseTaskFile(text, 'tsk-abcdefghjk')
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.error).toMatch(why)
    }
    const wrongDir = parseTaskFile(good, 'tsk-zzzzzzzzzz')
    expect(!wrongDir.ok && wrongDir.error).toMatch(/does not match its directory/)
  })

  it('splits at the first closing --- line only', () => {
    expect(splitFrontmatter('---\na: 1\n---\n---\nb\n')).toEqual({frontmatter: 'a: 1\n', body: '---\nb\n'})
    expect(splitFrontmatter('---\na: 1\n---')).toEqual({frontmatter: 'a: 1\n', body: ''})
  })

  it('round-trips comments, config and meta', () => {
    const c = {id: '20261129T120000.000Z-abcd1234', task: 'tsk-abcdefghjk', kind: 'decision' as const, author: 'bob', created_at: '2026-11-29T12:00:00.000Z', body: 'We chose CAS.\n---\nnot yaml: [x'}
    const parsed = parseCommentFile(serialiseComment(c), c.task, c.id)
    expect(parsed).toEqual({ok: true, value: c})
    expect(parseConfig(serialiseConfig(DEFAULT_CONFIG))).toEqual({ok: true, value: DEFAULT_CONFIG})
    const partial = parseConfig('lease_seconds: 60\nteam: "x"\n')
    expect(partial.ok && partial.value.lease_seconds).toBe(60)
    expect(partial.ok && partial.value.max_title_bytes).toBe(500)
    expect(partial.ok && partial.value.extra).toEqual({team: 'x'})
    expect(parseMeta('format: 1\n')).toEqual({ok: true, value: {format: 1}})
    expect(parseMeta('format: "x"\n').ok).toBe(false)
  })
})

describe('canonical frontmatter', () => {
  const value = fc.oneof(fc.string(), fc.string({unit: 'binary'}), fc.integer(), fc.constant(null), fc.array(fc.string(), {maxLength: 4}), fc.array(fc.integer(), {maxLength: 3}))
  const record = fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/), value, {maxKeys: 8})

  it('writes exactly what the YAML library writes in the same style', () => {
    fc.assert(
      fc.property(record, (rec) => {
        const fields = Object.entries(rec)
        const ours = serialiseFrontmatter(fields, '')
        const theirs = `---\n${fields.length ? YAML.stringify(Object.fromEntries(fields), YAML_STYLE) : ''}---\n`
        expect(ours).toBe(theirs)
      }),
      {numRuns: 500},
    )
  })

  it('reads back what it writes, as the YAML library does, without the library', () => {
    fc.assert(
      fc.property(record, (rec) => {
        const text = serialiseFrontmatter(Object.entries(rec), '').slice(4, -4)
        const fast = parseCanonical(text)
        expect(fast).not.toBeNull()
        expect(fast).toEqual(YAML.parse(text, {schema: 'core'}) ?? {})
      }),
      {numRuns: 500},
    )
  })

  it('leaves anything else to the YAML parser', () => {
    for (const text of ['a: plain\n', "a: 'single'\n", 'a: "x" # note\n', 'a:\n  b: 1\n', 'a: 1\na: 2\n', 'a:\n']) expect(parseCanonical(text)).toBeNull()
  })
})
