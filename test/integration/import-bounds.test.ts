/**
 * `tasks import` reads a bounded amount and applies add's rules (issue 31,
 * items 3 and 6): /dev/zero and an endless standard input stop at the
 * limit (64 MiB, TASKS_IMPORT_MAX_BYTES) with `import_too_large` and
 * nothing written; a card whose title, body, tags, priority or comments
 * break the rules `add` enforces is refused with add's code, naming the
 * card; a Taskwarrior field of the wrong type is an error naming the task
 * and the field, not read as something else.
 */
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {spawn} from 'node:child_process'

afterAll(() => cleanupAll())

const env = {TASKS_ACTOR: 'importer'}
const commits = (repo: string) => gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim()

/** Run the CLI under an address-space cap (prlimit, when the machine has it); resolves with the exit code, stderr and the time taken. */
function runCapped(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{code: number | null; signal: string | null; stderr: string; ms: number}> {
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p))
  // 2 GB: node itself needs about 1.5 GB of address space to read 64 MiB; the unbounded read reached 20 GB.
  const [cmd, argv] = prlimit ? [prlimit, ['--as=2000000000', process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]]
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {cwd, env: {...TEST_ENV, ...env, ...extraEnv}, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (b) => (stderr += b))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stderr, ms: Date.now() - started})
    })
  })
}

/** The CLI with `input` on stdin; a command that stops reading early (the point here) is no error of the test's. */
function runWithInput(cwd: string, args: string[], input: string, extraEnv: Record<string, string>): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd, env: {...TEST_ENV, ...env, ...extraEnv}, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b) => (stdout += b))
    child.stderr.on('data', (b) => (stderr += b))
    child.stdin.on('error', () => {})
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stdout, stderr}))
    child.stdin.end(input)
  })
}

describe('import reads a bounded amount', () => {
  let repo: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
  })

  it('import /dev/zero stops at 64 MiB: import_too_large, exit 5, quickly, nothing written', async () => {
    const r = await runCapped(repo, ['import', '/dev/zero', '--json'])
    expect(r.signal).toBeNull()
    expect(r.code).toBe(5)
    const error = JSON.parse(r.stderr).error
    expect(error).toMatchObject({code: 'import_too_large', exit: 5, limit: 64 * 1024 * 1024})
    expect(r.ms).toBeLessThan(20000)
    expect(commits(repo)).toBe('1')
  }, 40000)

  it('import - stops at TASKS_IMPORT_MAX_BYTES', async () => {
    const r = await runWithInput(repo, ['import', '-', '--json'], `[${' '.repeat(2 * 1024 * 1024)}]`, {TASKS_IMPORT_MAX_BYTES: '1048576'})
    expect(r.code).toBe(5)
    expect(jsonError({...r, code: r.code ?? -1})).toMatchObject({code: 'import_too_large', limit: 1048576})
    expect(r.stderr).toContain('standard input')
    expect(commits(repo)).toBe('1')
    // Within the limit, the same input imports (nothing in it).
    const ok = await run(repo, ['import', '-', '--json'], {env: {...env, TASKS_IMPORT_MAX_BYTES: '1048576'}, input: '[]'})
    expect(ok.code).toBe(0)
  })

  it('a TASKS_IMPORT_MAX_BYTES that is not a size is a usage error', async () => {
    const r = await run(repo, ['import', '-', '--json'], {env: {...env, TASKS_IMPORT_MAX_BYTES: 'lots'}, input: '[]'})
    expect(r.code).toBe(2)
    expect(jsonError(r).message).toContain('TASKS_IMPORT_MAX_BYTES')
  })

  it('a file that is not JSON is bad_import without quoting it', async () => {
    const file = join(tempDir('notjson-'), 'passwd')
    writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\n')
    const r = await run(repo, ['import', file, '--json'], {env})
    expect(r.code).toBe(5)
    expect(jsonError(r).code).toBe('bad_import')
    expect(r.stderr).not.toContain('root:x')
  })
})

const T = '2026-01-01T00:00:00.000Z'
function card(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {id, title: 'A card', status: 'todo', priority: 2, tags: [], depends_on: [], created_at: T, created_by: 'a', updated_at: T, updated_by: 'a', revision: 1, body: '', comments: [], ...fields}
}
const doc = (...tasks: Array<Record<string, unknown>>) => ({format: 'git-tasks/export', version: 1, list: 'main', commit: '0'.repeat(40), exported_at: T, tasks})

