/**
 * Hostile trees: whatever anyone with push access commits to the tasks ref,
 * a broken card is reported by path and everything else keeps working.
 *
 * A corpus of bad entries (YAML features, wrong object types and modes,
 * oversized and non-UTF-8 blobs, cards in the wrong place, stray files) is
 * planted on a real list with git plumbing only (`hash-object -w`, `mktree`,
 * `commit-tree`, `update-ref`), as a person or a buggy tool could. The
 * default run plants them all in one tree and checks, once: `list --json`
 * lists the good tasks and reports every bad entry by path, `show` works on a
 * good task and gives a clear error on each bad one, mutations on good tasks
 * work and leave the bad entries as they were, `doctor` reports them,
 * `doctor --fix` does not crash, and a clone that syncs the tree through a
 * remote keeps working. With TASKS_SOAK=1 every case is also planted alone
 * on a fresh list (so no case can hide behind another) and run through the
 * same commands.
 */
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {shardOf} from '../../src/core/ids'
import {MAX_FILE_BYTES} from '../../src/core/task'
import {ROOT, TEST_ENV, cleanupAll, gitSync, makeRepo, run, runJson, type RunResult} from '../helpers/cli'
import {shared} from '../remote/support'
import {ObjectReader} from '../../src/refstore/object-reader'
import {snapshotOf, updateIndex} from '../../src/refstore/task-index'

afterAll(() => cleanupAll())

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
})

const REF = 'refs/tasks/main'
const ACTOR = {env: {TASKS_ACTOR: 'alice'}}
const SOAK = process.env.TASKS_SOAK === '1'

// ---------------------------------------------------------------- plumbing

/** One entry to plant: a blob (content), or any mode/type pointing at an oid that may not exist. */
interface Plant {
  /** Slash-separated; a component may be given as raw bytes in `rawName` (the last one). */
  path: string
  rawName?: Buffer
  mode?: string
  content?: string | Buffer
  type?: 'blob' | 'tree' | 'commit'
  oid?: string
  /** Write this as a tree object without checking it (`hash-object --literally`): a malformed tree. */
  literalTree?: string
}

interface TreeNode {
  entries: Map<string, ({mode: string; type: string; oid: string} | TreeNode) & {raw?: Buffer}>
}

function git(repo: string, args: string[], input?: string | Buffer): string {
  return execFileSync('git', args, {cwd: repo, env: TEST_ENV, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024})
}

function gitBytes(repo: string, args: string[], input?: Buffer): Buffer {
  return execFileSync('git', args, {cwd: repo, env: TEST_ENV, input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024})
}

/** A tree's entries, names as raw bytes (keyed by their hex, so names that are not UTF-8 survive). */
function loadTree(repo: string, oid: string): TreeNode {
  const entries: TreeNode['entries'] = new Map()
  const out = gitBytes(repo, ['ls-tree', '-z', oid])
  let i = 0
  while (i < out.length) {
    const end = out.indexOf(0, i)
    const tab = out.indexOf(0x09, i)
    const [mode, type, id] = out.toString('latin1', i, tab).split(' ') as [string, string, string]
    const raw = Buffer.from(out.subarray(tab + 1, end))
    entries.set(raw.toString('utf8'), {mode, type, oid: id, raw})
    i = end + 1
  }
  return {entries}
}

function writeTree(repo: string, node: TreeNode): string {
  const records: Buffer[] = []
  for (const [name, e] of node.entries) {
    const head = 'entries' in e ? `040000 tree ${writeTree(repo, e)}\t` : `${e.mode} ${e.type} ${e.oid}\t`
    records.push(Buffer.from(head), e.raw ?? Buffer.from(name), Buffer.from([0]))
  }
  return gitBytes(repo, ['mktree', '-z', '--missing'], Buffer.concat(records)).toString().trim()
}

