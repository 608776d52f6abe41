/**
 * The reminder daemon (issue 33, item 7): `tasks remind --every D` runs a
 * pass every D (JSON lines with --json) until SIGTERM, one per list (a
 * second start exits 4 already_running; a pid file left by a dead process is
 * taken over), and `--install-unit` prints a systemd user unit. The passes
 * run as the card's creator, so the lost escalation (latched, never
 * delivered) is checked end to end: it lands in the creator's inbox. Real
 * git, real processes, real signals.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, cleanupAll, jsonError, makeRepo, run, runJson} from '../helpers/cli'

const T0 = '2026-11-29T08:00:00.000Z'
const at = (hours: number) => new Date(Date.parse(T0) + hours * 3600_000).toISOString()
const as = (actor: string, now?: string) => ({env: {TASKS_ACTOR: actor, ...(now ? {TASKS_NOW: now} : {})}})

let repo: string
let held: string
const children: ChildProcess[] = []

beforeAll(async () => {
  repo = makeRepo()
  await runJson(repo, ['init'], as('carol', T0))
  held = (await runJson(repo, ['add', 'Held by olga'], as('carol', T0))).task.id
  await runJson(repo, ['claim', held], as('olga', T0))
  await runJson(repo, ['config', 'set', 'escalate_after_seconds', '4h'], as('carol', T0))
})
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  cleanupAll()
})

interface Daemon {
  child: ChildProcess
  lines: string[]
  stderr: () => string
  exited: Promise<{code: number | null; signal: string | null}>
}

function startDaemon(args: string[], env: Record<string, string>): Daemon {
  const child = spawn(process.execPath, [BIN, 'remind', ...args], {cwd: repo, env: {...TEST_ENV, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
  children.push(child)
  const lines: string[] = []
  let out = ''
  let err = ''
  child.stdout!.on('data', (b) => {
    out += b
    const parts = out.split('\n')
    out = parts.pop()!
    lines.push(...parts)
  })
  child.stderr!.on('data', (b) => (err += b))
  const exited = new Promise<{code: number | null; signal: string | null}>((resolve) => child.on('exit', (code, signal) => resolve({code, signal})))
  return {child, lines, stderr: () => err, exited}
}

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const PID_FILE = () => join(repo, '.git', 'git-tasks', 'remind-main.pid')

describe('tasks remind --every', {timeout: 60_000}, () => {
  it('runs a pass every interval (JSON lines), refuses a second instance (exit 4), stops on SIGTERM within seconds', async () => {
    const d = startDaemon(['--every', '1s', '--json'], as('carol', at(5)).env)
    await until('two passes', () => d.lines.length >= 2)
    const [first, second] = d.lines.slice(0, 2).map((l) => JSON.parse(l))
    // The first pass is what `remind` does: a digest to olga and, run by the creator, the escalation to carol.
    expect(first.digests).toEqual([{to: 'olga', tasks: [held]}])
    expect(first.escalations).toEqual([{to: 'carol', task: held, owner: 'olga', last_seen: T0}])
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/)
    // The second finds everything latched: nothing sent, nothing written.
    expect(second).toMatchObject({digests: [], escalations: [], commit: null})
    expect(second.skipped.map((s: {to: string}) => s.to)).toEqual(['olga'])
    expect(Number(readFileSync(PID_FILE(), 'utf8').split('\n')[0])).toBe(d.child.pid)

    const again = await run(repo, ['remind', '--every', '1s', '--json'], as('carol', at(5)))
    expect(again.code).toBe(4)
    expect(jsonError(again)).toMatchObject({code: 'already_running', pid: d.child.pid, list: 'main'})
    expect(again.stdout).toBe('')

    const stopAt = Date.now()
    d.child.kill('SIGTERM')
    const end = await d.exited
    expect(Date.now() - stopAt).toBeLessThan(5000)
    expect(end.code).toBe(0)
    expect(d.stderr()).toBe('')
    expect(existsSync(PID_FILE())).toBe(false)

    // Delivered, not only latched: carol's inbox holds the escalation.
    const inbox = await runJson(repo, ['inbox', '--all'], as('carol', at(5)))
    expect(inbox.records.filter((r: {event: string}) => r.event === 'escalation').map((r: {task: string}) => r.task)).toEqual([held])
  })

  it('takes over a pid file whose process is gone; text passes; SIGINT stops it too; --once is one pass', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
    writeFileSync(PID_FILE(), `${dead.stdout}\n2020-01-01T00:00:00.000Z\n`)
    const d = startDaemon(['--every', '1s'], as('bot', at(6)).env)
    await until('two text passes', () => d.lines.filter((l) => l.startsWith('[')).length >= 2)
    expect(d.lines[0]).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] /)
    expect(d.lines.join('\n')).toContain('olga: already reminded at')
    expect(d.stderr()).toContain('reminding every 1s for list main')
    d.child.kill('SIGINT')
    expect((await d.exited).code).toBe(0)
    expect(existsSync(PID_FILE())).toBe(false)
    const once = await runJson(repo, ['remind', '--once'], as('bot', at(6)))
    expect(once.skipped.map((s: {to: string}) => s.to)).toEqual(['olga'])
    // A first pass that fails ends the daemon with its error (a list that is not here), leaving no pid file.
    const missing = await run(repo, ['remind', '--every', '1s', '--list', 'nosuch', '--json'], as('bot', at(6)))
    expect(missing.code).toBe(1)
    expect(jsonError(missing).code).toBe('not_initialised')
    expect(existsSync(join(repo, '.git', 'git-tasks', 'remind-nosuch.pid'))).toBe(false)
    // Refusals: --once with --every; an interval under a second.
    expect((await run(repo, ['remind', '--once', '--every', '5s'], as('bot'))).code).toBe(2)
    expect((await run(repo, ['remind', '--every', '0s'], as('bot'))).code).toBe(2)
  })

  it('--install-unit prints a systemd user unit running the daemon for this repository and list, writing nothing', async () => {
    const tip = spawnSync('git', ['rev-parse', 'refs/tasks/main'], {cwd: repo, env: TEST_ENV, encoding: 'utf8'}).stdout
    const u = await runJson(repo, ['remind', '--install-unit', '--every', '5m', '--list', 'main'], as('carol'))
    expect(u).toMatchObject({list: 'main', actor: 'carol', every_seconds: 300})
    expect(u.unit_name).toMatch(/^git-tasks-remind-.+-main-[0-9a-f]{8}\.service$/)
    expect(u.unit).toContain(`WorkingDirectory=${u.work_tree}`)
    expect(u.unit).toMatch(/\nExecStart=\S+ \S+ remind --every 5m --list main --as carol\n/)
    expect(u.unit).toContain('RestartPreventExitStatus=4')
    expect(u.unit).toContain('[Install]\nWantedBy=default.target')
    const text = await run(repo, ['remind', '--install-unit'], as('carol'))
    expect(text.stdout).toBe(u.unit.replace('--every 5m', '--every 10m'))
    expect(spawnSync('git', ['rev-parse', 'refs/tasks/main'], {cwd: repo, env: TEST_ENV, encoding: 'utf8'}).stdout).toBe(tip)
    // systemd's own reader accepts it, where there is one.
    const analyze = spawnSync('systemd-analyze', ['--version'], {encoding: 'utf8'})
    if (analyze.status === 0) {
      const file = join(repo, '..', u.unit_name)
      writeFileSync(file, u.unit)
      // (System mode: a user manager is not needed to read the file; it checks every key and that ExecStart's program exists.)
      const v = spawnSync('systemd-analyze', ['verify', file], {encoding: 'utf8'})
      expect(`${v.stdout}${v.stderr}`).not.toMatch(/Unknown (key|section)|Failed|bad-setting|ignoring/i)
      expect(v.status).toBe(0)
    }
  })
})
