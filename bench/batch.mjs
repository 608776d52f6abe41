// `tasks batch` at 1,000 and 10,000 operations (BENCH_BATCH_SIZES to change):
// whole CLI processes, start to exit, on a fresh list. Each batch is a mix
// per item: create (depending on the previous item, by local name), check
// add, claim, check pass with evidence, done — five operations an agent
// fleet's planner or runner would send, all valid, as one commit.
// Also times the same batch with --each. Run: npm run build && nice -n 5 node bench/batch.mjs
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const BIN = fileURLToPath(new URL('../bin/tasks', import.meta.url))
const sizes = (process.env.BENCH_BATCH_SIZES ?? '1000,10000').split(',').map(Number)
const env = {...process.env, TASKS_ACTOR: 'bench', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x'}

function ops(n) {
  const out = []
  for (let i = 0; out.length < n; i++) {
    out.push({op: 'create', name: `t${i}`, title: `item ${i}`, tags: ['bench'], ...(i > 0 ? {depends_on: [`$t${i - 1}`]} : {})})
    out.push({op: 'check', action: 'add', id: `$t${i}`, test: `test ${i} passes`, name: `c${i}`})
    out.push({op: 'claim', id: `$t${i}`, lease: '30m'})
    out.push({op: 'check', action: 'pass', id: `$t${i}`, check: `$c${i}`, evidence: `run ${i} green`})
    out.push({op: 'done', id: `$t${i}`})
  }
  return out.slice(0, n)
}

function time(repo, file, extra = []) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [BIN, 'batch', file, '--json', ...extra], {cwd: repo, env, maxBuffer: 1 << 30})
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`batch exited ${r.status}: ${r.stderr}`)
  const out = JSON.parse(r.stdout)
  return {ms, applied: out.applied, failed: out.failed}
}

for (const n of sizes) {
  const results = []
  for (const each of [false, true]) {
    const repo = mkdtempSync(join(tmpdir(), 'bench-batch-'))
    execFileSync('git', ['init', '-q'], {cwd: repo})
    execFileSync(process.execPath, [BIN, 'init'], {cwd: repo, env})
    const file = join(repo, 'ops.json')
    writeFileSync(file, JSON.stringify(ops(n)))
    const r = time(repo, file, each ? ['--each'] : [])
    const commits = execFileSync('git', ['rev-list', '--count', 'refs/tasks/main'], {cwd: repo}).toString().trim()
    results.push(`${each ? '--each' : 'atomic'} ${(r.ms / 1000).toFixed(2)} s (applied ${r.applied}, refused ${r.failed}, commits on the ref ${commits})`)
    rmSync(repo, {recursive: true, force: true})
  }
  console.log(`batch of ${n} operations: ${results.join('; ')}`)
}
