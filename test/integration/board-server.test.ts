/**
 * The board's HTTP surface without a browser: beyond loopback every request
 * needs the token and the board says so; a Host header that is not the
 * board's own is refused (DNS rebinding); a cross-site or non-JSON POST is
 * refused; a busy port is exit 1 listen_failed. (The browser tests cover the
 * pages.)
 */
import {createServer} from 'node:net'
import {request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, jsonError, makeRepo, run, runJson} from '../helpers/cli'
import {type StartedBoard, startBoard} from '../helpers/board'

let repo: string
let exposed: StartedBoard
let local: StartedBoard
let item: string

/** One raw HTTP request (fetch would not let us set Host). */
function http(port: number, path: string, options: {method?: string; headers?: Record<string, string>; body?: string} = {}): Promise<{status: number; body: string; headers: Record<string, unknown>}> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers}, (res) => {
      let body = ''
      res.on('data', (b) => (body += b))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'])
  item = (await runJson(repo, ['add', 'An item'])).task.id
  ;[exposed, local] = await Promise.all([
    startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead'}, ['--host', '0.0.0.0']),
    startBoard(BIN, repo, {...TEST_ENV, TASKS_ACTOR: 'lead'}),
  ])
})

afterAll(async () => {
  await Promise.all([exposed?.stop(), local?.stop()])
})

