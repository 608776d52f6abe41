// Many agents on one remote (bench/README.md, "Agent drains"): N agents, each
// in its own clone in online mode, loop `tasks next --json` then `tasks done
// ID --json` until `next` exits 3, over 5 ready items per agent. Timed
// against the serial push floor: one agent alone doing the same next + done
// pushes back to back on an identical remote, in the same run.
//
// Correctness is the test suite's job (test/race/many-agents.test.ts); this
// only counts what it needs to report honestly: items done, and commands
// that gave up (any exit other than 0, or 3 at the end).
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import {join} from 'node:path'

/**
 * CPU seconds (user + system) used so far by the finished children of
 * process `pid` (this one by default) and theirs (every `tasks` process and
 * the git processes it and the local remote ran; for a daemon such as sshd,
 * the connections it served), from /proc/<pid>/stat; null where there is no
 * /proc. Unlike wall time this hardly depends on what else the machine
 * runs, so the drain's CPU ÷ the floor's CPU says how much work contention
 * wasted.
 */
export function childCpuSeconds(pid = 'self') {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the command name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14 here.
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return null
  }
}

export function git(args, opts) {
  const r = spawnSync('git', args, {encoding: 'utf8', ...opts})
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

function tasks(bin, cwd, env, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [bin, ...args], {cwd, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d) => (stdout += d))
    p.stderr.on('data', (d) => (stderr += d))
    p.on('error', reject)
    p.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

async function mustTasks(bin, cwd, env, args) {
  const r = await tasks(bin, cwd, env, args)
  if (r.code !== 0) throw new Error(`tasks ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

/**
 * `agents` clones in online mode of a new remote, and `items` ready items
 * published by one sync. The remote is a bare repository under `dir`, or
 * `remote` when given: its URL (an empty repository) and what its clients
 * need in their environment (GIT_SSH_COMMAND, say).
 */
export async function fleet(dir, bin, env, agents, items, remote = null) {
  mkdirSync(dir, {recursive: true})
  const bare = remote ? null : join(dir, 'remote.git')
  if (bare) git(['init', '-q', '--bare', bare], {env})
  const url = remote?.url ?? bare
  env = {...env, ...remote?.env}
  const clones = []
  for (let i = 0; i < agents; i++) {
    const c = join(dir, `agent-${i + 1}`)
    git(['clone', '-q', url, c], {env})
    await mustTasks(bin, c, env, ['init', '--remote', 'origin', '--json'])
    clones.push(c)
  }
  for (let start = 0; start < items; start += 8) {
    const batch = []
    for (let i = start; i < Math.min(items, start + 8); i++) batch.push(mustTasks(bin, clones[0], env, ['add', `item ${i + 1}`, '--offline', '--as', 'lead', '--json']))
    await Promise.all(batch)
  }
  await mustTasks(bin, clones[0], env, ['sync', '--json'])
  return {bare, clones, env}
}

export async function agent(bin, env, clone, actor) {
  const log = {done: 0, gaveUp: []}
  for (;;) {
    const r = await tasks(bin, clone, env, ['next', '--json', '--as', actor])
    if (r.code === 3) return log
    if (r.code !== 0) {
      log.gaveUp.push(`next: exit ${r.code} ${r.stderr.trim().slice(0, 200)}`)
      return log
    }
    const id = JSON.parse(r.stdout).task.id
    const d = await tasks(bin, clone, env, ['done', id, '--json', '--as', actor])
    if (d.code !== 0) {
      log.gaveUp.push(`done ${id}: exit ${d.code} ${d.stderr.trim().slice(0, 200)}`)
      return log
    }
    log.done++
  }
}

/** Drain with `agents` agents, then the serial floor for the same number of items. */
export async function drain({dir, bin, env, agents, itemsPerAgent = 5, onDrained = () => {}}) {
  const items = agents * itemsPerAgent
  const many = await fleet(join(dir, `drain-${agents}`), bin, env, agents, items)
  const load = [loadavg()[0]]
  let t0 = Date.now()
  let cpu0 = childCpuSeconds()
  const logs = await Promise.all(many.clones.map((c, k) => agent(bin, env, c, `agent-${k + 1}`)))
  const seconds = (Date.now() - t0) / 1000
  const cpu = cpu0 === null ? null : childCpuSeconds() - cpu0
  load.push(loadavg()[0])
  const done = logs.reduce((n, l) => n + l.done, 0)
  const gaveUp = logs.flatMap((l) => l.gaveUp)
  const leftover = git(['for-each-ref', '--format=%(refname)', 'refs/tasks-claims/'], {cwd: many.bare, env}).split('\n').filter(Boolean)
  onDrained({agents, items, seconds, done, gave_up: gaveUp, leftover_refs: leftover, cpu_seconds: cpu, load: [...load]})

  const solo = await fleet(join(dir, `floor-${agents}`), bin, env, 1, items)
  load.push(loadavg()[0])
  t0 = Date.now()
  cpu0 = childCpuSeconds()
  const alone = await agent(bin, env, solo.clones[0], 'solo')
  const floor = (Date.now() - t0) / 1000
  const floorCpu = cpu0 === null ? null : childCpuSeconds() - cpu0
  load.push(loadavg()[0])
  if (alone.done !== items) throw new Error(`serial floor: the lone agent finished ${alone.done} of ${items}`)
  return {
    agents,
    items,
    pushes: 2 * items,
    seconds,
    done,
    gave_up: gaveUp,
    leftover_refs: leftover,
    floor_seconds: floor,
    ratio: seconds / floor,
    cpu_seconds: cpu,
    floor_cpu_seconds: floorCpu,
    cpu_ratio: cpu === null || !floorCpu ? null : cpu / floorCpu,
    /** 1-minute load average: before and after the drain, before and after the floor. */
    load,
  }
}
