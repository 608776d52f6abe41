import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {parseCommentFile, parseConfig, parseMeta, parseTaskFile, serialiseComment, serialiseConfig, serialiseTask} from '../../src/core/task-file'
import {YAML_STYLE, parseCanonical, serialiseFrontmatter, splitFrontmatter} from '../../src/core/frontmatter'
import * as YAML from 'yaml'
import {DEFAULT_CONFIG, MAX_FILE_BYTES, MAX_LEASE_SECONDS, MAX_TIME_MS, MIN_TIME_MS, type TaskMeta} from '../../src/core/task'
import {TasksError} from '../../src/core/errors'
import {addTask} from '../../src/core/ops/add'
import {claimTask, heartbeat} from '../../src/core/ops/claim'
import {editTask} from '../../src/core/ops/edit'
import {fileText} from '../../src/core/task-file'
import {validateConfig, validateTask} from '../../src/generated/validators'
import {after, ctx, snapshot, task} from '../helpers/snapshot'

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
      [good.replace('title: ', 'title: "a"\ntitle: '), /duplicate key \(title\)/],
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

  it('reads any text as the one-regular-expression-a-line reader did', () => {
    // The scanner replaced this reader (a cold index build parses every card); the two must agree on
    // every text, canonical or not: the same record, or null for the YAML parser.
    const keyLine = /^([A-Za-z_][A-Za-z0-9_]*):(?: (.+))?$/
    const reference = (text: string): Record<string, unknown> | null => {
      const out: Record<string, unknown> = Object.create(null)
      const lines = text.split('\n')
      let i = 0
      while (i < lines.length) {
        const line = lines[i]!
        if (line === '') {
          i++
          continue
        }
        const m = keyLine.exec(line)
        if (!m || m[1]! in out || m[1] === '__proto__') return null
        if (m[2] === undefined) {
          const items: unknown[] = []
          for (i++; i < lines.length && lines[i]!.startsWith('  - '); i++) {
            try {
              items.push(JSON.parse(lines[i]!.slice(4)))
            } catch {
              return null
            }
          }
          if (items.length === 0) return null
          out[m[1]!] = items
          continue
        }
        try {
          out[m[1]!] = JSON.parse(m[2])
        } catch {
          return null
        }
        i++
      }
      return {...out}
    }
    const piece = fc.oneof(
      fc.constantFrom('a', 'b', '_x', 'Key1', '1a', '__proto__', 'constructor', ':', ': ', ' ', '  - ', '\n', '\r', '\u2028', '\u2029', '\t', '"', '\\', '[]', '[', ']', '{}', '0', '01', '-1', '1.5', '1e3', 'true', 'null', ','),
      fc.string({maxLength: 3}),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
    )
    const line = fc.oneof(
      fc.tuple(fc.constantFrom('a', 'b', 'c_d', 'constructor', '__proto__', 'x9'), fc.array(piece, {maxLength: 3})).map(([k, rest]) => `${k}: ${rest.join('')}`),
      fc.tuple(fc.constantFrom('a:', 'b:', 'tags:'), fc.array(fc.array(piece, {maxLength: 2}), {maxLength: 3})).map(([k, items]) => [k, ...items.map((it) => `  - ${it.join('')}`)].join('\n')),
      fc.array(piece, {maxLength: 4}).map((ps) => ps.join('')),
    )
    fc.assert(
      fc.property(fc.array(line, {maxLength: 6}), (lines) => {
        const text = `${lines.join('\n')}\n`
        expect(parseCanonical(text)).toEqual(reference(text))
      }),
      {numRuns: 3000},
    )
  })

  it('leaves anything else to the YAML parser', () => {
    for (const text of ['a: plain\n', "a: 'single'\n", 'a: "x" # note\n', 'a:\n  b: 1\n', 'a: 1\na: 2\n', 'a:\n', 'a: 1\r\n', 'a: "x\u2028y"\n', 'a: "x\u2029"\n', 'a: \n', 'a:  \n']) expect(parseCanonical(text)).toBeNull()
    // A list item is JSON.parse's to judge, as before: trailing whitespace and a raw separator inside a string are fine.
    expect(parseCanonical('a:\n  - 1\r\n  - "x\u2028"\n')).toEqual({a: [1, 'x\u2028']})
  })
})

