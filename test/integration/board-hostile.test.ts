/**
 * The board against hostile or merely heavy use (issue 31, item 5), on a
 * real server on 127.0.0.1 over a real repository: an action name that is
 * a property of every object (`constructor`, `__proto__`, `toString`) is
 * `unknown_action`, never a call; malformed percent-encoding is a 400; no
 * Location header the board sets leaves its origin, whatever the path
 * looks like; and 100 adds sent at once from one board all land (or the
 * ones that cannot are 503 with Retry-After), never `cas_exhausted` from
 * the board racing itself.
 */
import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {join} from 'node:path'
import {BIN, ROOT, TEST_ENV, gitSync, makeBareRepo, makeRepo, runJson, tempDir} from '../helpers/cli'
import {type StartedBoard, startBoard} from '../helpers/board'
import {localLocation} from '../../src/board/server'

let repo: string
let board: StartedBoard

interface Answer {
  status: number
  body: string
  headers: Record<string, string | string[] | undefined>
}

/** One raw HTTP request: the path goes on the wire exactly as written (fetch would normalise it). */
function http(port: number, path: string, options: {method?: string; headers?: Record<string, string>; body?: string} = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false}, (res) => {
      let body = ''
      res.on('data', (b) => (body += b))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const post = (action: string, payload: unknown) =>
  http(board.port, `/api/${action}`, {
    method: 'POST',
    headers: {Host: `127.0.0.1:${board.port}`, 'X-Board-Token': board.token, 'Content-Type': 'application/json'},
    body: JSON.stringify(payload),
  })

/** Does a Location header, resolved the way a browser would against the board's page, stay on the board? */
function staysOnOrigin(location: string): boolean {
  const from = `http://127.0.0.1:${board.port}/some/page`
  return new URL(location, from).origin === `http://127.0.0.1:${board.port}`
}

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  await runJson(repo, ['add', 'Already here'])
  board = await startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead'})
})

afterAll(async () => {
  await board?.stop()
})

describe('tasks board under hostile input', () => {
  it('actions come from the board’s own table: Object.prototype’s names are unknown_action', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__']) {
      const r = await post(name, {id: 'x', title: 'x'})
      expect(r.status, name).toBe(404)
      expect(JSON.parse(r.body).error.code, name).toBe('unknown_action')
      expect(r.body, name).not.toMatch(/store|reader|Session|function/)
    }
    // Spelled another way, or percent-encoded: still not an action.
    for (const name of ['Add', 'add%20', '%61dd', 'prototype', 'hasownproperty', '__lookupGetter__']) {
      expect(JSON.parse((await post(name, {})).body).error.code, name).toBe('unknown_action')
    }
    // And a real action still works.
    expect((await post('add', {title: 'Still works'})).status).toBe(200)
  })

  it('malformed percent-encoding is a 400, on every page', async () => {
    for (const path of ['/task/%E0%A4%A', '/%E0%A4%A', '/column/%E0%A4%A', '/task/%', '/task/%zz', '/graph?x=%E0%A4%A&all=%']) {
      const r = await http(board.port, path)
      if (path.startsWith('/graph')) {
        // Malformed query values are read leniently (URLSearchParams), never a crash.
        expect(r.status, path).toBe(200)
        continue
      }
      expect(r.status, path).toBe(400)
      expect(r.body, path).not.toMatch(/URIError|internal/)
    }
    // The same for a POST's path.
    const r = await http(board.port, '/api/%E0%A4%A', {method: 'POST', headers: {'X-Board-Token': board.token, 'Content-Type': 'application/json'}, body: '{}'})
    expect([400, 404]).toContain(r.status)
    // The board still serves afterwards.
    expect((await http(board.port, '/')).status).toBe(200)
  })

  it('no redirect leaves the origin, whatever the path', async () => {
    const paths = [
      '//evil.example/',
      '//evil.example/?token=T',
      '/.//evil.example/?token=T',
      '/..//evil.example/?token=T',
      '///evil.example/?token=T',
      '/\\evil.example/?token=T',
      '/.\\\\evil.example/?token=T',
      '/%2F%2Fevil.example/?token=T',
      '/./%5C%5Cevil.example/?token=T',
    ]
    for (const raw of paths) {
      const withToken = raw.replace('token=T', `token=${board.token}`)
      for (const path of [raw, withToken, raw.replace('?token=T', `?token=${board.token}`)]) {
        const r = await http(board.port, path)
        expect(r.status, path).toBeLessThan(500)
        const location = r.headers.location
        if (location === undefined) continue
        expect(typeof location, path).toBe('string')
        expect(location as string, path).toMatch(/^\/(?![/\\])/)
        expect(staysOnOrigin(location as string), `${path} → ${location}`).toBe(true)
      }
    }
    // An absolute-form request target (what a proxy gets) is not ours to answer.
    const absolute = await http(board.port, 'http://evil.example/?token=T')
    expect(absolute.headers.location).toBeUndefined()
    expect(absolute.status).toBe(400)
    // The ordinary case still works: the token moves into a cookie and the address keeps its path and query.
    const ok = await http(board.port, `/task/abc?x=1&token=${board.token}`)
    expect(ok.status).toBe(303)
    expect(ok.headers.location).toBe('/task/abc?x=1')
  })

  it('the one rule every Location header passes through', () => {
    const cases: [string, string][] = [
      ['/task/abc?x=1', '/task/abc?x=1'],
      ['//evil.example/', '/evil.example/'],
      ['///evil.example', '/evil.example'],
      ['/\\evil.example', '/evil.example'],
      ['/\\/\\evil.example', '/evil.example'],
      ['/\t/evil.example', '/'],
      ['/\n/evil.example', '/'],
      ['http://evil.example/', '/'],
      ['javascript:alert(1)', '/'],
      ['evil.example', '/'],
      ['', '/'],
    ]
    for (const [given, want] of cases) {
      expect(localLocation(given), JSON.stringify(given)).toBe(want)
      expect(new URL(localLocation(given), 'http://127.0.0.1:1/a/b').host).toBe('127.0.0.1:1')
    }
  })

  it('100 adds at once from one board: every one lands, or is a 503 with Retry-After', () => hundredAdds(board, repo), 180_000)
})

