/**
 * `tasks search`, `tasks export`/`import` (with a Taskwarrior export) and
 * `tasks prime`, through the built CLI on real repositories.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cleanupAll, gitSync, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

const env = {TASKS_ACTOR: 'alice'}

/** The states each --status value selects (docs/cli.md). */
const STATE_GROUPS_FOR_TEST: Record<string, string[]> = {
  open: ['ready', 'waiting', 'reserved', 'todo', 'in_progress', 'stale', 'blocked'],
  ready: ['ready'],
  waiting: ['waiting'],
  in_progress: ['in_progress'],
  blocked: ['blocked'],
  done: ['done'],
  todo: ['ready', 'waiting', 'reserved', 'todo'],
  'ready,done': ['ready', 'done'],
}

async function repoWith(titles: Array<{title: string; body?: string; tags?: string[]}>): Promise<{repo: string; ids: string[]}> {
  const repo = makeRepo()
  await runJson(repo, ['init'])
  const ids: string[] = []
  for (const t of titles) {
    const args = ['add', t.title, ...(t.body ? ['--body', t.body] : []), ...(t.tags ?? []).flatMap((g) => ['--tag', g])]
    ids.push((await runJson(repo, args, {env})).task.id)
  }
  return {repo, ids}
}

describe('search', () => {
  it('ranks an exact title match first, finds a word only a comment has, filters, and follows changes', async () => {
    const {repo, ids} = await repoWith([
      {title: 'Lease renewal for long claims', body: 'The lease lease lease renewal path: renewal of the claim lease.'},
      {title: 'Lease renewal', body: 'short'},
      {title: 'Unrelated work', body: 'nothing about it', tags: ['docs']},
    ])
    const r = await runJson(repo, ['search', 'lease renewal'], {env})
    expect(r.results[0].task.id).toBe(ids[1]) // the exact title, though the other says "lease" more often
    expect(r.results.map((h: any) => h.task.id)).toContain(ids[0])
    expect(r.results.map((h: any) => h.task.id)).not.toContain(ids[2])
    expect(r.index.state).toBe('rebuilt')

    await runJson(repo, ['comment', ids[2]!, 'The flaky test was caused by a quokka in the CI cache'], {env})
    const c = await runJson(repo, ['search', 'quokka'], {env})
    expect(c.results).toHaveLength(1)
    expect(c.results[0]).toMatchObject({task: {id: ids[2]}, fields: ['comments']})
    expect(c.results[0].snippet.field).toBe('comments')
    expect(c.results[0].snippet.text).toContain('quokka')
    // Only the commented task was read again.
    expect(c.index).toMatchObject({state: 'updated', reindexed: 1, tasks: 3})
    expect((await runJson(repo, ['search', 'quokka'], {env})).index.state).toBe('current')

    // Filters.
    expect((await runJson(repo, ['search', 'quokka', '--tag', 'backend'], {env})).results).toEqual([])
    expect((await runJson(repo, ['search', 'quokka', '--tag', 'docs'], {env})).total).toBe(1)
    await runJson(repo, ['claim', ids[0]!], {env})
    const mine = await runJson(repo, ['search', 'lease', '--owner', '@me', '--status', 'in_progress'], {env})
    expect(mine.results.map((h: any) => h.task.id)).toEqual([ids[0]])

    // A removed task leaves the index.
    await runJson(repo, ['rm', ids[2]!, '--confirm', ids[2]!, '--reason', 'gone'], {env})
    expect((await runJson(repo, ['search', 'quokka'], {env})).results).toEqual([])
  })

  it('filters by state the same way whether the open rows or each card decide', async () => {
    // Items in every kind of state, all holding the word "wombat" (and the blocker "zebra" none).
    const {repo, ids} = await repoWith([
      {title: 'wombat one'},
      {title: 'wombat two'},
      {title: 'wombat three'},
      {title: 'wombat four', tags: ['x']},
      {title: 'wombat five'},
      {title: 'zebra'},
    ])
    const [, two, three, four, five, zebra] = ids as [string, string, string, string, string, string]
    await runJson(repo, ['claim', two], {env})
    await runJson(repo, ['claim', three], {env})
    await runJson(repo, ['done', three], {env})
    await runJson(repo, ['claim', four], {env})
    await runJson(repo, ['block', four, 'vendor'], {env})
    await runJson(repo, ['deps', five, zebra], {env})
    const all = await runJson(repo, ['search', 'wombat', '-n', '50'], {env})
    expect(all.total).toBe(5)
    const stateOf = new Map<string, string>(all.results.map((h: any) => [h.task.id, h.task.state]))
    expect(new Set(stateOf.values())).toEqual(new Set(['ready', 'in_progress', 'done', 'blocked', 'waiting']))
    for (const status of ['open', 'ready', 'waiting', 'in_progress', 'blocked', 'done', 'todo', 'ready,done']) {
      const want = STATE_GROUPS_FOR_TEST[status]!
      const expected = all.results.filter((h: any) => want.includes(h.task.state)).map((h: any) => h.task.id)
      const got = await runJson(repo, ['search', 'wombat', '--status', status, '-n', '50'], {env})
      expect(got.results.map((h: any) => h.task.id), status).toEqual(expected)
      expect(got.total, status).toBe(expected.length)
    }
    // With a tag too, every card decides (not the open rows): the same answer narrowed to the tag.
    for (const status of ['open', 'blocked', 'ready']) {
      const expected = status === 'ready' ? [] : [four]
      const tagged = await runJson(repo, ['search', 'wombat', '--status', status, '--tag', 'x'], {env})
      expect(tagged.results.map((h: any) => h.task.id), `${status} --tag x`).toEqual(expected)
    }
    const mine = await runJson(repo, ['search', 'wombat', '--status', 'open', '--owner', '@me'], {env})
    expect(mine.results.map((h: any) => h.task.id).sort()).toEqual([two, four].sort())
  })

  it('rebuilds a damaged cache and refuses an empty query', async () => {
    const {repo, ids} = await repoWith([{title: 'Alpha wombat'}])
    await runJson(repo, ['search', 'wombat'], {env})
    const cache = join(repo, '.git', 'git-tasks', 'search-main.idx')
    expect(existsSync(cache)).toBe(true)
    writeFileSync(cache, readFileSync(cache, 'utf8').slice(0, 40))
    const r = await runJson(repo, ['search', 'wombat'], {env})
    expect(r.index.state).toBe('rebuilt')
    expect(r.results[0].task.id).toBe(ids[0])
    // A damaged section under an intact header: noticed when read, rebuilt.
    const text = readFileSync(cache, 'utf8')
    const nl = text.indexOf('\n')
    writeFileSync(cache, `${text.slice(0, nl + 1)}#########${text.slice(nl + 10)}`)
    const again = await runJson(repo, ['search', 'wombat'], {env})
    expect(again.index.state).toBe('rebuilt')
    expect(again.results[0].task.id).toBe(ids[0])
    expect((await runJson(repo, ['search', 'wombat'], {env})).index.state).toBe('current')
    // The status bytes and the snippet texts, damaged under an intact header: noticed when a query reads them, rebuilt.
    await runJson(repo, ['edit', ids[0]!, '--body', 'The wombat digs at night.'], {env})
    const fresh = await runJson(repo, ['search', 'wombat'], {env})
    expect(fresh.index.state).toBe('updated')
    expect(fresh.results[0].snippet).toEqual({field: 'body', text: 'The wombat digs at night.'})
    const damage = (section: string, bytes: Buffer) => {
      const file = readFileSync(cache)
      const nl = file.indexOf(0x0a)
      const [at] = JSON.parse(file.subarray(0, nl).toString('utf8')).sections[section]
      bytes.copy(file, nl + 1 + at)
      writeFileSync(cache, file)
    }
    damage('status', Buffer.from([9]))
    const byStatus = await runJson(repo, ['search', 'wombat', '--status', 'open'], {env})
    expect(byStatus.index.state).toBe('rebuilt')
    expect(byStatus.results.map((h: any) => h.task.id)).toEqual([ids[0]])
    damage('textStart', Buffer.from([0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f]))
    const bySnippet = await runJson(repo, ['search', 'wombat'], {env})
    expect(bySnippet.index.state).toBe('rebuilt')
    expect(bySnippet.results[0].snippet).toEqual({field: 'body', text: 'The wombat digs at night.'})
    const empty = await run(repo, ['search', ' ', '--json'], {env})
    expect(empty.code).toBe(2)
    expect(jsonError(empty).code).toBe('usage')
  })
})

