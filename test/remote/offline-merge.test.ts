/**
 * Two clones edit the same list offline, every kind of field on both sides,
 * then `tasks sync` in turn (A, B, A — and on a fresh setup B, A, B). The
 * second sync merges field by field (docs/merge.md) and the reconciler
 * repairs what the merge broke; the third fast-forwards. Checked:
 *
 * - both clones (and the remote) end with the same tree;
 * - each field kind follows its rule: scalars changed on both (title,
 *   priority) → the later side, the losing title kept as a comment; a
 *   scalar changed on one side → that side; tags → adds and removes of both;
 *   bodies → a clean 3-way text merge, or on overlap the later text with the
 *   other filed as a comment; comments of both sides kept; a dependency
 *   cycle made across clones → one edge removed and a problem comment on
 *   the card; the same `--key` created on both → one task; two different
 *   tasks with the same id → the unpublished one moves to a new id (and
 *   edges to it follow); competing offline claims → the published one wins,
 *   the sync that merged reports `lost_claim` for the loser, and the epoch
 *   moves past the token both were handed (the loser's is stale);
 * - nothing typed on either side is lost: every title, body and comment
 *   text is in some file of the final tree (`git ls-tree -r` + `cat-file`);
 * - the history has a real merge commit with two parents.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, run, runJson} from '../helpers/cli'
import {history, trailer} from '../race/support'
import {REF, expectSchema, filesOf, putFileOnRef, shared, taskFiles, taskPath, tipOf, treeOf} from './support'

const A = {env: {TASKS_ACTOR: 'alice', TASKS_OFFLINE: '1'}}
const B = {env: {TASKS_ACTOR: 'bob', TASKS_OFFLINE: '1'}}

const M_BASE = Array.from({length: 7}, (_, i) => `line ${i + 1}`).join('\n')
const M_A = M_BASE.replace('line 1', 'line 1 edited on A')
const M_B = M_BASE.replace('line 7', 'line 7 edited on B')
const K_A = 'alpha\nbeta typed on A\ngamma'
const K_B = 'alpha\nbeta typed on B\ngamma'

/** Every text typed on either side during the offline edits. */
const TYPED = [
  'X title typed on A',
  'X title typed on B',
  'comment typed on A about X',
  'comment typed on B about X',
  'S title typed on A',
  'line 1 edited on A',
  'line 7 edited on B',
  K_A,
  K_B,
  'Keyed typed on A',
  'Keyed typed on B',
  'keyed body typed on A',
  'keyed body typed on B',
  'Twin typed on A',
  'Twin typed on B',
  'twin body typed on A',
  'twin body typed on B',
  'Needs twin typed on B',
  'comment typed on B about C',
]

interface Setup {
  bare: string
  a: string
  b: string
  id: Record<string, string>
}