describe('tasks board over HTTP', () => {
  it('beyond loopback: says so at start, and reads need the token too', async () => {
    expect(exposed.printed.exposed).toBe(true)
    expect(exposed.stderr()).toMatch(/board_exposed.*every request needs the token/)
    expect((await http(exposed.port, '/')).status).toBe(401)
    expect((await http(exposed.port, '/graph.svg')).status).toBe(401)
    const withToken = await http(exposed.port, `/?token=${exposed.token}`)
    expect(withToken.status).toBe(303)
    const cookie = String((withToken.headers['set-cookie'] as string[])[0]).split(';')[0]!
    expect((await http(exposed.port, '/', {headers: {Cookie: cookie}})).status).toBe(200)
  })

  it('on loopback: reads are open but only under the board’s own host name', async () => {
    expect(local.printed.exposed).toBe(false)
    expect(local.stderr()).toBe('')
    expect((await http(local.port, '/')).status).toBe(200)
    expect((await http(local.port, '/', {headers: {Host: `attacker.example:${local.port}`}})).status).toBe(421)
  })

  it('the graph: the page draws the SVG without a style attribute (its CSP allows none); /graph.svg is the standalone file that shrinks to the window', async () => {
    const page = await http(local.port, '/graph')
    expect(page.status).toBe(200)
    const drawn = page.body.slice(page.body.indexOf('<svg'), page.body.indexOf('</svg>'))
    expect(drawn).toContain('<g class="node ')
    expect(drawn).not.toContain('style=')
    const file = await http(local.port, '/graph.svg')
    expect(file.body.startsWith('<svg')).toBe(true)
    expect(file.body.split('\n')[0]).toContain(' style="max-width:100%;height:auto"')
    // Asked again in the other order: each form as it should be (the board keeps both for the commit).
    expect((await http(local.port, '/graph')).body).toBe(page.body)
  })

  it('changes: the token in a header, JSON, same origin; the result is the command’s', async () => {
    const post = (headers: Record<string, string>, body = JSON.stringify({id: item, text: 'hello'})) =>
      http(local.port, '/api/comment', {method: 'POST', headers: {Host: `127.0.0.1:${local.port}`, ...headers}, body})
    const token = {'X-Board-Token': local.token}
    expect((await post({'Content-Type': 'application/json'})).status).toBe(403)
    expect((await post({...token, 'Content-Type': 'text/plain'})).status).toBe(415)
    expect((await post({...token, 'Content-Type': 'application/json', Origin: 'http://evil.example'})).status).toBe(403)
    const before = (await runJson(repo, ['show', item])).comments.length
    expect(before).toBe(0)
    const ok = await post({...token, 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${local.port}`})
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body)).toMatchObject({comment: {author: 'lead', body: 'hello'}, published: false})
    const bad = await post({...token, 'Content-Type': 'application/json'}, JSON.stringify({id: item, text: ''}))
    expect(bad.status).toBe(422)
    expect(JSON.parse(bad.body).error.code).toBe('empty_comment')
    expect((await runJson(repo, ['show', item])).comments.length).toBe(1)
  })

  it('every action goes through the CLI’s use case as the board’s actor; a stale edit is refused', async () => {
    const act = async (action: string, body: Record<string, unknown>) => {
      const r = await http(local.port, `/api/${action}`, {method: 'POST', headers: {Host: `127.0.0.1:${local.port}`, 'X-Board-Token': local.token, 'Content-Type': 'application/json'}, body: JSON.stringify(body)})
      return {status: r.status, json: JSON.parse(r.body)}
    }
    const added = await act('add', {title: 'From the board', tags: ['web'], priority: 1})
    expect(added.status).toBe(200)
    const id = added.json.task.id
    expect(added.json.task).toMatchObject({created_by: 'lead', tags: ['web'], priority: 1})
    const revision = added.json.task.revision
    expect((await act('edit', {id, title: 'Renamed', revision})).json.task.title).toBe('Renamed')
    const stale = await act('edit', {id, title: 'Again', revision})
    expect(stale.status).toBe(409)
    expect(stale.json.error.code).toBe('edit_conflict')
    expect((await act('assign', {id, assignee: 'lead'})).json.task.assignee).toBe('lead')
    expect((await act('assign', {id, assignee: null})).json.task.assignee).toBeNull()
    expect((await act('claim', {id})).json.task.owner).toBe('lead')
    expect((await act('block', {id, note: 'needs review'})).json.task.status).toBe('blocked')
    expect((await act('reopen', {id})).json.task.status).toBe('todo')
    await act('claim', {id})
    expect((await act('done', {id})).json.task.status).toBe('done')
    expect((await act('done', {id: 'tsk-zzzzzz'})).status).toBe(404)
    const log = await runJson(repo, ['log', id])
    expect(log.events.map((e: {op: string}) => e.op).reverse()).toEqual(['add', 'edit', 'assign', 'assign', 'claim', 'block', 'reopen', 'claim', 'done'])
    expect(new Set(log.events.map((e: {actor: string}) => e.actor))).toEqual(new Set(['lead']))
  })

  it('the creation gate holds on the board: an add carries its checks when the list requires them', async () => {
    const act = async (action: string, body: Record<string, unknown>) => {
      const r = await http(local.port, `/api/${action}`, {method: 'POST', headers: {Host: `127.0.0.1:${local.port}`, 'X-Board-Token': local.token, 'Content-Type': 'application/json'}, body: JSON.stringify(body)})
      return {status: r.status, json: JSON.parse(r.body)}
    }
    await runJson(repo, ['config', 'set', 'require_checks', 'true'])
    try {
      const bare = await act('add', {title: 'No checks'})
      expect(bare.status).toBe(409)
      expect(bare.json.error).toMatchObject({code: 'checks_required', missing: ['acceptance', 'test']})
      const whole = await act('add', {title: 'With checks', acceptance: ['it shows'], test: ['npm test']})
      expect(whole.status).toBe(200)
      expect(whole.json.checks.map((c: {kind: string}) => c.kind)).toEqual(['acceptance', 'test'])
    } finally {
      await runJson(repo, ['config', 'unset', 'require_checks'])
    }
  })

  it('a spec edit of an item someone else holds is refused (the board cannot force); a priority change is not the spec', async () => {
    const act = async (action: string, body: Record<string, unknown>) => {
      const r = await http(local.port, `/api/${action}`, {method: 'POST', headers: {Host: `127.0.0.1:${local.port}`, 'X-Board-Token': local.token, 'Content-Type': 'application/json'}, body: JSON.stringify(body)})
      return {status: r.status, json: JSON.parse(r.body)}
    }
    const id = (await runJson(repo, ['add', 'Held elsewhere'], {env: {TASKS_ACTOR: 'agent-9'}})).task.id as string
    await runJson(repo, ['claim', id], {env: {TASKS_ACTOR: 'agent-9'}})
    const refused = await act('edit', {id, title: 'Renamed by the lead', type: 'bug'})
    expect(refused.json.error.code).toBe('not_owner')
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect((await runJson(repo, ['show', id])).task).toMatchObject({title: 'Held elsewhere', type: 'task'})
    expect((await act('edit', {id, priority: 0})).json.task.priority).toBe(0)
  })

  it('a port in use is exit 1 listen_failed', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as {port: number}).port
    try {
      const r = await run(repo, ['board', '--port', String(port), '--json'])
      expect(r.code).toBe(1)
      expect(jsonError(r).code).toBe('listen_failed')
    } finally {
      blocker.close()
    }
  })
})