/** What the store does with a task file: serialise, write as UTF-8 bytes, read the bytes back, parse. */
function readBack(meta: TaskMeta, body: string): {meta: TaskMeta; body: string} {
  const bytes = Buffer.from(serialiseTask(meta, body), 'utf8')
  const text = fileText({size: bytes.length, content: bytes})
  expect(text.ok, `${meta.id}: ${!text.ok && text.error}`).toBe(true)
  const parsed = parseTaskFile(text.ok ? text.value : '', meta.id)
  expect(parsed.ok, `${meta.id}: ${!parsed.ok && parsed.error}`).toBe(true)
  return parsed.ok ? parsed.value : {meta, body}
}

/** Run an op; a refusal must be a typed error (never an internal one), else the plan's task files must read back. */
function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn()
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(TasksError)
    return undefined
  }
}

describe('whatever an op accepts, the reader reads back', () => {
  const time = fc.integer({min: MIN_TIME_MS, max: MAX_TIME_MS}).map((ms) => new Date(ms).toISOString())
  const text = fc.oneof(fc.string(), fc.string({unit: 'binary'}), fc.string({unit: 'grapheme'}), fc.constantFrom('---', '---\nx: &a 1\n---', '\u2028', '"\\', 'a\r\nb'))
  const lease = fc.oneof(fc.integer({min: -10, max: 2 * MAX_LEASE_SECONDS}), fc.constantFrom(300_000_000_000, 9e12, 1e300, Number.NaN, 1.5, MAX_LEASE_SECONDS), fc.double())
  const tags = fc.array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,70}$/), fc.string({maxLength: 5})), {maxLength: 4})
  const priority = fc.oneof(fc.integer({min: -1, max: 6}), fc.constantFrom('0', ' 1', '4', '5', 'x'))

  it('add, edit, claim and heartbeat with random titles, bodies, tags, priorities, leases and times (property)', () => {
    fc.assert(
      fc.property(text, text, tags, priority, lease, time, time, (title, body, tagList, prio, leaseSeconds, now1, now2) => {
        const snap0 = snapshot([])
        const added = attempt(() => addTask(snap0, ctx('alice', now1), {title, body, tags: tagList, priority: prio}))
        if (!added) return
        const meta = added.result.task
        expect(validateTask(meta), JSON.stringify(validateTask.errors)).toBe(true)
        const back = readBack(meta, body)
        expect(back.meta).toEqual(meta)
        let snap = after(snap0, added)
        const edited = attempt(() => editTask(snap, ctx('alice', now2), {id: meta.id, title: `${title}!`, addTags: tagList}))
        if (edited) {
          readBack(edited.result.task, body)
          snap = after(snap, edited)
        }
        const claimed = attempt(() => claimTask(snap, ctx('bob', now2), {id: meta.id, leaseSeconds}))
        if (!claimed) return
        expect(Number.isSafeInteger(leaseSeconds) && leaseSeconds >= 1 && leaseSeconds <= MAX_LEASE_SECONDS).toBe(true)
        expect(readBack(claimed.result.task, body).meta).toEqual(claimed.result.task)
        const beat = attempt(() => heartbeat(after(snap, claimed), ctx('bob', now2), {id: meta.id, leaseSeconds}))
        if (beat) readBack(beat.result.task, body)
      }),
      {numRuns: 400},
    )
  })

  it('a lease or a time the files cannot hold is refused, not written (examples from the field)', () => {
    const t = task({id: 'tsk-abcdefghjk'})
    const snap = snapshot([t])
    for (const leaseSeconds of [300_000_000_000, 9e12, 1e300, 0, -1, 1.5, Number.NaN]) {
      expect(() => claimTask(snap, ctx('bob'), {id: t.id, leaseSeconds}), String(leaseSeconds)).toThrow(expect.objectContaining({code: 'bad_lease', exitCode: 5}))
    }
    // A lease within bounds that would end after year 9999.
    expect(() => claimTask(snap, ctx('bob', '9999-12-31T00:00:00.000Z'), {id: t.id, leaseSeconds: 3600 * 24 * 2})).toThrow(expect.objectContaining({code: 'time_out_of_range'}))
    expect(claimTask(snap, ctx('bob'), {id: t.id, leaseSeconds: MAX_LEASE_SECONDS}).result.task.lease_expires).toBe('2027-11-29T12:00:00.000Z')
  })

  it('config values outside the bounds are refused by the reader, so no config can make a claim fail', () => {
    for (const text of ['lease_seconds: 1e300\n', 'lease_seconds: 31536001\n', 'clock_skew_seconds: 1e20\n', 'max_body_bytes: 99999999999\n', 'lease_seconds: 0\n']) {
      expect(parseConfig(text).ok, text).toBe(false)
    }
    fc.assert(
      fc.property(fc.integer({min: 1, max: MAX_LEASE_SECONDS}), time, (leaseSeconds, now) => {
        const parsed = parseConfig(`lease_seconds: ${leaseSeconds}\n`)
        expect(parsed.ok && validateConfig({lease_seconds: leaseSeconds})).toBe(true)
        if (!parsed.ok) return
        const t = task({id: 'tsk-abcdefghjk'})
        const claimed = attempt(() => claimTask({...snapshot([t]), config: parsed.value}, ctx('bob', now), {id: t.id}))
        if (claimed) readBack(claimed.result.task, '')
        else expect(Date.parse(now) + leaseSeconds * 1000).toBeGreaterThan(MAX_TIME_MS)
      }),
      {numRuns: 200},
    )
  })

  it('the timestamp bounds are exactly what the schema accepts', () => {
    const at = (ms: number) => validateTask({...task({id: 'tsk-abcdefghjk'}), created_at: new Date(ms).toISOString()})
    expect(at(MIN_TIME_MS)).toBe(true)
    expect(at(MAX_TIME_MS)).toBe(true)
    expect(at(MIN_TIME_MS - 1)).toBe(false)
    expect(at(MAX_TIME_MS + 1)).toBe(false)
  })

  it('a task file too large to read back is refused when written', () => {
    const t = task({id: 'tsk-abcdefghjk', block_note: '\u0001'.repeat(MAX_FILE_BYTES / 4)})
    expect(() => serialiseTask(t, '')).toThrow(expect.objectContaining({code: 'file_too_large', exitCode: 5}))
  })
})