/** A shared list with base items (created online on A, synced to B), then divergent offline edits. */
async function setup(): Promise<Setup> {
  const {bare, clones} = await shared(2)
  const [a, b] = clones as [string, string]
  const online = {env: {TASKS_ACTOR: 'lead'}}
  const id: Record<string, string> = {}
  const add = async (name: string, args: string[]) => (id[name] = (await runJson(a, ['add', ...args], online)).task.id)
  await add('X', ['X base title', '--tag', 'keep,drop-a,drop-b'])
  await add('S', ['S base title'])
  await add('M', ['M base title', '--body', M_BASE])
  await add('K', ['K base title', '--body', 'alpha\nbeta\ngamma'])
  await add('D1', ['D1 base title'])
  await add('D2', ['D2 base title'])
  await add('C', ['C base title'])
  expect((await runJson(b, ['sync'])).action).toBe('fast_forward')
  expect(treeOf(a)).toBe(treeOf(b))

  // Clone A, offline.
  await runJson(a, ['edit', id.X!, '--title', 'X title typed on A', '-p', '1', '--tag', 'tag-a', '--untag', 'drop-a'], A)
  await runJson(a, ['comment', id.X!, 'comment typed on A about X'], A)
  await runJson(a, ['edit', id.S!, '--title', 'S title typed on A'], A)
  await runJson(a, ['edit', id.M!, '--body', M_A], A)
  await runJson(a, ['edit', id.K!, '--body', K_A], A)
  await runJson(a, ['deps', id.D1!, id.D2!], A)
  id.keyed = (await runJson(a, ['add', 'Keyed typed on A', '--key', 'same-key', '--body', 'keyed body typed on A'], A)).task.id
  id.twin = (await runJson(a, ['add', 'Twin typed on A', '--key', 'twin', '--body', 'twin body typed on A'], A)).task.id
  await runJson(a, ['claim', id.C!], A)

  // Clone B, offline, afterwards (so B is "the later side" of every field both changed).
  await runJson(b, ['edit', id.X!, '--title', 'X title typed on B', '-p', '3', '--tag', 'tag-b', '--untag', 'drop-b'], B)
  await runJson(b, ['comment', id.X!, 'comment typed on B about X'], B)
  await runJson(b, ['edit', id.S!, '-p', '0'], B)
  await runJson(b, ['edit', id.M!, '--body', M_B], B)
  await runJson(b, ['edit', id.K!, '--body', K_B], B)
  await runJson(b, ['deps', id.D2!, id.D1!], B)
  expect((await runJson(b, ['add', 'Keyed typed on B', '--key', 'same-key', '--body', 'keyed body typed on B'], B)).task.id).toBe(id.keyed)
  // Two *different* tasks with one id: the same key gives the same id; dropping the key on B (a hand edit) makes them different tasks.
  expect((await runJson(b, ['add', 'Twin typed on B', '--key', 'twin', '--body', 'twin body typed on B'], B)).task.id).toBe(id.twin)
  const path = taskPath(b, id.twin!)
  const text = gitSync(b, ['cat-file', '-p', `${REF}:${path}`])
  expect(text).toMatch(/^key: "twin"$/m)
  putFileOnRef(b, path, text.replace(/^key: "twin"\n/m, ''), 'hand edit: drop the key')
  id.needs = (await runJson(b, ['add', 'Needs twin typed on B', '--depends-on', id.twin!], B)).task.id
  await runJson(b, ['claim', id.C!], B)
  await runJson(b, ['comment', id.C!, 'comment typed on B about C'], B)

  // Offline means offline: the remote has none of it.
  expect(tipOf(bare)).not.toBe(tipOf(a))
  expect(tipOf(bare)).not.toBe(tipOf(b))
  return {bare, a, b, id}
}

afterAll(() => cleanupAll())

