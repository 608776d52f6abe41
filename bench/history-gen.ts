/**
 * A long history, generated fast: the same mutations the CLI would commit
 * (the real pure ops, run one after another on a LiveOverlay of the list,
 * each file written by the real serialisers, each commit with the message,
 * trailers, author and date a `tasks` command gives it), streamed to
 * `git fast-import` instead of going through a load, an object write and an
 * `update-ref` per commit. 300,000 commits on a 100,000-task list take
 * minutes instead of days (bench/history.ts, the library path, measured
 * ~0.3 s a commit at 100,000 tasks).
 *
 * One commit per change: a claim, a finish or an edit rewrites one
 * task.md (a claim also returns any expired leases it sweeps, as the CLI
 * does), a comment adds one file, an add creates one task.md. With `inbox`
 * the commit also carries the inbox records and the actor's last_seen the
 * transaction adds (app/inbox-hook.ts); without it, exactly the op's plan.
 *
 * `test/integration/history-gen.test.ts` checks that the commits made here
 * are byte for byte (same ids) the commits the library's mutation path
 * writes for the same ops, with and without the inbox. Bundled on the fly
 * by bench/scale.mjs; never part of the CLI bundle.
 */
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {withInbox} from '../src/app/inbox-hook'
import {TasksError} from '../src/core/errors'
import {ACTORS_DIR} from '../src/core/inbox'
import {LiveOverlay} from '../src/core/live-overlay'
import {addTask} from '../src/core/ops/add'
import {claimTask} from '../src/core/ops/claim'
import {addComment} from '../src/core/ops/comment'
import {editTask} from '../src/core/ops/edit'
import {finishTask} from '../src/core/ops/lifecycle'
import {type Change, commitMessage, type OpContext, type Plan} from '../src/core/plan'
import type {Snapshot} from '../src/core/snapshot'
import {checkPath, serialiseCheck} from '../src/core/check'
import {taskDir} from '../src/core/ids'
import {commentPath, taskFilePath} from '../src/core/store-layout'
import {serialiseComment, serialiseTask, taskBody} from '../src/core/task-file'
import {authorOf, ListStore, type Loaded} from '../src/refstore/list-store'
import {prng} from './seed'

/** Who works on the list: people and agents, as in a team with a fleet. */
export const HISTORY_ACTORS = [
  'alice@example.com',
  'bob@example.com',
  'carol@example.com',
  'dave@example.com',
  'agent-claude-1',
  'agent-claude-2',
  'agent-claude-3',
  'agent-codex-1',
  'agent-codex-2',
  'agent-codex-3',
  'ci-bot',
  'release-bot',
]

const NOTES = [
  'Checked the logs: the failure is in the retry loop, not in the parser.',
  'Reproduced on a fresh clone; a fix and a test are on the way.',
  'Blocked on the review of the previous change, picking something else meanwhile.',
  'Measured before and after: about twice as fast on the large list.',
  'The docs still describe the old behaviour; updating them with the fix.',
  'Could not reproduce on Linux; needs someone with a Windows machine.',
  'Split the work: the refactor first, the behaviour change in a second commit.',
  'Done locally, waiting for CI before closing.',
]

/** One mutation as a command would run it: the op's plan and the context it ran with. */
export interface Step {
  plan: Plan<unknown>
  ctx: OpContext
  /** The op as a command runs it (on whatever snapshot it loaded). */
  op: (snap: Snapshot, ctx: OpContext) => Plan<unknown>
}

export interface StepOptions {
  /** PRNG seed: which items are touched, by whom, when. */
  seed: number
  /** Time of the first mutation (ISO-8601); later ones follow 1–19 s apart (mean 10 s). */
  start: string
  actors?: readonly string[]
  /** One card drawn every `every` draws instead of a random one (bench/blame.mjs: the card blamed). */
  focus?: {id: string; every: number}
}

/**
 * The mutations, one at a time, each computed on the list as the previous
 * ones left it (`live`, which the caller advances with `live.apply` after
 * it has used the step). The mix, by draw: 30% claim a random item, 20%
 * finish an item the actor holds, 20% comment on a random item, 20% change
 * a priority, 10% add an item. A draw whose op refuses (claiming an item in
 * progress or done, say) makes no commit, as a refused command makes none.
 */