/** Send 100 adds to `b` at once; each lands (counted with `tasks list` in `dir`), or is a 503 board_busy with Retry-After. */
async function hundredAdds(b: StartedBoard, dir: string): Promise<void> {
  const listAll = async () => (await runJson(dir, ['list', '--all', '--limit', '1000'])) as {total: number; tasks: {title: string}[]}
  const before = (await listAll()).total
  const titles = Array.from({length: 100}, (_, i) => `Concurrent add ${i}`)
  const send = (title: string) =>
    http(b.port, '/api/add', {
      method: 'POST',
      headers: {Host: `127.0.0.1:${b.port}`, 'X-Board-Token': b.token, 'Content-Type': 'application/json'},
      body: JSON.stringify({title}),
    })
  const answers = await Promise.all(titles.map(send))
  const failures = answers.filter((a) => a.status !== 200)
  for (const f of failures) {
    expect(f.status, f.body).toBe(503)
    expect(f.headers['retry-after'], f.body).toMatch(/^\d+$/)
    expect(JSON.parse(f.body).error.code).toBe('board_busy')
  }
  const listed = await listAll()
  const landed = new Set(listed.tasks.map((t) => t.title))
  const ok = answers.map((a, i) => [a, titles[i]!] as const).filter(([a]) => a.status === 200)
  for (const [, title] of ok) expect(landed.has(title), title).toBe(true)
  expect(listed.total).toBe(before + ok.length)
  // Nobody else writes to these lists: all 100 fit in the board's queue.
  expect(ok.length).toBe(100)
}

describe('tasks board with a shared remote', () => {
  let clone: string
  let online: StartedBoard
  beforeAll(async () => {
    const bare = makeBareRepo()
    clone = tempDir('clone-')
    gitSync(clone, ['clone', '-q', bare, '.'])
    await runJson(clone, ['init', '--remote', 'origin'])
    online = await startBoard(BIN, clone, {...TEST_ENV, TASKS_ACTOR: 'lead'})
  })
  afterAll(async () => {
    await online?.stop()
  })

  it('100 adds at once, each published: every one lands, or is a 503 with Retry-After', () => hundredAdds(online, clone), 300_000)
})

describe('the board’s write queue (in-process, the built bundles)', () => {
  // The board and engine run in this process here, so git must see the tests' environment.
  Object.assign(process.env, TEST_ENV)
  type Engine = typeof import('../../src/engine')
  const real = require(join(ROOT, 'dist', 'engine.js')) as Engine
  const {startBoard: startInProcess} = require(join(ROOT, 'dist', 'board.js')) as typeof import('../../src/board/index')

  let dir: string
  let running: Awaited<ReturnType<typeof startInProcess>>
  let inFlight = 0
  let most = 0
  let gate: Promise<void> = Promise.resolve()
  beforeAll(async () => {
    dir = makeRepo()
    await runJson(dir, ['init'])
    const add: Engine['cards']['add'] = async (s, a) => {
      inFlight++
      most = Math.max(most, inFlight)
      try {
        await gate
        return await real.cards.add(s, a)
      } finally {
        inFlight--
      }
    }
    const engine = {...real, cards: {...real.cards, add}} as Engine
    running = await startInProcess({engine, svg: () => { throw new Error('no graph here') }, cwd: dir, list: 'main', as: 'lead', offline: true, host: '127.0.0.1', port: 0, maxQueuedWrites: 10})
  })
  afterAll(async () => {
    await running?.close()
  })

  const send = (title: string) =>
    http(running.port, '/api/add', {
      method: 'POST',
      headers: {Host: `127.0.0.1:${running.port}`, 'X-Board-Token': running.token, 'Content-Type': 'application/json'},
      body: JSON.stringify({title}),
    })

  it('runs the board’s writes one at a time', async () => {
    const answers = await Promise.all(Array.from({length: 30}, (_, i) => send(`Queued ${i}`)))
    // 30 at once against a queue of 10: those beyond it are refused at once, the rest all land.
    const ok = answers.filter((a) => a.status === 200).length
    expect(ok).toBeGreaterThanOrEqual(10)
    expect(most).toBe(1)
    expect((await runJson(dir, ['list', '--all', '--limit', '1000'])).total).toBe(ok)
  })

  it('a full queue answers 503 board_busy with Retry-After, before anything runs', async () => {
    let release!: () => void
    gate = new Promise<void>((r) => (release = r))
    const before = (await runJson(dir, ['list', '--all', '--limit', '1000'])).total as number
    const answers: Answer[] = []
    const pending = Array.from({length: 15}, (_, i) => send(`Busy ${i}`).then((a) => void answers.push(a)))
    // The first write holds the gate, so 10 wait in the queue and 5 are turned away without waiting.
    while (answers.length < 5) await new Promise((r) => setTimeout(r, 20))
    for (const a of answers) {
      expect(a.status).toBe(503)
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(JSON.parse(a.body).error).toMatchObject({code: 'board_busy', retry_after: Number(a.headers['retry-after'])})
    }
    release()
    await Promise.all(pending)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10)
    expect(answers.filter((a) => a.status === 503)).toHaveLength(5)
    expect(most).toBe(1)
    expect((await runJson(dir, ['list', '--all', '--limit', '1000'])).total).toBe(before + 10)
  })
})