describe('hostile YAML in a task file is a broken card, never a crash', () => {
  it('anchors, aliases, tags, merge keys, __proto__, deep nesting and duplicate keys', () => {
    const good = serialiseTask(task({id: 'tsk-abcdefghjk'}), '')
    const cases: Array<[string, RegExp]> = [
      ['x: &a [1]\ny: *a', /anchor/],
      ['x: !!js/function "function () {}"', /tag/],
      ['x: !custom 1', /tag/],
      ['<<: {priority: 0}', /merge key/],
      ['__proto__: {"status": "done"}', /__proto__/],
      ['# hand edit\n__proto__: 1', /__proto__/],
      [`x: ${'['.repeat(5000)}${']'.repeat(5000)}`, /nested/],
      [`# hand edit\nx: ${'['.repeat(5000)}${']'.repeat(5000)}`, /nested|YAML/],
      ['title: "again"', /duplicate key/],
      ['# hand edit\nx: {a: 1, a: 2}', /duplicate key \(a\)/],
      [`# hand edit\n${Array.from({length: 8000}, (_, i) => `k${i}: "v"`).join('\n')}`, /read up to 65536 bytes/],
    ]
    for (const [extra, why] of cases) {
      const parsed = parseTaskFile(good.replace('revision: 1\n', `revision: 1\n${extra}\n`), 'tsk-abcdefghjk')
      expect(parsed.ok, extra.slice(0, 40)).toBe(false)
      if (!parsed.ok) expect(parsed.error).toMatch(why)
    }
  })

  it('bytes that are not UTF-8, or a file over the size limit, are reported as such', () => {
    expect(fileText({size: 3, content: Buffer.from([0x61, 0xff, 0x62])})).toEqual({ok: false, error: expect.stringMatching(/UTF-8/)})
    expect(fileText({size: MAX_FILE_BYTES + 1, content: Buffer.alloc(0), oversized: true})).toEqual({ok: false, error: expect.stringMatching(/bytes/)})
    expect(fileText({size: 4, content: Buffer.from('\ufeffx')})).toEqual({ok: true, value: '\ufeffx'})
  })

  it('config.yaml with YAML features is refused without printing a warning', () => {
    const writes: string[] = []
    const original = process.emitWarning
    process.emitWarning = ((w: string | Error) => void writes.push(String(w))) as typeof process.emitWarning
    try {
      expect(parseConfig('lease_seconds: &l 60\nclock_skew_seconds: *l\n').ok).toBe(false)
      expect(parseConfig('x: !!js/function "f"\n').ok).toBe(false)
      expect(parseMeta('format: !!int 1\n').ok).toBe(false)
      expect(parseConfig('toString: 1\nhasOwnProperty: 2\n')).toMatchObject({ok: true, value: {extra: {toString: 1, hasOwnProperty: 2}}})
    } finally {
      process.emitWarning = original
    }
    expect(writes).toEqual([])
  })
})