export function* historySteps(live: LiveOverlay, opts: StepOptions): Generator<Step, never, void> {
  const rand = prng(opts.seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const actors = opts.actors ?? HISTORY_ACTORS
  const held = new Map<string, string[]>(actors.map((a) => [a, []]))
  let ids = [...live.sortedIds()]
  let clock = Date.parse(opts.start)
  let n = 0
  let draws = 0
  const snap: Snapshot = live.snapshot
  for (;;) {
    const actor = pick(actors)
    const mine = held.get(actor)!
    const draw = rand()
    const drawn = pick(ids)
    const id = opts.focus && draws++ % opts.focus.every === 0 ? opts.focus.id : drawn
    const now = new Date(clock).toISOString()
    const entropy = Math.floor(rand() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(rand() * 2 ** 32).toString(16).padStart(8, '0')
    const ctx: OpContext = {actor, now, entropy}
    let op: Step['op']
    if (draw < 0.3) op = (s, c) => claimTask(s, c, {id})
    else if (draw < 0.5 && mine.length > 0) {
      const target = mine.shift()!
      op = (s, c) => finishTask(s, c, {id: target})
    } else if (draw < 0.7) {
      const text = `${pick(NOTES)} (${n})`
      op = (s, c) => addComment(s, c, {id, text})
    } else if (draw < 0.9) {
      const priority = Math.floor(rand() * 5)
      op = (s, c) => editTask(s, c, {id, priority})
    } else {
      const args = {title: `Follow-up ${n}: ${pick(NOTES).slice(0, 48)}`, priority: Math.floor(rand() * 5), tags: ['history'], dependsOn: []}
      op = (s, c) => addTask(s, c, args)
    }
    let plan: Plan<unknown>
    try {
      plan = op(snap, ctx)
    } catch (e) {
      if (!(e instanceof TasksError)) throw e
      continue
    }
    if (plan.changes.length === 0) continue
    if (plan.op === 'claim') mine.push(id)
    for (const c of plan.changes) if (c.kind === 'put-task' && !live.has(c.meta.id)) ids.push(c.meta.id)
    n++
    clock += (1 + Math.floor(rand() * 19)) * 1000
    yield {plan, ctx, op}
    if (ids.length > live.size + 16) ids = [...live.sortedIds()]
  }
}

/** A file write of a plan: content, or null to remove the path (a directory for delete-task). */
export interface FileWrite {
  path: string
  content: string | null
}

/**
 * The files a plan writes, in order, as ListStore.applyChanges writes them;
 * `bodyOf(id)` is the current body of a task whose put-task keeps it.
 */
export async function filesOf(changes: readonly Change[], bodyOf: (id: string) => Promise<string>): Promise<FileWrite[]> {
  const out: FileWrite[] = []
  for (const c of changes) {
    switch (c.kind) {
      case 'put-task':
        out.push({path: taskFilePath(c.meta.id), content: serialiseTask(c.meta, c.body ?? (await bodyOf(c.meta.id)))})
        break
      case 'delete-task':
        out.push({path: taskDir(c.id), content: null})
        break
      case 'add-comment':
        out.push({path: commentPath(c.comment.task, c.comment.id), content: serialiseComment(c.comment)})
        break
      case 'put-check':
        out.push({path: checkPath(c.check.task, c.check.id), content: serialiseCheck(c.check)})
        break
      case 'put-file':
        out.push({path: c.path, content: c.content})
        break
      case 'delete-file':
        out.push({path: c.path, content: null})
        break
    }
  }
  return out
}

export interface GenerateOptions extends StepOptions {
  /** Work tree of a repository with the list (`refs/tasks/<list>`). */
  cwd: string
  list?: string
  count: number
  /** Add the inbox records and last_seen a command's transaction adds. */
  inbox?: boolean
  /** Called every 10,000 commits. */
  progress?: (done: number) => void
}

export interface GenerateResult {
  commits: number
  ms: number
  byOp: Record<string, number>
  files: number
  tip: string
}

/**
 * `count` commits on the list's ref through `git fast-import` (its pack is
 * written into the repository; `git gc` repacks it as usual). The ref moves
 * once, at the end.
 */
export async function generateHistory(opts: GenerateOptions): Promise<GenerateResult> {
  const t0 = Date.now()
  const store = await ListStore.open(opts.cwd, opts.list ?? 'main')
  const loaded = await store.load()
  const base = loaded.index.commit
  const baseRoot = loaded.index.rootTree
  const live = new LiveOverlay(loaded.snapshot)
  // Files this run wrote that a later step reads: task.md (a kept body) and actors/ (the inbox registry).
  const written = new Map<string, string | null>()
  const bodyOf = async (id: string): Promise<string> => {
    const path = taskFilePath(id)
    if (written.has(path)) {
      const text = written.get(path)
      return text ? taskBody(text) : ''
    }
    const obj = await store.reader.read(`${baseRoot}:${path}`)
    return obj && obj.type === 'blob' ? taskBody(obj.content.toString('utf8')) : ''
  }
  // What withInbox reads (registry entries under actors/), served from this run's writes over the base tree.
  const registryReader = {
    readFilesIn: async (_root: string, dir: string, names: readonly string[]): Promise<Map<string, string>> => {
      const out = new Map<string, string>()
      const fromBase = names.filter((n) => !written.has(`${dir}/${n}`))
      if (fromBase.length > 0) for (const [k, v] of await store.readFilesIn(baseRoot, dir, fromBase)) out.set(k, v)
      for (const n of names) {
        const text = written.get(`${dir}/${n}`)
        if (typeof text === 'string') out.set(n, text)
      }
      return out
    },
  } as unknown as ListStore
  const ref = store.ref
  const proc = spawn('git', ['fast-import', '--quiet', '--done', '--date-format=raw'], {cwd: opts.cwd, stdio: ['pipe', 'ignore', 'inherit']})
  const exited = once(proc, 'close')
  const stdin = proc.stdin
  let pending: Buffer[] = []
  let pendingBytes = 0
  const flush = async (): Promise<void> => {
    if (pendingBytes === 0) return
    const chunk = Buffer.concat(pending)
    pending = []
    pendingBytes = 0
    if (!stdin.write(chunk)) await once(stdin, 'drain')
  }
  const emit = async (text: string | Buffer): Promise<void> => {
    const b = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
    pending.push(b)
    pendingBytes += b.length
    if (pendingBytes > 1 << 20) await flush()
  }
  const data = (text: string): Buffer => {
    const body = Buffer.from(text, 'utf8')
    return Buffer.concat([Buffer.from(`data ${body.length}\n`), body, Buffer.from('\n')])
  }
  const byOp: Record<string, number> = {}
  let files = 0
  let commits = 0
  const steps = historySteps(live, opts)
  try {
    while (commits < opts.count) {
      const step = steps.next().value as Step
      const plan = opts.inbox ? await withInbox(registryReader, {index: {rootTree: baseRoot}, snapshot: live.snapshot} as unknown as Loaded, step.plan, step.ctx) : step.plan
      const writes = await filesOf(plan.changes, bodyOf)
      const who = authorOf(step.ctx.actor)
      const ident = `${who.name} <${who.email}> ${Math.floor(Date.parse(step.ctx.now) / 1000)} +0000`
      await emit(`commit ${ref}\nauthor ${ident}\ncommitter ${ident}\n`)
      await emit(data(commitMessage(plan, step.ctx.actor)))
      if (commits === 0) await emit(`from ${base}\n`)
      for (const w of writes) {
        if (w.content === null) await emit(`D ${w.path}\n`)
        else {
          await emit(`M 100644 inline ${w.path}\n`)
          await emit(data(w.content))
        }
        if (w.path.endsWith('/task.md') || w.path.startsWith(`${ACTORS_DIR}/`)) written.set(w.path, w.content)
        else if (w.content === null) for (const k of [...written.keys()]) if (k.startsWith(`${w.path}/`)) written.delete(k)
      }
      await emit('\n')
      live.apply(plan.changes)
      files += writes.length
      byOp[plan.op] = (byOp[plan.op] ?? 0) + 1
      commits++
      if (commits % 10_000 === 0) opts.progress?.(commits)
    }
    await emit('done\n')
    await flush()
    stdin.end()
    const [code] = await exited
    if (code !== 0) throw new Error(`git fast-import exited ${code}`)
  } finally {
    if (proc.exitCode === null) proc.kill()
    store.close()
  }
  const tip = await new Promise<string>((resolve, reject) => {
    const p = spawn('git', ['rev-parse', ref], {cwd: opts.cwd, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    p.stdout.on('data', (d: Buffer) => (out += d.toString()))
    p.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git rev-parse ${ref} exited ${code}`))))
  })
  return {commits, ms: Date.now() - t0, byOp, files, tip}
}
