/**
 * Custom fields (issue 33, item 5) through the built CLI, MCP, a batch, the
 * server guard and two clones: add/edit/unset with every refusal writing
 * nothing; typed fields declared in config and refused by the CLI and by
 * `verify` on a hand-made commit; `show` (text and JSON) and `list --field`;
 * an export/import round trip; two clones merging different fields and the
 * same field.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN, TEST_ENV, cleanupAll, gitSync, jsonError, run, runJson, tempDir} from '../helpers/cli'
import {initializedRepo} from '../helpers/list-repo'
import {putFileOnRef, shared, taskPath} from '../remote/support'

afterAll(() => cleanupAll())

const REF = 'refs/tasks/main'
const ALICE = {env: {TASKS_ACTOR: 'alice'}}
const BOB = {env: {TASKS_ACTOR: 'bob'}}
const tip = (dir: string) => gitSync(dir, ['rev-parse', REF]).trim()

describe('custom fields on the command line', {timeout: 120_000}, () => {
  it('add, edit and unset; refusals exit 5 and write nothing; typed fields; show and list --field', async () => {
    const dir = await initializedRepo()
    await runJson(dir, ['config', 'set', 'field.estimate', 'integer'], ALICE)
    const bad = await run(dir, ['config', 'set', 'field.estimate', 'int', '--json'], ALICE)
    expect(bad.code).toBe(5)
    expect(jsonError(bad).code).toBe('bad_config_value')
    const added = await runJson(dir, ['add', 'Train v3', '--type', 'compute', '--field', 'command=python train.py --lr 0.1', '--field', 'estimate=03'], ALICE)
    const id = added.task.id as string
    expect(added.task.fields).toEqual({command: 'python train.py --lr 0.1', estimate: 3})
    const other = (await runJson(dir, ['add', 'Evaluate', '--field', 'estimate=3', '--field', 'host=gpu-02'], ALICE)).task.id as string
    await runJson(dir, ['claim', id], ALICE)
    // A watcher (not the holder) keeps the job's fields up to date: no --force needed.
    const edited = await runJson(dir, ['edit', id, '--field', 'job_id=8812', '--field', 'host=gpu-01', '--unset-field', 'command'], BOB)
    expect(edited.fields).toEqual(['fields'])
    expect(edited.task.fields).toEqual({estimate: 3, host: 'gpu-01', job_id: '8812'})
    const stored = gitSync(dir, ['cat-file', '-p', `${REF}:${taskPath(dir, id)}`])
    expect(stored).toMatch(/\nfields:\n {2}estimate: 3\n {2}host: "gpu-01"\n {2}job_id: "8812"\n---/)
    const before = tip(dir)
    for (const [args, code] of [
      [['add', 'X', '--field', 'Estimate=3'], 'bad_field'],
      [['add', 'X', '--field', 'estimate'], 'bad_field'],
      [['add', 'X', '--field', 'estimate=three'], 'bad_field_value'],
      [['add', 'X', '--field', 'note='], 'bad_field_value'],
      [['add', 'X', '--field', `note=${'x'.repeat(4097)}`], 'bad_field_value'],
      [['edit', id, '--field', 'estimate=1.5'], 'bad_field_value'],
      [['edit', id, '--field', 'host=a', '--unset-field', 'host'], 'bad_field'],
      [['edit', id, '--unset-field', 'Host'], 'bad_field'],
      [['list', '--field', 'estimate=many'], 'bad_field_value'],
    ] as const) {
      const r = await run(dir, [...args, '--json'], BOB)
      expect(r.code, args.join(' ')).toBe(5)
      expect(jsonError(r).code, args.join(' ')).toBe(code)
      expect(tip(dir), args.join(' ')).toBe(before)
    }
    // show: JSON and text.
    const shown = await runJson(dir, ['show', id], ALICE)
    expect(shown.task.fields).toEqual({estimate: 3, host: 'gpu-01', job_id: '8812'})
    const text = (await run(dir, ['show', id], ALICE)).stdout
    expect(text).toMatch(/fields: +estimate=3\n +host=gpu-01\n +job_id=8812\n/)
    // list --field: all must match; read by the declared type; every JSON row carries fields.
    const listed = async (...filters: string[]) => ((await runJson(dir, ['list', ...filters.flatMap((f) => ['--field', f])], ALICE)).tasks as Array<{id: string}>).map((t) => t.id).sort()
    expect(await listed('estimate=3')).toEqual([id, other].sort())
    expect(await listed('estimate=003', 'host=gpu-01')).toEqual([id])
    expect(await listed('host=gpu-03')).toEqual([])
    const all = await runJson(dir, ['list'], ALICE)
    expect(Object.fromEntries(all.tasks.map((t: any) => [t.id, t.fields]))).toEqual({[id]: {estimate: 3, host: 'gpu-01', job_id: '8812'}, [other]: {estimate: 3, host: 'gpu-02'}})
    // Unset the last fields: none left in the file.
    await runJson(dir, ['edit', other, '--unset-field', 'estimate', '--unset-field', 'host'], ALICE)
    expect(gitSync(dir, ['cat-file', '-p', `${REF}:${taskPath(dir, other)}`])).not.toMatch(/fields/)
    expect((await runJson(dir, ['show', other], ALICE)).task.fields).toEqual({})
  })

  it('the guard refuses a hand-made commit whose field does not fit its declared type, and accepts one that does', async () => {
    const dir = await initializedRepo()
    await runJson(dir, ['config', 'set', 'field.stage', 'enum(queued|running|done)'], ALICE)
    const id = (await runJson(dir, ['add', 'Job', '--field', 'stage=queued'], ALICE)).task.id as string
    const good = tip(dir)
    const path = taskPath(dir, id)
    const text = gitSync(dir, ['cat-file', '-p', `${REF}:${path}`])
    const forge = (stage: string) => {
      gitSync(dir, ['update-ref', REF, good])
      const next = text.replace(/^ {2}stage: .*$/m, `  stage: ${stage}`).replace(/^revision: 1$/m, 'revision: 2').replace(/^updated_by: .*$/m, 'updated_by: "bob"')
      return putFileOnRef(dir, path, next, `edit ${id}: by hand\n\nTasks-Op: edit\nActor: bob`)
    }
    const forged = forge('"finished"')
    const r = await run(dir, ['verify', good, forged, '--json'])
    expect(r.code).toBe(5)
    expect(JSON.parse(r.stdout).refusals.map((x: {rule: string}) => x.rule)).toEqual(['bad_field'])
    expect((await runJson(dir, ['verify', good, forge('"running"')])).refusals).toEqual([])
    gitSync(dir, ['update-ref', REF, good])
  })

  it('export and import carry the fields; an import is checked against the target list\'s types', async () => {
    const dir = await initializedRepo()
    const id = (await runJson(dir, ['add', 'Train', '--type', 'compute', '--field', 'job_id=8812', '--field', 'host=gpu-01'], ALICE)).task.id as string
    const file = join(tempDir('export-'), 'doc.json')
    await run(dir, ['export', '-o', file], ALICE)
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(doc.tasks[0].fields).toEqual({host: 'gpu-01', job_id: '8812'})
    const target = await initializedRepo()
    await runJson(target, ['import', file], ALICE)
    expect((await runJson(target, ['show', id], ALICE)).task.fields).toEqual({host: 'gpu-01', job_id: '8812'})
    // A second import changes nothing.
    const again = await runJson(target, ['import', file], ALICE)
    expect(again.tasks.map((i: {action: string}) => i.action)).toEqual(['unchanged'])
    expect(again.commit).toBeNull()
    // A list whose declared type the document's value does not fit refuses the import, nothing written; so does a bad key.
    const strict = await initializedRepo()
    await runJson(strict, ['config', 'set', 'field.host', 'enum(cpu|gpu)'], ALICE)
    const before = tip(strict)
    const refused = await run(strict, ['import', file, '--json'], ALICE)
    expect(refused.code).toBe(5)
    expect(jsonError(refused).code).toBe('bad_field_value')
    expect(tip(strict)).toBe(before)
    doc.tasks[0].fields = {Bad: 'x'}
    writeFileSync(file, JSON.stringify(doc))
    expect(jsonError(await run(target, ['import', file, '--json'], ALICE)).code).toBe('bad_field')
  })
})

describe('custom fields over MCP and in batch files', {timeout: 120_000}, () => {
  it('MCP add and edit take a fields object (null removes); list filters by field; batch too', async () => {
    const dir = await initializedRepo()
    await runJson(dir, ['config', 'set', 'field.estimate', 'integer'], ALICE)
    const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'bob', '--toolsets', 'all'], cwd: dir, env: {...TEST_ENV}, stderr: 'pipe'})
    const client = new Client({name: 'test-agent', version: '1.0.0'})
    await client.connect(transport)
    type ToolResult = {isError?: boolean; content: Array<{text?: string}>}
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({name, arguments: {format: 'json', ...args}})) as ToolResult
      return {error: r.isError === true, body: JSON.parse(r.content[0]!.text!)}
    }
    try {
      const added = await call('add', {title: 'Train', type: 'compute', fields: {command: 'python train.py', estimate: 3, host: 'gpu-01'}})
      expect(added.error).toBe(false)
      const id = added.body.task.id as string
      expect(added.body.task.fields).toEqual({command: 'python train.py', estimate: 3, host: 'gpu-01'})
      const edited = await call('edit', {id, fields: {host: null, job_id: 8812}, unset_field: ['command']})
      expect(edited.body.task.fields).toEqual({estimate: 3, job_id: '8812'})
      const refused = await call('add', {title: 'Bad', fields: {estimate: 'soon'}})
      expect(refused.error).toBe(true)
      expect(refused.body.error).toMatchObject({code: 'bad_field_value', exit: 5})
      const listed = await call('list', {field: ['job_id=8812'], format: 'json'})
      expect(listed.body.tasks.map((t: {id: string}) => t.id)).toEqual([id])
    } finally {
      await client.close()
    }
    const batch = await runJson(dir, ['batch', '-'], {...ALICE, input: JSON.stringify([{op: 'add', name: 'a', title: 'Batched', fields: {estimate: '5'}}, {op: 'edit', id: '$a', fields: {host: 'cpu-1'}}])})
    expect(batch.commit).toMatch(/^[0-9a-f]{40}$/)
    expect((await runJson(dir, ['list', '--field', 'estimate=5', '--field', 'host=cpu-1'], ALICE)).tasks.map((t: {title: string}) => t.title)).toEqual(['Batched'])
    const before = tip(dir)
    const bad = await run(dir, ['batch', '-', '--json'], {...ALICE, input: JSON.stringify([{op: 'add', title: 'Fine'}, {op: 'add', title: 'Bad', fields: {estimate: 1.5}}])})
    expect(bad.code).toBe(5)
    expect(tip(dir)).toBe(before)
  })
})

describe('custom fields across two clones', {timeout: 120_000}, () => {
  it('different fields set on each side are both kept; the same field set differently keeps the later value and files the other as a comment', async () => {
    const {clones} = await shared(2)
    const [a, b] = clones as [string, string]
    const id = (await runJson(a, ['add', 'Train', '--type', 'compute', '--field', 'host=gpu-01'], ALICE)).task.id as string
    await runJson(b, ['sync'], BOB)
    await runJson(a, ['edit', id, '--field', 'job_id=8812', '--field', 'stage=queued', '--offline'], {env: {...ALICE.env, TASKS_NOW: '2026-12-01T10:00:00.000Z'}})
    await runJson(b, ['edit', id, '--field', 'started_at=2026-12-01T10:05:00Z', '--field', 'stage=running', '--offline'], {env: {...BOB.env, TASKS_NOW: '2026-12-01T10:05:00.000Z'}})
    await runJson(b, ['sync'], BOB)
    const merged = await runJson(a, ['sync'], ALICE)
    expect(merged.action).toBe('merged')
    const shown = await runJson(a, ['show', id], ALICE)
    expect(shown.task.fields).toEqual({host: 'gpu-01', job_id: '8812', stage: 'running', started_at: '2026-12-01T10:05:00Z'})
    const kept = shown.comments.filter((c: {body: string}) => c.body.includes('field stage'))
    expect(kept).toHaveLength(1)
    expect(kept[0]).toMatchObject({author: 'alice', kind: 'note'})
    expect(kept[0].body).toContain('"queued"')
    // Both clones agree once b syncs again.
    await runJson(b, ['sync'], BOB)
    expect((await runJson(b, ['show', id], BOB)).task.fields).toEqual(shown.task.fields)
  })
})
