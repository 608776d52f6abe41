/**
 * The board in the background and its JSON surface, with real processes:
 * `board --detach` returns once the board listens and records it in the
 * git directory; `board status` finds it (exit 0) or not (exit 3) and
 * clears a stale pid file; a second --detach is exit 4 already_running;
 * `board stop` ends it and removes the pid file. Over HTTP, on that
 * background board: the catalogue's pages cover every row once, newest
 * first, and a bad or foreign cursor is a 400; /export is the document of
 * `tasks export`; a bulk done of 3 cards is one commit, and a refused bulk
 * writes nothing.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {gitSync, jsonError, makeRepo, run, runJson} from '../helpers/cli'

const LEAD = {env: {TASKS_ACTOR: 'lead'}}
const OTHER = {env: {TASKS_ACTOR: 'agent-2'}}

let repo: string
let pidFile: string
let started: {url: string; port: number; token: string; pid: number; pid_file: string; log: string}
const ids: string[] = []

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').length > 0 // a zombie has none
  } catch {
    return true
  }
}

function http(path: string, options: {method?: string; headers?: Record<string, string>; body?: string} = {}): Promise<{status: number; body: string; headers: Record<string, unknown>}> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port: started.port, path, method: options.method ?? 'GET', headers: options.headers}, (res) => {
      let body = ''
      res.on('data', (b) => (body += b))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

const bulk = (body: Record<string, unknown>) =>
  http('/api/bulk', {method: 'POST', headers: {'X-Board-Token': started.token, 'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then((r) => ({status: r.status, json: JSON.parse(r.body)}))
const commits = () => Number(gitSync(repo, ['rev-list', '--count', 'refs/tasks/main']).trim())

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  // Nine cards in one process (one batch commit: they share a creation time, so the id breaks the ties), one more later.
  const plan = Array.from({length: 9}, (_, i) => ({op: 'add', title: `Card ${i + 1}`, tags: i % 3 === 0 ? ['web'] : []}))
  const b = await runJson(repo, ['batch', '-'], {...LEAD, input: JSON.stringify(plan)})
  ids.push(...b.results.map((r: {id: string}) => r.id))
  ids.push((await runJson(repo, ['add', 'Card 10', '--tag', 'web'], LEAD)).task.id)
  const r = await run(repo, ['board', '--detach', '--port', '0', '--json'], LEAD)
  expect(r.code, r.stderr).toBe(0)
  started = JSON.parse(r.stdout)
  pidFile = started.pid_file
})

afterAll(async () => {
  if (started?.pid && alive(started.pid)) process.kill(started.pid, 'SIGTERM')
})

describe('tasks board --detach, status, stop', () => {
  it('--detach returns once the board listens; the pid file in the git directory names it; status finds it', async () => {
    expect(started).toMatchObject({list: 'main', actor: 'lead', exposed: false, host: '127.0.0.1'})
    expect(pidFile).toBe(join(repo, '.git', 'git-tasks', 'board-main.pid'))
    expect(alive(started.pid)).toBe(true)
    expect(JSON.parse(readFileSync(pidFile, 'utf8'))).toMatchObject({pid: started.pid, url: started.url, port: started.port})
    expect((await http('/')).status).toBe(200)
    const status = await runJson(repo, ['board', 'status'])
    expect(status).toMatchObject({running: true, pid: started.pid, url: started.url, port: started.port, stale_removed: false})
    const text = await run(repo, ['board', 'status'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(started.url)
  })

  it('a second --detach reports the running board: exit 4 already_running, nothing started', async () => {
    const r = await run(repo, ['board', '--detach', '--port', '0', '--json'])
    expect(r.code).toBe(4)
    expect(jsonError(r)).toMatchObject({code: 'already_running', pid: started.pid, url: started.url})
    expect(JSON.parse(readFileSync(pidFile, 'utf8')).pid).toBe(started.pid)
  })
})

describe('the catalogue, /api/tasks', () => {
  it('two pages cover every row exactly once, newest first; the total counts them all', async () => {
    const first = await http('/api/tasks?page_size=6')
    expect(first.status).toBe(200)
    expect(first.headers['content-type']).toMatch(/^application\/json/)
    const p1 = JSON.parse(first.body)
    expect(p1).toMatchObject({list: 'main', total: 10, page_size: 6})
    expect(p1.rows).toHaveLength(6)
    expect(p1.rows[0]).toMatchObject({id: ids[9], title: 'Card 10', status: 'todo', owner: null, priority: 2, tags: ['web']})
    expect(Object.keys(p1.rows[0])).toEqual(expect.arrayContaining(['id', 'title', 'status', 'state', 'owner', 'assignee', 'priority', 'tags', 'created_at', 'updated_at', 'revision']))
    expect(typeof p1.next_cursor).toBe('string')
    const p2 = JSON.parse((await http(`/api/tasks?page_size=6&cursor=${p1.next_cursor}`)).body)
    expect(p2.rows).toHaveLength(4)
    expect(p2.next_cursor).toBeNull()
    const seen = [...p1.rows, ...p2.rows].map((r: {id: string}) => r.id)
    expect(new Set(seen).size).toBe(10)
    expect([...seen].sort()).toEqual([...ids].sort())
    // Newest first: creation time descending, then the id descending.
    const rows = [...p1.rows, ...p2.rows] as Array<{id: string; created_at: string}>
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!]
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true)
    }
  })

  it('query and status filter the rows (and the cursor is bound to them)', async () => {
    const web = JSON.parse((await http('/api/tasks?query=%23web&page_size=2')).body)
    expect(web.total).toBe(4)
    const next = JSON.parse((await http(`/api/tasks?query=%23web&page_size=2&cursor=${web.next_cursor}`)).body)
    expect(next.rows.map((r: {id: string}) => r.id)).not.toContain(web.rows[0].id)
    expect(next.next_cursor).toBeNull()
    expect(JSON.parse((await http('/api/tasks?status=done')).body)).toMatchObject({total: 0, rows: [], next_cursor: null})
    // The cursor of one query is refused for another (it would skip or repeat rows).
    const other = await http(`/api/tasks?page_size=2&cursor=${web.next_cursor}`)
    expect(other.status).toBe(400)
    expect(JSON.parse(other.body).error.code).toBe('bad_cursor')
  })

  it('bad parameters are a 400 with a JSON error', async () => {
    const cases: Array<[string, string]> = [
      ['/api/tasks?cursor=not-a-cursor', 'bad_cursor'],
      ['/api/tasks?cursor=WzEsIngiLCJ5IiwieiJd', 'bad_cursor'], // decodes, but was never given
      ['/api/tasks?page_size=0', 'bad_page_size'],
      ['/api/tasks?page_size=many', 'bad_page_size'],
      ['/api/tasks?page_size=501', 'bad_page_size'],
      ['/api/tasks?status=sleeping', 'bad_status'],
      ['/api/tasks?sort=title', 'bad_request'],
    ]
    for (const [path, code] of cases) {
      const r = await http(path)
      expect(r.status, path).toBe(400)
      expect(JSON.parse(r.body).error.code, path).toBe(code)
    }
    // Same rule as every read: the board's own host name only.
    expect((await http('/api/tasks', {headers: {Host: `attacker.example:${started.port}`}})).status).toBe(421)
  })
})

describe('/export', () => {
  it('downloads the document `tasks export --json` prints, as an attachment', async () => {
    const r = await http('/export')
    expect(r.status).toBe(200)
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename="tasks-main-\d{8}T\d{6}\.json"$/)
    const doc = JSON.parse(r.body)
    const cli = await runJson(repo, ['export'])
    expect({...doc, exported_at: null}).toEqual({...cli, exported_at: null})
    expect(doc.tasks).toHaveLength(10)
    expect((await http('/export?format=md')).body).toMatch(/^<!-- git-tasks\/export version 1/)
    expect((await http('/export?format=xml')).status).toBe(400)
  })
})

describe('bulk actions over HTTP', () => {
  it('a bulk done of 3 cards is one commit on the ref, by the board’s actor', async () => {
    const three = ids.slice(0, 3)
    const before = commits()
    const r = await bulk({action: 'done', ids: three})
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    expect(r.json.results.map((x: {status: string}) => x.status)).toEqual(['done', 'done', 'done'])
    expect(commits()).toBe(before + 1)
    expect(gitSync(repo, ['log', '-1', '--format=%an%n%B', 'refs/tasks/main'])).toMatch(/^lead\n[\s\S]*Tasks-Op: batch/)
    for (const id of three) expect((await runJson(repo, ['show', id])).task.status).toBe('done')
  })

  it('assign and tag are one commit each', async () => {
    const two = ids.slice(3, 5)
    const before = commits()
    expect((await bulk({action: 'assign', ids: two, assignee: 'agent-7'})).status).toBe(200)
    expect((await bulk({action: 'tag', ids: two, tags: ['triaged', '#urgent']})).status).toBe(200)
    expect(commits()).toBe(before + 2)
    for (const id of two) expect((await runJson(repo, ['show', id])).task).toMatchObject({assignee: 'agent-7', tags: expect.arrayContaining(['triaged', 'urgent'])})
  })

  it('a refused bulk writes nothing and names the refused card, with the CLI’s code', async () => {
    const [a, b, c] = ids.slice(5, 8) as [string, string, string]
    await runJson(repo, ['claim', b], OTHER)
    const before = commits()
    const r = await bulk({action: 'claim', ids: [a, b, c]})
    expect(r.status).toBe(409)
    expect(r.json.error).toMatchObject({code: 'already_claimed', id: b, index: 1, action: 'claim'})
    expect(r.json.error.message).toMatch(/^card 2 of 3: .*agent-2.*nothing was written/)
    // The CLI refuses the same claim with the same code.
    expect(jsonError(await run(repo, ['claim', b, '--json'], LEAD)).code).toBe('already_claimed')
    expect(commits()).toBe(before)
    expect((await runJson(repo, ['show', a])).task.owner).toBeNull()
    // A malformed request is refused before anything runs.
    for (const body of [{action: 'rm', ids: [a]}, {action: 'claim', ids: []}, {action: 'claim', ids: 'x'}, {action: 'tag', ids: [a], tags: []}, {action: 'assign', ids: [a]}]) {
      const bad = await bulk(body)
      expect(bad.status, JSON.stringify(body)).toBe(400)
      expect(bad.json.error.code).toBe('bad_bulk')
    }
    // Without the token: 403, nothing written.
    const anonymous = await http('/api/bulk', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({action: 'done', ids: [a]})})
    expect(anonymous.status).toBe(403)
    expect(commits()).toBe(before)
  })
})

describe('tasks board stop', () => {
  it('stops the board, waits for it to exit and removes the pid file; status is then exit 3', async () => {
    const stopped = await runJson(repo, ['board', 'stop'])
    expect(stopped).toMatchObject({stopped: true, pid: started.pid})
    expect(alive(started.pid)).toBe(false)
    expect(existsSync(pidFile)).toBe(false)
    const status = await run(repo, ['board', 'status', '--json'])
    expect(status.code).toBe(3)
    expect(JSON.parse(status.stdout)).toMatchObject({running: false, pid: null, url: null, stale_removed: false})
    // Stopping again is not an error.
    expect(await runJson(repo, ['board', 'stop'])).toMatchObject({stopped: false, pid: null})
  })

  it('a pid file whose process is gone is stale: status removes it, and --detach starts anew', async () => {
    writeFileSync(pidFile, JSON.stringify({pid: 2 ** 22 + 7, url: 'http://127.0.0.1:1/?token=x', host: '127.0.0.1', port: 1, actor: 'lead', list: 'main', exposed: false, started_at: '2020-01-01T00:00:00.000Z', log: 'x'}))
    const status = await run(repo, ['board', 'status', '--json'])
    expect(status.code).toBe(3)
    expect(JSON.parse(status.stdout)).toMatchObject({running: false, stale_removed: true})
    expect(existsSync(pidFile)).toBe(false)
    writeFileSync(pidFile, 'not json')
    const again = await runJson(repo, ['board', '--detach', '--port', '0'], LEAD)
    try {
      expect(again.pid).not.toBe(started.pid)
      expect(JSON.parse(readFileSync(pidFile, 'utf8')).pid).toBe(again.pid)
    } finally {
      expect((await runJson(repo, ['board', 'stop'])).stopped).toBe(true)
    }
    expect(alive(again.pid)).toBe(false)
  })

  it('two --detach at the same moment: one board runs, the other command is exit 4 already_running', async () => {
    const both = await Promise.all([run(repo, ['board', '--detach', '--port', '0', '--json'], LEAD), run(repo, ['board', '--detach', '--port', '0', '--json'], LEAD)])
    const winner = both.find((r) => r.code === 0)
    const loser = both.find((r) => r.code !== 0)
    expect(winner, both.map((r) => r.stderr).join('\n')).toBeDefined()
    expect(loser?.code).toBe(4)
    const pid = JSON.parse(winner!.stdout).pid
    expect(jsonError(loser!)).toMatchObject({code: 'already_running', pid})
    expect(JSON.parse(readFileSync(pidFile, 'utf8')).pid).toBe(pid)
    expect((await runJson(repo, ['board', 'stop'])).pid).toBe(pid)
  })

  it('a board that cannot start says why: --detach fails with its error, and no pid file is left', async () => {
    const r = await run(repo, ['board', '--detach', '--port', '0', '--list', 'nothing-here', '--json'])
    expect(r.code).toBe(1)
    expect(jsonError(r).code).toBe('not_initialised')
    expect(existsSync(join(repo, '.git', 'git-tasks', 'board-nothing-here.pid'))).toBe(false)
  })
})