/** Commit `plants` on top of the ref with plumbing only; returns the new commit. */
function plant(repo: string, plants: readonly Plant[], message = 'plant hostile entries'): string {
  const old = git(repo, ['rev-parse', REF]).trim()
  const root = loadTree(repo, `${old}^{tree}`)
  for (const p of plants) {
    const parts = p.path.split('/')
    const name = parts.pop()!
    let node = root
    for (const part of parts) {
      const e = node.entries.get(part)
      let next: TreeNode & {raw?: Buffer}
      if (e && 'entries' in e) next = e
      else if (e && e.type === 'tree') next = {...loadTree(repo, e.oid), raw: e.raw}
      else next = {entries: new Map()}
      node.entries.set(part, next)
      node = next
    }
    const oid =
      p.oid ??
      (p.literalTree !== undefined
        ? git(repo, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], p.literalTree).trim()
        : git(repo, ['hash-object', '-w', '--stdin'], p.content ?? '').trim())
    node.entries.set(p.rawName ? `raw:${p.rawName.toString('hex')}` : name, {mode: p.mode ?? '100644', type: p.type ?? 'blob', oid, raw: p.rawName})
  }
  const commit = git(repo, ['commit-tree', writeTree(repo, root), '-p', old, '-m', message]).trim()
  git(repo, ['update-ref', REF, commit, old])
  return commit
}

/**
 * Mode and object id of every path on the ref, trees included, for "left
 * exactly as it was". Walked one tree at a time: `git ls-tree -r` itself
 * gives up on a malformed tree, whose own id is still compared.
 */
function listing(repo: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (oid: string, prefix: string) => {
    let node: TreeNode
    try {
      node = loadTree(repo, oid)
    } catch {
      return
    }
    for (const [name, e] of node.entries) {
      if ('entries' in e) continue
      // A name that is not UTF-8 is keyed by its bytes too: a writer that garbled it must show.
      const bytes = e.raw && !e.raw.equals(Buffer.from(name)) ? `#raw:${e.raw.toString('hex')}` : ''
      out.set(`${prefix}${name}${bytes}`, `${e.mode} ${e.oid}`)
      if (e.type === 'tree') walk(e.oid, `${prefix}${name}/`)
    }
  }
  walk(`${REF}^{tree}`, '')
  return out
}

// ---------------------------------------------------------------- the corpus

/** A valid id for hostile card number n (Crockford base32: no i, l, o, u). */
const hid = (n: number): string => `tsk-h0st${String(n).padStart(6, '0')}`
const dirOf = (id: string): string => `tasks/${shardOf(id)}/${id}`
const fileOf = (id: string): string => `${dirOf(id)}/task.md`
const STAMP = '"2026-11-29T12:00:00.000Z"'
const MISSING_OID = '1'.repeat(40)

/** A valid task file for `id`, with `extra` lines added to its frontmatter and `body` after it. */
function card(id: string, extra: string[] = [], body = ''): string {
  const lines = [`id: "${id}"`, 'title: "Hostile"', 'status: "todo"', 'priority: 2', 'tags: []', 'depends_on: []', 'epoch: 0']
  lines.push(`created_at: ${STAMP}`, 'created_by: "mallory"', `updated_at: ${STAMP}`, 'updated_by: "mallory"', 'revision: 1', ...extra)
  return `---\n${lines.join('\n')}\n---\n${body}`
}

interface Case {
  name: string
  plants: Plant[]
  /** The path `list --json` reports it under, and what its error says. */
  reported?: {path: string; error: RegExp}
  /** An id `show` should refuse, and with which code (broken card: broken_task_file; a stray: task_not_found). */
  show?: {id: string; code: string}
  /** A card that is unusual but readable: it must list as a task. */
  readable?: string
  /** Comment files `show` of the readable card reports as broken. */
  brokenComments?: string[]
}

function cardCase(n: number, name: string, content: string | Buffer, error: RegExp): Case {
  const id = hid(n)
  return {name, plants: [{path: fileOf(id), content}], reported: {path: fileOf(id), error}, show: {id, code: 'broken_task_file'}}
}