describe('import applies the rules of add', () => {
  let repo: string
  let dir: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    dir = tempDir('rules-')
  })

  const importing = async (name: string, value: unknown) => {
    const file = join(dir, name)
    writeFileSync(file, JSON.stringify(value))
    return run(repo, ['import', file, '--json'], {env})
  }

  it('a card with a 600-byte title is refused like add: title_too_long, naming the card', async () => {
    const title = 'x'.repeat(600)
    const added = await run(repo, ['add', title, '--json'], {env})
    expect(jsonError(added).code).toBe('title_too_long')
    const r = await importing('long-title.json', doc(card('tsk-aaaaaaaaaa', {title})))
    expect(r.code).toBe(5)
    expect(jsonError(r)).toMatchObject({code: 'title_too_long', id: 'tsk-aaaaaaaaaa', field: 'title', limit: 500})
    expect(jsonError(r).message).toContain('tasks[0] (tsk-aaaaaaaaaa)')
    expect(commits(repo)).toBe('1')
  })

  it('refuses what add refuses, with add’s codes, and writes nothing', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['two lines, ESC, BEL, U+202E', {title: 'first line\nsecond \u001b[31m\u0007\u202e'}, 'multiline_title'],
      ['ESC in one line', {title: 'red \u001b[31m title'}, 'control_character'],
      ['U+202E', {title: 'abc\u202edef'}, 'control_character'],
      ['empty title', {title: '   '}, 'empty_title'],
      ['priority out of range', {priority: 9}, 'bad_priority'],
      ['priority as text', {priority: '1'}, 'bad_import'],
      ['tags not a list', {tags: 'notalist'}, 'bad_import'],
      ['a tag with a comma', {tags: ['a,b']}, 'bad_tag'],
      ['a tag with a space', {tags: ['two words']}, 'bad_tag'],
      ['body over the limit', {body: 'b'.repeat(65537)}, 'body_too_long'],
      ['body not text', {body: 42}, 'bad_import'],
      ['conflict block in the body', {body: '<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n'}, 'conflict_markers'],
      ['assignee with a control character', {assignee: 'bob\u0007'}, 'bad_actor'],
      ['empty key', {key: '  '}, 'empty_key'],
      ['comment over the limit', {comments: [{id: '20260101T000000000Z-abcd1234', kind: 'note', author: 'a', created_at: T, body: 'c'.repeat(70000)}]}, 'comment_too_long'],
      ['comments not a list', {comments: {}}, 'bad_import'],
    ]
    for (const [what, fields, code] of cases) {
      const r = await importing('case.json', doc(card('tsk-bbbbbbbbbb', fields)))
      expect(r.code, what).toBe(code === 'bad_actor' ? 2 : 5)
      expect(jsonError(r).code, what).toBe(code)
      expect(jsonError(r).message, what).toContain('tsk-bbbbbbbbbb')
    }
    expect(commits(repo)).toBe('1')
  })

  it('a sub-item of a sub-item is refused (nesting_too_deep)', async () => {
    const r = await importing('nested.json', doc(card('tsk-cccccccccc'), card('tsk-dddddddddd', {parent: 'tsk-cccccccccc'}), card('tsk-eeeeeeeeee', {parent: 'tsk-dddddddddd'})))
    expect(jsonError(r).code).toBe('nesting_too_deep')
    expect(commits(repo)).toBe('1')
  })

  it('a title with spaces around it is stored trimmed, as add stores it, and a second import changes nothing', async () => {
    const value = doc(card('tsk-ffffffffff', {title: '  Padded title  ', tags: ['b', 'a']}))
    const first = await importing('padded.json', value)
    expect(first.code).toBe(0)
    expect((await runJson(repo, ['show', 'tsk-ffffffffff'], {env})).task).toMatchObject({title: 'Padded title', tags: ['a', 'b']})
    const again = JSON.parse((await importing('padded.json', value)).stdout)
    expect(again).toMatchObject({commit: null, unchanged: 1})
  })
})

describe('a Taskwarrior export: a field of the wrong type is an error naming the task and the field', () => {
  let repo: string
  let dir: string
  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'])
    dir = tempDir('tw-')
  })
  const uuid = '11111111-1111-4111-8111-111111111111'
  const tw = (fields: Record<string, unknown>) => [{uuid, description: 'Write the parser', status: 'pending', entry: '20261101T090000Z', ...fields}]

  it('refuses tags as text, a number for a date, a list for a project, an annotation without text', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{tags: 'notalist'}, 'tags'],
      [{tags: ['ok', 7]}, 'tags'],
      [{entry: 20261101}, 'entry'],
      [{end: 'yesterday'}, 'end'],
      [{project: ['a']}, 'project'],
      [{priority: 1}, 'priority'],
      [{status: 3}, 'status'],
      [{description: {text: 'x'}}, 'description'],
      [{depends: [1, 2]}, 'depends'],
      [{annotations: 'note'}, 'annotations'],
      [{annotations: [{entry: '20261101T090000Z', description: 5}]}, 'annotations[0].description'],
    ]
    for (const [fields, field] of cases) {
      const file = join(dir, 'export.json')
      writeFileSync(file, JSON.stringify(tw(fields)))
      const r = await run(repo, ['import', file, '--json'], {env})
      expect(r.code, field).toBe(5)
      const error = jsonError(r)
      expect(error, field).toMatchObject({code: 'bad_import', field, uuid})
      expect(error.message, field).toContain(uuid)
    }
    expect(commits(repo)).toBe('1')
  })

  it('a description with a bidi override or ESC is refused like add; an unknown priority is a warning', async () => {
    const file = join(dir, 'export.json')
    writeFileSync(file, JSON.stringify(tw({description: 'evil \u202e title'})))
    const r = await run(repo, ['import', file, '--json'], {env})
    expect(jsonError(r).code).toBe('control_character')
    expect(jsonError(r).message).toContain(uuid)
    writeFileSync(file, JSON.stringify(tw({description: 'red \u001b[31m title'})))
    expect(jsonError(await run(repo, ['import', file, '--json'], {env})).code).toBe('control_character')
    expect(commits(repo)).toBe('1')
    // A tab is white space: a space in the title.
    writeFileSync(file, JSON.stringify(tw({description: 'tab\there', priority: 'X'})))
    const ok = await runJson(repo, ['import', file], {env})
    expect(ok.created).toBe(1)
    expect(ok.tasks[0].title).toBe('tab here')
    expect(ok.warnings.join('\n')).toContain('priority "X"')
  })
})