for (const order of ['A, B, A', 'B, A, B'] as const) {
  describe(`offline edits on two clones, then sync ${order}`, {timeout: 120_000}, () => {
    it('both end with the same tree; every field follows its rule; nothing typed is lost; a two-parent merge commit', async () => {
      const s = await setup()
      const {id} = s
      const [first, second] = order === 'A, B, A' ? [s.a, s.b] : [s.b, s.a]
      const [winner, loser] = order === 'A, B, A' ? ['alice', 'bob'] : ['bob', 'alice']

      const sync1 = await runJson(first, ['sync'])
      expect(sync1.action).toBe('pushed')
      const sync2 = await runJson(second, ['sync'])
      expect(sync2.action).toBe('merged')
      const sync3 = await runJson(first, ['sync'])
      expect(sync3.action).toBe('fast_forward')
      for (const c of [s.a, s.b]) expect((await runJson(c, ['sync'])).action).toBe('up_to_date')
      for (const out of [sync1, sync2, sync3]) expectSchema('sync', out)

      // One tree everywhere.
      expect(treeOf(s.a)).toBe(treeOf(s.b))
      expect(treeOf(s.bare)).toBe(treeOf(s.a))
      expect(tipOf(s.a)).toBe(tipOf(s.bare))

      // The merge commit: two parents, the two tips that diverged.
      const commits = history(s.bare)
      const merge = commits.find((c) => trailer(c, 'Tasks-Op') === 'sync')!
      expect(merge).toBeDefined()
      expect(merge.oid).toBe(sync2.commit)
      expect(merge.parents.sort()).toEqual([sync2.local_before, sync2.remote_before].sort())
      expect(commits.filter((c) => c.parents.length > 1)).toHaveLength(1)
      const graph = gitSync(s.bare, ['log', '--graph', '--oneline', REF])
      expect(graph).toContain('|\\')

      // Notes of the merging sync.
      const notes = sync2.notes as any[]
      const kinds = (task: string) => notes.filter((n) => n.task === task).map((n) => `${n.kind}${n.field ? `:${n.field}` : ''}`).sort()
      const lost = notes.filter((n) => n.kind === 'lost_claim')
      expect(lost).toHaveLength(1)
      expect(lost[0]).toMatchObject({task: id.C, loser: {owner: loser, epoch: 1, status: 'in_progress'}, winner: {owner: winner, epoch: 1, status: 'in_progress'}})
      expect(kinds(id.X!)).toEqual(['field_conflict:priority', 'field_conflict:title'])
      expect(kinds(id.S!)).toEqual([])
      expect(kinds(id.M!)).toEqual([])
      expect(kinds(id.K!)).toEqual(['body_conflict'])
      expect(kinds(id.keyed!)).toEqual(['body_conflict', 'field_conflict:title'])
      expect(kinds(id.twin!)).toEqual(['id_collision'])
      expect(sync1.notes).toEqual([])
      expect(sync3.notes).toEqual([])
      const repairs = sync2.repairs as any[]
      expect(repairs.map((r) => [r.kind, r.task])).toEqual([['dependency_cycle', id.D2]])

      // Field by field, as either clone shows it.
      for (const clone of [s.a, s.b]) {
        const show = (t: string) => runJson(clone, ['show', t], {env: {TASKS_ACTOR: 'reader'}})
        const x = await show(id.X!)
        expect(x.task).toMatchObject({title: 'X title typed on B', priority: 3, tags: ['keep', 'tag-a', 'tag-b']})
        const xComments = x.comments.map((c: any) => [c.author, c.body])
        expect(xComments).toContainEqual(['alice', 'comment typed on A about X'])
        expect(xComments).toContainEqual(['bob', 'comment typed on B about X'])
        expect(x.comments.some((c: any) => c.author === 'alice' && c.body.includes('X title typed on A'))).toBe(true)

        expect((await show(id.S!)).task).toMatchObject({title: 'S title typed on A', priority: 0})
        const m = await show(id.M!)
        expect(m.body.trimEnd()).toBe(M_BASE.replace('line 1', 'line 1 edited on A').replace('line 7', 'line 7 edited on B'))
        expect(m.comments).toEqual([])
        const k = await show(id.K!)
        expect(k.body.trimEnd()).toBe(K_B)
        expect(k.comments.some((c: any) => c.author === 'alice' && c.body.includes(K_A))).toBe(true)

        // The cycle: the edge of the later-edited member (D2, edited on B) removed, with a problem comment on its card.
        const d1 = await show(id.D1!)
        const d2 = await show(id.D2!)
        expect(d1.task.depends_on).toEqual([id.D2])
        expect(d2.task.depends_on).toEqual([])
        expect(d2.comments.some((c: any) => c.kind === 'problem' && c.author === 'git-tasks' && /cycle/i.test(c.body))).toBe(true)

        const keyed = await show(id.keyed!)
        expect(keyed.task).toMatchObject({title: 'Keyed typed on B', key: 'same-key'})

        // The twins: both kept, the published one at the id, the other moved with a problem comment; B's edge follows B's twin.
        const listed = await runJson(clone, ['list', '--all'], {env: {TASKS_ACTOR: 'reader'}})
        const twins = listed.tasks.filter((t: any) => /^Twin typed on/.test(t.title))
        expect(twins.map((t: any) => t.title).sort()).toEqual(['Twin typed on A', 'Twin typed on B'])
        const note = notes.find((n) => n.kind === 'id_collision')
        const publishedTwin = order === 'A, B, A' ? 'Twin typed on A' : 'Twin typed on B'
        expect(twins.find((t: any) => t.id === id.twin).title).toBe(publishedTwin)
        const moved = twins.find((t: any) => t.id !== id.twin)
        expect(note.moved_to).toBe(moved.id)
        expect((await show(moved.id)).comments.some((c: any) => c.kind === 'problem' && c.author === 'git-tasks')).toBe(true)
        const bTwin = twins.find((t: any) => t.title === 'Twin typed on B')
        expect((await show(id.needs!)).task.depends_on).toEqual([bTwin.id])

        const c = await show(id.C!)
        // Both claims were handed epoch 1: the epoch moves past it (the winner may still present 1).
        expect(c.task).toMatchObject({owner: winner, status: 'in_progress', epoch: 2})
        expect(c.comments.some((x: any) => x.kind === 'problem' && x.author === 'git-tasks' && x.body.includes(loser))).toBe(true)
        expect(c.comments.some((x: any) => x.author === 'bob' && x.body === 'comment typed on B about C')).toBe(true)
        expect(listed.broken).toEqual([])
      }

      // The loser of the claim is not the owner: finishing it is refused; with the epoch it was handed, as stale.
      const loserClone = loser === 'bob' ? s.b : s.a
      for (const [extra, code] of [[[], 'not_owner'], [['--epoch', '1'], 'stale_epoch']] as const) {
        const r = await run(loserClone, ['done', id.C!, ...extra, '--json'], {env: {TASKS_ACTOR: loser}})
        expect(r.code, r.stderr).toBe(6)
        expect(JSON.parse(r.stderr).error.code).toBe(code)
      }

      // Nothing typed was lost: every text is in some file of the final tree; no conflict markers anywhere.
      const files = filesOf(s.a)
      const all = [...files.values()].join('\n\u0000\n')
      for (const text of TYPED) expect(all, `"${text}" is not in the final tree`).toContain(text)
      for (const [path, content] of files) expect(content, path).not.toMatch(/^(<{7}|={7}|>{7})( |$)/m)
      expect(taskFiles(files, id.X!).length).toBeGreaterThanOrEqual(4)
    })
  })
}