/** The corpus; `good` are the ids of the good tasks, so some entries can share their shards and others avoid them. */
function corpus(good: readonly string[] = []): Case[] {
  const cases: Case[] = []
  const goodShard = good[0] ? shardOf(good[0]) : '02'
  let n = 0
  const id = () => hid(++n)
  cases.push(cardCase(++n, 'YAML alias', card(hid(n), ['x: &a [1]', 'y: *a']), /anchor|alias/))
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  for (let i = 0; i < 9; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)
  cases.push(cardCase(++n, 'YAML alias bomb', card(hid(n), bomb), /anchor|alias/))
  cases.push(cardCase(++n, 'YAML !!js/function tag', card(hid(n), ['x: !!js/function "function () { return 1 }"']), /tag/))
  cases.push(cardCase(++n, 'YAML custom tag', card(hid(n), ['x: !custom 1']), /tag/))
  cases.push(cardCase(++n, 'YAML merge key', card(hid(n), ['<<: {priority: 0}']), /merge key/))
  cases.push(cardCase(++n, 'duplicate keys', card(hid(n), ['title: "Second title"']), /unique|duplicate/i))
  cases.push(cardCase(++n, '__proto__ key', card(hid(n), ['__proto__: {"status": "done"}']), /__proto__/))
  cases.push(cardCase(++n, 'deeply nested value', card(hid(n), [`x: ${'['.repeat(20000)}${']'.repeat(20000)}`]), /nested/))
  // A comment line sends the file to the YAML library instead of the canonical reader.
  cases.push(cardCase(++n, 'deeply nested YAML', card(hid(n), ['# edited by hand', `x: ${'['.repeat(20000)}${']'.repeat(20000)}`]), /nested|YAML/))
  // Hand-edited YAML the library would take minutes over (its duplicate-key check is quadratic).
  cases.push(cardCase(++n, 'large hand-edited frontmatter', card(hid(n), ['# edited by hand', ...Array.from({length: 20000}, (_, i) => `k${i}: "v${i}"`)]), /YAML.*bytes/))
  cases.push(cardCase(++n, 'oversized task.md', card(hid(n), [], `${'x'.repeat(MAX_FILE_BYTES)}\n`), /bytes/))
  cases.push(cardCase(++n, 'non-UTF-8 bytes', Buffer.concat([Buffer.from(card(hid(n)).replace('Hostile', 'Bad')), Buffer.from([0xff, 0xfe, 0x0a])]), /UTF-8/))
  cases.push(cardCase(++n, 'empty task.md', '', /does not start/))
  cases.push(cardCase(++n, 'id that does not match its directory', card(hid(999)), /does not match/))
  cases.push(cardCase(++n, 'title that is not a string', card(hid(n)).replace('title: "Hostile"', 'title: [1, 2]'), /title/))
  {
    const i = id()
    cases.push({name: 'task.md is a directory', plants: [{path: `${fileOf(i)}/inner.md`, content: card(i)}], reported: {path: fileOf(i), error: /directory/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'task.md is a gitlink', plants: [{path: fileOf(i), mode: '160000', type: 'commit', oid: MISSING_OID}], reported: {path: fileOf(i), error: /submodule/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'task.md is a symlink', plants: [{path: fileOf(i), mode: '120000', content: '../../../meta.yaml'}], reported: {path: fileOf(i), error: /symbolic link/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'task.md object missing', plants: [{path: fileOf(i), oid: MISSING_OID}], reported: {path: fileOf(i), error: /missing/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'no task.md', plants: [{path: `${dirOf(i)}/notes.txt`, content: 'hello\n'}], reported: {path: fileOf(i), error: /no task\.md/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'card directory is a blob', plants: [{path: dirOf(i), content: card(i)}], reported: {path: fileOf(i), error: /is a file, not a task directory/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'card directory is a gitlink', plants: [{path: dirOf(i), mode: '160000', type: 'commit', oid: MISSING_OID}], reported: {path: fileOf(i), error: /submodule/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    cases.push({name: 'card directory is a symlink', plants: [{path: dirOf(i), mode: '120000', content: '../..'}], reported: {path: fileOf(i), error: /symbolic link/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    const i = id()
    const wrong = shardOf(i) === '00' ? '01' : '00'
    cases.push({name: 'card in the wrong shard', plants: [{path: `tasks/${wrong}/${i}/task.md`, content: card(i)}], reported: {path: `tasks/${wrong}/${i}`, error: /wrong shard/}, show: {id: i, code: 'task_not_found'}})
  }
  cases.push({name: 'directory not named by an id', plants: [{path: 'tasks/00/not-a-task/task.md', content: card(hid(998))}], reported: {path: 'tasks/00/not-a-task', error: /not a task id/}})
  cases.push({name: 'name with a tab and a newline', plants: [{path: 'tasks/01/evil\tname\nx', content: 'x'}], reported: {path: 'tasks/01/evil\tname\nx', error: /not a task id/}})
  cases.push({name: 'a file in tasks/', plants: [{path: 'tasks/README.md', content: '# notes\n'}], reported: {path: 'tasks/README.md', error: /not a shard/}})
  // Shards no good task or hostile card uses: a blob or a malformed tree there hides no card (a good task's id is random;
  // with a fixed 'fe', one run in ~130 lost a good task with the shard it lay in).
  const used = new Set([...good, ...Array.from({length: 60}, (_, k) => hid(k + 1))].map(shardOf))
  const [blobShard, badTreeShard] = Array.from({length: 256}, (_, k) => k.toString(16).padStart(2, '0')).reverse().filter((x) => !used.has(x))
  cases.push({name: 'a blob where a shard belongs', plants: [{path: `tasks/${blobShard}`, content: 'x'}], reported: {path: `tasks/${blobShard}`, error: /is a file, not a shard/}})
  cases.push({name: 'a gitlink in tasks/', plants: [{path: 'tasks/sub', mode: '160000', type: 'commit', oid: MISSING_OID}], reported: {path: 'tasks/sub', error: /not a shard/}})
  {
    const i = id()
    cases.push({name: 'executable task.md (readable)', plants: [{path: fileOf(i), mode: '100755', content: card(i)}], readable: i})
  }
  {
    const i = id()
    cases.push({name: 'CRLF line endings (readable)', plants: [{path: fileOf(i), content: card(i).replace(/\n/g, '\r\n')}], readable: i})
  }
  {
    const i = id()
    const plants: Plant[] = [
      {path: fileOf(i), content: card(i)},
      {path: `${dirOf(i)}/notes.txt`, content: 'extra\n'},
      {path: `${dirOf(i)}/vendor`, mode: '160000', type: 'commit', oid: MISSING_OID},
      {path: `${dirOf(i)}/comments/readme.txt`, content: 'not a comment\n'},
      {path: `${dirOf(i)}/comments/20261129T120000.000Z-aaaaaaaa.md`, content: '---\nkind: &k "note"\nauthor: "m"\ncreated_at: "2026-11-29T12:00:00.000Z"\n---\nhi\n'},
      {path: `${dirOf(i)}/comments/20261129T120001.000Z-bbbbbbbb.md`, mode: '160000', type: 'commit', oid: MISSING_OID},
    ]
    const brokenComments = [plants[4]!.path, plants[5]!.path]
    cases.push({name: 'extra entries in a card directory (readable)', plants, readable: i, brokenComments})
  }
  {
    // In a good task's shard, so mutating that task rewrites the shard tree around it.
    const path = `tasks/${goodShard}/f\uFFFD`
    cases.push({name: 'a name that is not UTF-8', plants: [{path, rawName: Buffer.from([0x66, 0xff]), content: 'x'}], reported: {path, error: /not a task id/}})
  }
  {
    const i = id()
    cases.push({name: 'card directory is a malformed tree', plants: [{path: dirOf(i), mode: '040000', type: 'tree', literalTree: 'garbage'}], reported: {path: fileOf(i), error: /malformed/}, show: {id: i, code: 'broken_task_file'}})
  }
  {
    cases.push({name: 'shard is a malformed tree', plants: [{path: `tasks/${badTreeShard}`, mode: '040000', type: 'tree', literalTree: '100644 x'}], reported: {path: `tasks/${badTreeShard}`, error: /malformed/}})
  }
  cases.push({name: 'junk at the root (ignored)', plants: [{path: 'junk.bin', content: Buffer.from([0, 1, 2, 255])}, {path: 'inbox', mode: '160000', type: 'commit', oid: MISSING_OID}]})
  return cases
}

// ---------------------------------------------------------------- checks

/** A --json error: exactly one JSON object on stderr, nothing on stdout, the expected exit and code. */
function expectJsonError(r: RunResult, exit: number, code: string, label: string): Record<string, any> {
  expect(r.code, `${label}: ${r.stderr}`).toBe(exit)
  expect(r.stdout, label).toBe('')
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines, `${label}: one line on stderr`).toHaveLength(1)
  const e = JSON.parse(lines[0]!).error
  expect(e.code, `${label}: ${e.message}`).toBe(code)
  return e
}

/** A --json success with nothing at all on stderr. */
async function ok(repo: string, args: string[], exit = 0): Promise<any> {
  const r = await run(repo, [...args, '--json'], ACTOR)
  expect(r.code, `tasks ${args.join(' ')}: ${r.stderr}`).toBe(exit)
  expect(r.stderr, `tasks ${args.join(' ')}: stderr`).toBe('')
  return JSON.parse(r.stdout)
}

/** A list with two good tasks; returns the repo and their ids. */
async function goodList(repo = makeRepo()): Promise<{repo: string; good: string[]}> {
  await runJson(repo, ['init'], ACTOR)
  const good: string[] = []
  for (const title of ['Good one', 'Good two']) good.push((await runJson(repo, ['add', title], ACTOR)).task.id)
  return {repo, good}
}

/** Everything a user does, against a list holding `cases`; every check names the case it is about. */
async function exercise(repo: string, good: string[], cases: readonly Case[]): Promise<void> {
  const reported = cases.filter((c) => c.reported)
  const readable = cases.filter((c) => c.readable).map((c) => c.readable!)
  const check = (l: any, what: string) => {
    expect(l.tasks.map((t: any) => t.id).sort(), `${what}: the good tasks still list`).toEqual(expect.arrayContaining([...good, ...readable]))
    for (const c of reported) {
      const b = l.broken.find((x: any) => x.path === c.reported!.path)
      expect(b, `${what}: ${c.name} is reported as ${c.reported!.path} (broken: ${JSON.stringify(l.broken.map((x: any) => x.path))})`).toBeDefined()
      expect(b.error, `${what}: ${c.name}`).toMatch(c.reported!.error)
    }
  }
  // Cold (no cache), then warm (the cache file written by the first run).
  check(await ok(repo, ['list', '--all']), 'cold list')
  check(await ok(repo, ['list', '--all']), 'warm list')
  const human = await run(repo, ['list'], ACTOR)
  expect(human.code).toBe(0)
  expect(human.stdout).toContain('Good one')
  // Names someone pushed are shown, never sent raw to the terminal (a tab, a newline, an escape).
  expect(human.stdout.split('\n').filter((l) => l.startsWith('unreadable: ')).length).toBe(reported.length)
  if (cases.some((c) => c.name === 'name with a tab and a newline')) expect(human.stdout).toContain('evil\\x09name\\x0ax')

  expect((await ok(repo, ['show', good[0]!])).task.title).toBe('Good one')
  for (const c of cases.filter((x) => x.readable)) {
    const shown = await ok(repo, ['show', c.readable!])
    expect(shown.task.id).toBe(c.readable)
    expect(shown.broken.map((b: any) => b.path).sort(), `show ${c.name}`).toEqual((c.brokenComments ?? []).sort())
  }
  for (const c of cases) {
    if (!c.show) continue
    const e = expectJsonError(await run(repo, ['show', c.show.id, '--json'], ACTOR), c.show.code === 'broken_task_file' ? 5 : 3, c.show.code, `show ${c.name}`)
    if (c.show.code === 'broken_task_file') expect(e.path).toBe(c.reported!.path)
  }

  // Mutations on good tasks work, and leave every hostile entry exactly as it was.
  const before = listing(repo)
  // Readable cards are tasks like any other (next may claim one); the entries beside them must stay.
  const planted = [...before.keys()].filter(
    (p) => !readable.some((i) => p === fileOf(i)) && cases.some((c) => c.plants.some((pl) => p === pl.path || p.startsWith(pl.rawName ? `${pl.path}#raw:` : `${pl.path}/`))),
  )
  expect(planted.length).toBeGreaterThanOrEqual(cases.filter((c) => !c.readable).length)
  await ok(repo, ['edit', good[0]!, '--title', 'Good one, edited'])
  await ok(repo, ['claim', good[1]!])
  await ok(repo, ['comment', good[0]!, 'still fine'])
  const added = (await ok(repo, ['add', 'Added among hostile entries'])).task.id
  await ok(repo, ['next'])
  const after = listing(repo)
  for (const p of planted) expect(after.get(p), `${p} is left as it was`).toBe(before.get(p))
  check(await ok(repo, ['list', '--all']), 'list after mutations')
  expect((await ok(repo, ['list', '--all'])).tasks.map((t: any) => t.id)).toContain(added)

  // doctor reports every bad entry (exit 5: problems remain); --fix repairs nothing it cannot and does not crash.
  const d = await ok(repo, ['doctor'], reported.length > 0 ? 5 : 0)
  for (const c of reported) expect(d.broken.map((b: any) => b.path), `doctor: ${c.name}`).toContain(c.reported!.path)
  const fixed = await ok(repo, ['doctor', '--fix'], reported.length > 0 ? 5 : 0)
  expect(fixed.broken).toEqual(d.broken)
}

// Regression: a 50 MB task.md pushed to the ref made the first `list` take 28.8 s and 309 MB: the
// reader held every byte (and joined its buffer once per chunk) before the file was parsed.
describe('object reader size limit', () => {
  it('skips the content of an object over the limit, and the reads around it still line up', async () => {
    const repo = makeRepo()
    const big = git(repo, ['hash-object', '-w', '--stdin'], Buffer.alloc(6 * 1024 * 1024, 0x61)).trim()
    const small = git(repo, ['hash-object', '-w', '--stdin'], 'small\n').trim()
    // Both kinds of reader: one request a line (`--batch`), and `--batch-command --buffer` (a cold index build's).
    for (const batchCommand of [false, true]) await sizeLimit(new ObjectReader(repo, batchCommand), big, small)
  })
})

/** Reads around objects over the limit line up, and hold nothing of them. */
async function sizeLimit(reader: ObjectReader, big: string, small: string): Promise<void> {
  try {
    const heapBefore = process.memoryUsage().arrayBuffers
    const [a, b, c, d] = await Promise.all([reader.read(small, 1024), reader.read(big, 1024), reader.read(small, 1024), reader.read(big)])
    expect(a!.content.toString()).toBe('small\n')
    expect(b).toMatchObject({oid: big, type: 'blob', size: 6 * 1024 * 1024, oversized: true})
    expect(b!.content.length).toBe(0)
    expect(c!.content.toString()).toBe('small\n')
    expect(d!.content.length).toBe(6 * 1024 * 1024)
    expect(d!.oversized).toBeUndefined()
    // Many oversized reads in a row hold nothing: memory does not grow with them.
    for (let i = 0; i < 5; i++) expect((await reader.read(big, MAX_FILE_BYTES))!.oversized).toBe(true)
    expect((await reader.read(small, 10))!.content.toString()).toBe('small\n')
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(64 * 1024 * 1024)
    // A name that is not there, between two that are.
    const [e, f, g] = await Promise.all([reader.read(small), reader.read('0'.repeat(40)), reader.read(small)])
    expect([e!.content.toString(), f, g!.content.toString()]).toEqual(['small\n', null, 'small\n'])
  } finally {
    reader.close()
  }
}

describe('hostile trees', () => {
  it('a cold index build reads every hostile card alike through either reader (one request a line, or buffered)', async () => {
    const {repo, good} = await goodList()
    plant(repo, corpus(good).flatMap((c) => c.plants))
    const tip = git(repo, ['rev-parse', REF]).trim()
    const build = async (bulkReads: string | undefined) => {
      const before = process.env.TASKS_INDEX_BULK_READS
      if (bulkReads === undefined) delete process.env.TASKS_INDEX_BULK_READS
      else process.env.TASKS_INDEX_BULK_READS = bulkReads
      const reader = new ObjectReader(repo)
      try {
        const index = await updateIndex(reader, 'sha1', 'main', tip, null)
        const snap = snapshotOf(index)
        return {strays: index.strays, tasks: [...snap.tasks.values()].map((t) => [t.id, t.path, t.error ?? null, t.meta ?? null]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))}
      } finally {
        reader.close()
        if (before === undefined) delete process.env.TASKS_INDEX_BULK_READS
        else process.env.TASKS_INDEX_BULK_READS = before
      }
    }
    const plain = await build(undefined)
    expect(plain.tasks.filter((t) => t[2] !== null).length).toBeGreaterThan(10)
    expect(await build('1')).toEqual(plain)
  })

  it('every hostile entry at once: the good tasks keep working, each bad one is reported by path', async () => {
    const {repo, good} = await goodList()
    const cases = corpus(good)
    plant(repo, cases.flatMap((c) => c.plants))
    await exercise(repo, good, cases)
  })

  it('new tasks never land in a shard the ref holds as a file: add goes around them, and says so when none is left', async () => {
    const {repo, good} = await goodList()
    const taken = new Set(good.map(shardOf))
    const shards = Array.from({length: 256}, (_, i) => i.toString(16).padStart(2, '0'))
    // Every shard a file except the two good tasks' and four others: without going around them, 250 in 256 adds would fail.
    const open = new Set([...taken, ...shards.filter((x) => !taken.has(x)).slice(0, 4)])
    plant(repo, shards.filter((x) => !open.has(x)).map((x) => ({path: `tasks/${x}`, content: 'not a shard\n'})))
    for (let i = 0; i < 6; i++) {
      const id = (await ok(repo, ['add', `Among files ${i}`])).task.id
      expect(open.has(shardOf(id)), `${id} in ${shardOf(id)}`).toBe(true)
    }
    expect((await ok(repo, ['list'])).tasks).toHaveLength(8)
    // Not one shard left: the documented tree_conflict (exit 1), nothing written.
    const tip = git(repo, ['rev-parse', REF]).trim()
    plant(repo, [...open].map((x) => ({path: `tasks/${x}`, content: 'not a shard\n'})))
    const planted = git(repo, ['rev-parse', REF]).trim()
    expect(planted).not.toBe(tip)
    expectJsonError(await run(repo, ['add', 'Nowhere to go', '--json'], ACTOR), 1, 'tree_conflict', 'add with every shard a file')
    expect(git(repo, ['rev-parse', REF]).trim()).toBe(planted)
  })

  it('a broken meta.yaml or config.yaml is one clear error or warning, never a crash or a stray line on stderr', async () => {
    const {repo} = await goodList()
    plant(repo, [{path: 'config.yaml', content: 'lease_seconds: &l 60\nclock_skew_seconds: *l\n'}])
    const l = await ok(repo, ['list'])
    expect(l.warnings).toEqual([expect.stringMatching(/config\.yaml.*(anchor|alias).*defaults/)])
    plant(repo, [{path: 'config.yaml', content: 'x: !!js/function "f"\n'}])
    expect((await ok(repo, ['list'])).warnings).toEqual([expect.stringMatching(/tag/)])
    plant(repo, [{path: 'meta.yaml', content: 'format: !!js/function "f"\n'}])
    for (const args of [['list'], ['add', 'x'], ['doctor', '--fix']]) expectJsonError(await run(repo, [...args, '--json'], ACTOR), 1, 'bad_store', args.join(' '))
  })

  it('a hostile tree fetched through a remote: sync keeps working in the clone that receives it', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const good = (await runJson(a, ['add', 'Good from A'], ACTOR)).task.id
    const cases = corpus().filter((c) => /alias|gitlink|oversized|wrong shard|UTF-8/.test(c.name))
    plant(a, cases.flatMap((c) => c.plants))
    gitSync(a, ['push', '-q', 'origin', `${REF}:${REF}`])
    // b has unpublished work of its own, so sync merges with the hostile tree instead of fast-forwarding.
    const mine = (await runJson(b, ['add', 'Offline in B', '--offline'], ACTOR)).task.id
    const s = await ok(b, ['sync'])
    expect(s.commit).toBeTruthy()
    const l = await ok(b, ['list', '--all'])
    expect(l.tasks.map((t: any) => t.id)).toEqual(expect.arrayContaining([good, mine]))
    for (const c of cases) expect(l.broken.map((x: any) => x.path), c.name).toContain(c.reported!.path)
    await ok(b, ['claim', good])
    expect(gitSync(bare, ['rev-parse', REF]).trim()).toBe(gitSync(b, ['rev-parse', REF]).trim())
  })

  it.runIf(SOAK)('soak: each hostile entry alone on a fresh list', {timeout: 600_000}, async () => {
    for (const c of corpus()) {
      const {repo, good} = await goodList()
      if (c.plants.some((p) => p.path.startsWith(`tasks/${shardOf(good[0]!)}/`) || p.path.startsWith(`tasks/${shardOf(good[1]!)}/`)) && /malformed/.test(c.name)) continue
      plant(repo, c.plants, c.name)
      await exercise(repo, good, [c])
    }
  })
})