describe('export and import', () => {
  it('round-trips every field into an empty repository, and importing twice changes nothing', async () => {
    const {repo, ids} = await repoWith([
      {title: 'Parent item', body: 'A description\nwith two lines', tags: ['backend', 'p:x']},
      {title: 'Dependency'},
      {title: 'Blocked one'},
    ])
    const [parent, dep, blocked] = ids as [string, string, string]
    const child = (await runJson(repo, ['add', 'Child item', '--parent', parent, '--depends-on', dep, '--assignee', 'bob', '--key', 'k-1'], {env})).task.id
    await runJson(repo, ['comment', parent, 'a decision was made', '--kind', 'decision'], {env})
    await runJson(repo, ['claim', dep], {env})
    await runJson(repo, ['done', dep], {env})
    await runJson(repo, ['claim', blocked], {env})
    await runJson(repo, ['block', blocked, 'waiting on the vendor'], {env})
    await runJson(repo, ['cancel', child, '--reason', 'not needed'], {env})
    // The coordination data: checks (passed with evidence, failed, superseded), a flag, roles, a claim with a session,
    // a checkpoint (epoch, session, next), an inbox record for someone else (never exported).
    const chk1 = (await runJson(repo, ['check', 'add', parent, '--acceptance', 'docs say so'], {env})).check.id
    const chk2 = (await runJson(repo, ['check', 'add', parent, '--test', 'npm test'], {env})).check.id
    const chk3 = (await runJson(repo, ['check', 'add', parent, '--test', 'old test'], {env})).check.id
    await runJson(repo, ['check', 'pass', parent, chk1, '--evidence', 'README section'], {env})
    await runJson(repo, ['check', 'fail', parent, chk2, '--evidence', 'CI run 7 red'], {env})
    await runJson(repo, ['check', 'supersede', parent, chk3, '--reason', 'replaced'], {env})
    await runJson(repo, ['collab', 'add', parent, 'carol'], {env})
    await runJson(repo, ['watch', parent], {env: {TASKS_ACTOR: 'dave'}})
    await runJson(repo, ['notify', parent, 'comment:owner', 'done:creator'], {env})
    await runJson(repo, ['unwatch', parent, '--mute'], {env: {TASKS_ACTOR: 'erin'}})
    await runJson(repo, ['claim', parent, '--session', 'run-42'], {env})
    await runJson(repo, ['checkpoint', parent, '--summary', 'half done', '--next', 'the other half', '--session', 'run-42'], {env})
    await runJson(repo, ['flag', parent, 'looping on the same test'], {env: {TASKS_ACTOR: 'lead'}})
    await runJson(repo, ['comment', parent, 'carol, have a look'], {env: {TASKS_ACTOR: 'lead'}})
    expect((await runJson(repo, ['inbox', '--as', 'carol'])).unseen).toBeGreaterThan(0)

    const file = join(tempDir('export-'), 'tasks.json')
    const exported = await run(repo, ['export', '-o', file], {env})
    expect(exported.code).toBe(0)
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(doc).toMatchObject({format: 'git-tasks/export', version: 1, list: 'main'})
    expect(doc.tasks).toHaveLength(4)
    // Never the fencing tokens.
    for (const t of doc.tasks) {
      expect(t).not.toHaveProperty('epoch')
      expect(t).not.toHaveProperty('claim_epochs')
    }
    // Never anyone's inbox records (nor lease tokens) anywhere in the document.
    expect(readFileSync(file, 'utf8')).not.toContain('carol, have a look\n---')
    expect(JSON.stringify(doc)).not.toMatch(/inbox\/|\.seen/)
    const p = doc.tasks.find((t: any) => t.id === parent)
    expect(p).toMatchObject({session: 'run-42', flag_reason: 'looping on the same test', flagged_by: 'lead', collaborators: ['carol'], subscribers: ['dave'], notify_mute: ['erin']})
    expect(p.notify_roles).toEqual(expect.arrayContaining(['comment:owner', 'done:creator']))
    expect(p.checks.map((c: any) => [c.id, c.status])).toEqual(expect.arrayContaining([[chk1, 'passed'], [chk2, 'failed'], [chk3, 'superseded']]))
    expect(p.checks.find((c: any) => c.id === chk2).evidence).toBe('CI run 7 red')
    expect(p.comments.find((c: any) => c.kind === 'checkpoint')).toMatchObject({body: 'half done', next: 'the other half', session: 'run-42', epoch: 1})

    const target = makeRepo()
    await runJson(target, ['init'])
    const imported = await runJson(target, ['import', file], {env: {TASKS_ACTOR: 'importer'}})
    expect(imported).toMatchObject({source: 'git-tasks', created: 4, updated: 0, comments_added: 3, checks_written: 3, published: false})
    expect(imported.commit).toMatch(/^[0-9a-f]{40}$/)
    // One commit on top of init.
    expect(gitSync(target, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe('2')

    const back = JSON.parse((await run(target, ['export'], {env})).stdout)
    const strip = (d: any) => ({...d, commit: null, exported_at: null})
    expect(strip(back)).toEqual(strip(doc))

    const again = await runJson(target, ['import', file], {env: {TASKS_ACTOR: 'importer'}})
    expect(again).toMatchObject({commit: null, created: 0, updated: 0, unchanged: 4, comments_added: 0, checks_written: 0})
    // The imported card behaves: its checks stand in the way of done as they did (the failed one is unmet).
    expect((await runJson(target, ['check', 'list', parent])).unmet).toEqual([chk2])
    expect(gitSync(target, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe('2')

    // A card changed since is brought back to the file's version (revision + 1), the rest left alone.
    await runJson(target, ['edit', parent, '--title', 'Renamed'], {env})
    const third = await runJson(target, ['import', file], {env})
    // (the title edit put the passed and the failed check back to pending: the file's versions are written back)
    expect(third).toMatchObject({updated: 1, unchanged: 3, checks_written: 2})
    expect((await runJson(target, ['check', 'list', parent])).checks.find((c: any) => c.id === chk1)).toMatchObject({status: 'passed', evidence: 'README section'})
    expect((await runJson(target, ['show', parent], {env})).task.title).toBe('Parent item')

    // Markdown is for people.
    const md = await run(repo, ['export', parent, '--format', 'md'], {env})
    expect(md.stdout).toContain(`## ${parent}: Parent item`)
    expect(md.stdout).toContain('a decision was made')
  })

  it('refuses a broken document with nothing written', async () => {
    const target = makeRepo()
    await runJson(target, ['init'])
    const dir = tempDir('bad-')
    const cases: Array<[string, string]> = [
      ['notjson.json', '{nope'],
      ['other.json', '{"format":"something-else"}'],
      ['future.json', '{"format":"git-tasks/export","version":99,"tasks":[]}'],
      ['dangling.json', JSON.stringify({format: 'git-tasks/export', version: 1, tasks: [{id: 'tsk-aaaaaaaaaa', title: 'x', status: 'todo', priority: 2, tags: [], depends_on: ['tsk-bbbbbbbbbb'], created_at: '2026-01-01T00:00:00.000Z', created_by: 'a', updated_at: '2026-01-01T00:00:00.000Z', updated_by: 'a', revision: 1, body: '', comments: []}]})],
    ]
    for (const [name, text] of cases) {
      writeFileSync(join(dir, name), text)
      const r = await run(target, ['import', join(dir, name), '--json'], {env})
      expect(r.code, name).toBe(5)
      expect(jsonError(r).code, name).toBe('bad_import')
    }
    expect(gitSync(target, ['rev-list', '--count', 'refs/tasks/main']).trim()).toBe('1')
  })

  it('imports a Taskwarrior export with statuses, priorities, annotations and dependencies, idempotently', async () => {
    const tw = [
      {id: 1, uuid: '11111111-1111-4111-8111-111111111111', description: 'Design the schema', status: 'completed', entry: '20261101T090000Z', modified: '20261102T090000Z', end: '20261102T090000Z', priority: 'H', project: 'store', tags: ['design']},
      {id: 2, uuid: '22222222-2222-4222-8222-222222222222', description: 'Implement the writer', status: 'pending', entry: '20261101T100000Z', depends: '11111111-1111-4111-8111-111111111111', annotations: [{entry: '20261103T100000Z', description: 'use temp files and rename'}]},
      {id: 3, uuid: '33333333-3333-4333-8333-333333333333', description: 'Ship it', status: 'pending', entry: '20261101T110000Z', depends: ['22222222-2222-4222-8222-222222222222'], priority: 'L'},
      {id: 0, uuid: '44444444-4444-4444-8444-444444444444', description: 'Old idea', status: 'deleted', entry: '20261001T110000Z', end: '20261002T110000Z'},
    ]
    const file = join(tempDir('tw-'), 'task-export.json')
    writeFileSync(file, JSON.stringify(tw))
    const repo = makeRepo()
    await runJson(repo, ['init'])
    const r = await runJson(repo, ['import', file], {env})
    expect(r).toMatchObject({source: 'taskwarrior', created: 4, comments_added: 1})
    const list = await runJson(repo, ['list', '--all'], {env})
    const byTitle = new Map(list.tasks.map((t: any) => [t.title, t]))
    const schema = byTitle.get('Design the schema') as any
    const writer = byTitle.get('Implement the writer') as any
    const ship = byTitle.get('Ship it') as any
    expect(schema).toMatchObject({status: 'done', priority: 1, tags: ['design', 'project:store'], key: 'taskwarrior:11111111-1111-4111-8111-111111111111', created_at: '2026-11-01T09:00:00.000Z', closed_at: '2026-11-02T09:00:00.000Z'})
    expect(writer).toMatchObject({status: 'todo', priority: 2, depends_on: [schema.id], state: 'ready'})
    expect(ship).toMatchObject({priority: 3, depends_on: [writer.id], state: 'waiting'})
    expect(byTitle.get('Old idea')).toMatchObject({status: 'cancelled', cancel_reason: 'deleted in Taskwarrior'})
    const shown = await runJson(repo, ['show', writer.id], {env})
    expect(shown.comments).toMatchObject([{kind: 'note', author: 'taskwarrior', body: 'use temp files and rename', created_at: '2026-11-03T10:00:00.000Z'}])

    // Again, by another actor: nothing changes.
    const again = await runJson(repo, ['import', file], {env: {TASKS_ACTOR: 'someone-else'}})
    expect(again).toMatchObject({commit: null, created: 0, updated: 0, unchanged: 4})
    // A later export from Taskwarrior updates the same cards (same ids, by key).
    tw[1]!.status = 'completed'
    ;(tw[1] as any).end = '20261105T100000Z'
    writeFileSync(file, JSON.stringify(tw))
    const later = await runJson(repo, ['import', file], {env})
    expect(later).toMatchObject({created: 0, updated: 1, unchanged: 3})
    expect((await runJson(repo, ['show', writer.id], {env})).task).toMatchObject({status: 'done', closed_at: '2026-11-05T10:00:00.000Z'})
  })
})

describe('prime', () => {
  it('prints a guide from the list, and keeps a marked section of AGENTS.md current', async () => {
    const {repo} = await repoWith([{title: 'One'}, {title: 'Two'}])
    await runJson(repo, ['config', 'set', 'lease_seconds', '1800'], {env})
    const p = await runJson(repo, ['prime'], {env})
    expect(p).toMatchObject({list: 'main', actor: 'alice', lease_seconds: 1800, counts: {open: 2, held_by_you: 0}})
    expect(p.markdown).toContain('tasks next --json')
    expect(p.markdown).toContain('30m')
    expect(p.steps.map((s: any) => s.step)).toEqual(expect.arrayContaining(['find work', 'keep it', 'save progress', 'pass each check', 'finish', 'on stop']))
    // The whole loop, in order: next, checkpoint, check pass with evidence, done, release.
    const order = ['tasks next', 'tasks checkpoint ID --summary', 'tasks check pass ID CHECK --evidence', 'tasks done ID', 'tasks release'].map((c) => p.markdown.indexOf(c))
    expect(order.every((i: number) => i >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(p.markdown).toContain('checks_pending')

    const agents = join(repo, 'AGENTS.md')
    writeFileSync(agents, '# Agents\n\nOur own rules stay.\n')
    expect(await runJson(repo, ['prime', '--write', 'AGENTS.md'], {env})).toMatchObject({action: 'appended', changed: true})
    const first = readFileSync(agents, 'utf8')
    expect(first.startsWith('# Agents\n\nOur own rules stay.\n')).toBe(true)
    expect(first).toContain('git-tasks:prime:start')
    // Current already: unchanged, even after the list's counts moved.
    await runJson(repo, ['add', 'Three'], {env})
    expect(await runJson(repo, ['prime', '--write', 'AGENTS.md'], {env})).toMatchObject({action: 'unchanged', changed: false})
    // A setup change replaces the section in place, once.
    await runJson(repo, ['config', 'set', 'lease_seconds', '7200'], {env})
    expect(await runJson(repo, ['prime', '--write', 'AGENTS.md'], {env})).toMatchObject({action: 'replaced'})
    const second = readFileSync(agents, 'utf8')
    expect(second.match(/git-tasks:prime:start/g)).toHaveLength(1)
    expect(second).toContain('Leases last 2h')
    expect(second.startsWith('# Agents\n\nOur own rules stay.\n')).toBe(true)
  })
})