describe('several clones sync their offline work at the same moment', {timeout: 120_000}, () => {
  it('every sync succeeds (a lost push re-merges); all clones converge on one tree with everything typed', async () => {
    const N = 4
    const {bare, clones} = await shared(N)
    const shared_ = (await runJson(clones[0]!, ['add', 'Shared card', '--tag', 'base'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    for (const c of clones.slice(1)) expect((await runJson(c, ['sync'])).action).toBe('fast_forward')
    const typed: string[] = []
    await Promise.all(
      clones.map(async (c, i) => {
        const env = {env: {TASKS_ACTOR: `agent-${i}`, TASKS_OFFLINE: '1'}}
        await runJson(c, ['add', `task typed on clone ${i}`, '--body', `body typed on clone ${i}`], env)
        await runJson(c, ['comment', shared_, `comment typed on clone ${i}`], env)
        await runJson(c, ['edit', shared_, '--tag', `tag-${i}`], env)
        typed.push(`task typed on clone ${i}`, `body typed on clone ${i}`, `comment typed on clone ${i}`)
      }),
    )
    const results = await Promise.all(clones.map((c) => run(c, ['sync', '--json'])))
    for (const [i, r] of results.entries()) expect(r.code, `clone ${i}: ${r.stderr}`).toBe(0)
    const actions = results.map((r) => JSON.parse(r.stdout).action)
    expect(actions.filter((a) => a === 'pushed' || a === 'merged')).toHaveLength(N)
    // A second round brings everyone to the remote's tip.
    for (const c of clones) expect(['fast_forward', 'up_to_date']).toContain((await runJson(c, ['sync'])).action)
    const tree = treeOf(bare)
    for (const c of clones) expect(treeOf(c)).toBe(tree)
    const all = [...filesOf(bare).values()].join('\n')
    for (const t of typed) expect(all, t).toContain(t)
    const card = await runJson(clones[0]!, ['show', shared_])
    expect(card.task.tags).toEqual(['base', ...clones.map((_, i) => `tag-${i}`)].sort())
    expect(card.comments).toHaveLength(N)
  })
})

describe('an online mutation that has to merge unpublished offline work first', {timeout: 60_000}, () => {
  // mutateOnline merges local commits the remote lacks (mergeTips) before running the op, exactly as
  // `tasks sync` would; DESIGN.md: a tentative offline claim that loses "the loser is told (sync output
  // and an inbox record)". Checked agnostic of shape: the loser learns of it from the command's output or
  // from an inbox record on the ref.
  it('tells the loser of a claim that the merge superseded', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const c = (await runJson(a, ['add', 'Claim me'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    const x = (await runJson(a, ['add', 'Unrelated'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    expect((await runJson(b, ['sync'])).action).toBe('fast_forward')
    await runJson(b, ['claim', c, '--offline'], {env: {TASKS_ACTOR: 'bob'}})
    await runJson(a, ['claim', c], {env: {TASKS_ACTOR: 'alice'}})

    // Bob, back online, comments on another card: the comment merges his offline claim away.
    const r = await run(b, ['comment', x, 'back online', '--json'], {env: {TASKS_ACTOR: 'bob'}})
    expect(r.code, r.stderr).toBe(0)
    expect((await runJson(b, ['show', c])).task.owner).toBe('alice')
    const merge = history(bare).find((h) => h.parents.length === 2)
    expect(merge && trailer(merge, 'Tasks-Merge')).toBe(`lost_claim ${c}`)

    const toldInOutput = /lost_claim/.test(r.stdout + r.stderr)
    const inbox = [...filesOf(bare).keys()].filter((p) => p.startsWith('inbox/bob/'))
    expect(toldInOutput || inbox.length > 0, `bob was not told that his claim on ${c} was superseded; output: ${r.stdout}`).toBe(true)
  })
})

/** The pack files of a clone's object directory. */
function packsOf(repo: string): string[] {
  const dir = join(repo, '.git', 'objects', 'pack')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pack'))
    .map((f) => join(dir, f))
}

describe('a sync of many offline commits packs them while it fetches and merges', {timeout: 60_000}, () => {
  // packUnpublished: the objects of the local commits the remote lacks go into a pack of this clone (git
  // pack-objects, beside the fetch and the merge) that the push then reuses. Lowered to 2 commits here.
  const P = {env: {TASKS_PREPACK_COMMITS: '2'}}
  it('leaves a pack holding the offline commits, and the merge is published as without it', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const shared1 = (await runJson(a, ['add', 'Shared card'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    expect((await runJson(b, ['sync'])).action).toBe('fast_forward')
    const offline: string[] = []
    for (const title of ['Offline one', 'Offline two', 'Offline three']) offline.push((await runJson(b, ['add', title], B)).task.id as string)
    await runJson(b, ['comment', shared1, 'typed offline on B'], B)
    await runJson(a, ['comment', shared1, 'typed online on A'], {env: {TASKS_ACTOR: 'lead'}})
    const packsBefore = packsOf(b)
    const out = await runJson(b, ['sync'], {env: {...B.env, ...P.env, TASKS_OFFLINE: ''}})
    expect(out.action).toBe('merged')
    // One new pack, with every object of the offline commits (the commits themselves among them).
    const added = packsOf(b).filter((p) => !packsBefore.includes(p))
    expect(added).toHaveLength(1)
    const packed = new Set(gitSync(b, ['verify-pack', '-v', added[0]!]).split('\n').map((l) => l.split(' ')[0]))
    const offlineCommits = gitSync(b, ['rev-list', out.local_before as string, `^${out.remote_before as string}`]).split('\n').filter(Boolean)
    expect(offlineCommits.length).toBe(4)
    for (const c of offlineCommits) expect(packed.has(c), c).toBe(true)
    // The remote and a fresh look from A agree, with everything typed on both sides.
    expect(tipOf(bare)).toBe(tipOf(b))
    expect((await runJson(a, ['sync'], {env: {TASKS_ACTOR: 'lead'}})).action).toBe('fast_forward')
    const texts = [...filesOf(bare).values()].join('\n')
    for (const t of ['typed offline on B', 'typed online on A', 'Offline one', 'Offline three']) expect(texts).toContain(t)
    for (const id of offline) expect((await runJson(a, ['show', id], {env: {TASKS_ACTOR: 'lead'}})).task.id).toBe(id)
  })
})

describe('fencing tokens after a merge (issue 7, point 6)', {timeout: 60_000}, () => {
  it('two offline claims both got epoch 1: after sync the loser\'s token is refused (stale_epoch), the winner\'s still works', async () => {
    const {bare, clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const alice = {env: {TASKS_ACTOR: 'alice'}}
    const bob = {env: {TASKS_ACTOR: 'bob'}}
    const id = (await runJson(a, ['add', 'Fenced'], {env: {TASKS_ACTOR: 'lead'}})).task.id as string
    expect((await runJson(b, ['sync'])).action).toBe('fast_forward')
    expect((await runJson(a, ['claim', id, '--offline'], alice)).task.epoch).toBe(1)
    expect((await runJson(b, ['claim', id, '--offline'], bob)).task.epoch).toBe(1)
    expect((await runJson(a, ['sync'], alice)).action).toBe('pushed')
    const merged = await runJson(b, ['sync'], bob)
    expect(merged.action).toBe('merged')
    expect(JSON.stringify(merged)).toMatch(/lost_claim/)
    const shown = (await runJson(b, ['show', id], bob)).task
    expect(shown).toMatchObject({owner: 'alice', epoch: 2})

    // Bob's stale token no longer matches, even with --force, and nothing is written.
    const tip = tipOf(bare)
    for (const args of [
      ['release', id, '--epoch', '1', '--force', '--reason', 'mine'],
      ['done', id, '--epoch', '1', '--force', '--reason', 'mine'],
      ['heartbeat', id, '--epoch', '1'],
    ]) {
      const r = await run(b, [...args, '--json'], bob)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(6)
      expect(jsonError(r)).toMatchObject({code: 'stale_epoch', epoch: 2, your_epoch: 1, owner: 'alice'})
    }
    expect(tipOf(bare)).toBe(tip)

    // The card records the winning claim's numbers (docs/merge.md, claim_epochs).
    const file = () => gitSync(bare, ['cat-file', '-p', `${REF}:${taskPath(bare, id)}`])
    expect(file()).toContain('epoch: 2\nclaim_epochs:\n  - 1\n  - 2\n')
    // Alice, who never saw the merge, keeps working with the token she was given.
    expect((await runJson(a, ['heartbeat', id, '--epoch', '1'], alice)).task).toMatchObject({owner: 'alice', epoch: 2})
    expect((await runJson(a, ['done', id, '--epoch', '1'], alice)).task).toMatchObject({status: 'done', owner: 'alice'})
    // The record ends with the claim.
    expect(file()).not.toContain('claim_epochs')
    expect((await runJson(b, ['sync'], bob)).action).toBe('fast_forward')
    expect(treeOf(b)).toBe(treeOf(bare))
  })
})
