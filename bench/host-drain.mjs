// A drain through a host that refuses the pending-change refs
// (`refs/tasks-claims/*`, as gitolite does where agents may write
// `refs/tasks/` only), against the same drain through a host that grants
// them: N agents, each in its own clone, loop `next` then `done` until
// `next` exits 3. Runs alternate between the two hosts so that the
// machine's load falls on both alike. Reported: wall seconds and CPU
// seconds of every process a drain ran (tasks, git, and the host's side),
// each run and the medians.
//
//   node bench/host-drain.mjs [agents=8] [items=24] [runs=4]
//
// The hosts are local bare remotes, the refusing one with a pre-receive hook
// that refuses `refs/tasks-claims/*` in gitolite's words. With
// HOST_DRAIN_GITOLITE=<dir>, they are a real gitolite3 host behind sshd on
// 127.0.0.1:2222 instead, as `bench/gitolite-host.sh <dir>` sets one up (as
// root): wild repos `refusing/..*` (agents `RW refs/tasks/`) and
// `granting/..*` (also `RW+ refs/tasks-claims/`), agents with the key
// `<dir>/keys/agent`, new repos created with `<dir>/keys/admin`; the host's
// CPU is read off sshd's reaped children.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {agent, childCpuSeconds, fleet, git} from './drain.mjs'
import {BIN, isolatedEnv} from './support.mjs'

const [agents = 8, items = 24, runs = 4] = process.argv.slice(2).map(Number)
const GITOLITE = process.env.HOST_DRAIN_GITOLITE || null

function sshCommand(key) {
  return `ssh -i ${key} -p 2222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR`
}

/** The refusing host's hook: every `refs/tasks-claims/*` ref refused, in gitolite's words. */
const REFUSE_CLAIMS = '#!/bin/sh\ns=0\nwhile read -r old new ref; do\n  case "$ref" in\n    refs/tasks-claims/*) echo "FATAL: W $ref agent DENIED by fallthru" >&2; s=1 ;;\n  esac\ndone\nexit $s\n'

/** A drain's clones of a new remote of the kind `host`: a gitolite repository, or a local bare one (refusing: with the hook). */
async function hostFleet(dir, host, run, env) {
  if (GITOLITE) {
    const url = `ssh://git@127.0.0.1/${host}/r${process.pid}-${run}`
    git(['ls-remote', url], {env: {...process.env, GIT_SSH_COMMAND: sshCommand(join(GITOLITE, 'keys', 'admin'))}}) // creates the wild repo
    return fleet(dir, BIN, env, agents, items, {url, env: {GIT_SSH_COMMAND: sshCommand(join(GITOLITE, 'keys', 'agent'))}})
  }
  const made = await fleet(dir, BIN, env, agents, items)
  if (host === 'refusing') writeFileSync(join(made.bare, 'hooks', 'pre-receive'), REFUSE_CLAIMS, {mode: 0o755})
  return made
}

const sshdPid = GITOLITE ? Number(readFileSync(join(GITOLITE, 'sshd', 'sshd.pid'), 'utf8').trim()) : null
const tmp = mkdtempSync(join(tmpdir(), 'tasks-host-drain-'))
const baseEnv = isolatedEnv(tmp)
const results = {granting: [], refusing: []}
try {
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? ['granting', 'refusing'] : ['refusing', 'granting']
    for (const host of order) {
      const dir = join(tmp, `${host}-${r}`)
      const {clones, env} = await hostFleet(dir, host, r, baseEnv)
      const trace = process.env.TRACE ? join(process.env.TRACE, `${host}-${r}.trace`) : null
      const runEnv = trace ? {...env, TASKS_TRACE_ONLINE: trace} : env
      const load = loadavg()[0]
      const t0 = Date.now()
      const cpu0 = childCpuSeconds()
      const host0 = sshdPid ? childCpuSeconds(sshdPid) : 0
      const logs = await Promise.all(clones.map((c, k) => agent(BIN, runEnv, c, `agent-${k + 1}`)))
      const seconds = (Date.now() - t0) / 1000
      const hostCpu = sshdPid ? childCpuSeconds(sshdPid) - host0 : 0
      const cpu = childCpuSeconds() - cpu0 + hostCpu
      const done = logs.reduce((n, l) => n + l.done, 0)
      const gaveUp = logs.flatMap((l) => l.gaveUp)
      if (done !== items || gaveUp.length > 0) throw new Error(`${host}: ${done} of ${items} done, gave up: ${gaveUp.join('; ')}`)
      results[host].push({seconds, cpu, hostCpu, load})
      console.log(`${host.padEnd(9)} run ${r + 1}: ${seconds.toFixed(1)} s wall, ${cpu.toFixed(2)} CPU s${sshdPid ? ` (host ${hostCpu.toFixed(2)})` : ''}, load ${load.toFixed(1)}`)
      rmSync(dir, {recursive: true, force: true})
    }
  }
} finally {
  rmSync(tmp, {recursive: true, force: true})
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
for (const host of ['granting', 'refusing']) {
  const rs = results[host]
  console.log(`${host.padEnd(9)} median: ${median(rs.map((x) => x.seconds)).toFixed(1)} s wall, ${median(rs.map((x) => x.cpu)).toFixed(2)} CPU s`)
}
const ratio = (k) => median(results.refusing.map((x) => x[k])) / median(results.granting.map((x) => x[k]))
console.log(`refusing ÷ granting: wall ${ratio('seconds').toFixed(2)}, CPU ${ratio('cpu').toFixed(2)}`)
