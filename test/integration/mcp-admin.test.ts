/**
 * The MCP set-up commands on real repositories, run as separate `tasks`
 * processes: `mcp --agent` refuses a blank or unregistered agent at start
 * (exit 2, nothing served); `mcp list-tools` lists what the server's
 * tools/list answers (names, one-line summaries, input schemas);
 * `mcp install --fleet` writes one entry per actor of the registry;
 * `mcp doctor` passes on a working set-up and names each problem of a
 * broken one (exit 5).
 */
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanupAll, makeRepo, run, runJson, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

/** PATH with the built `tasks` on it, as an installed client would find it. */
const withTasks = {PATH: `${join(ROOT, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`}

describe('tasks mcp set-up', () => {
  let repo: string
  const lead = {env: {TASKS_ACTOR: 'lead', ...withTasks}}

  beforeAll(async () => {
    repo = makeRepo()
    await runJson(repo, ['init'], lead)
    await runJson(repo, ['actor', 'add', 'agent-1', '--alias', 'a1'], lead)
    await runJson(repo, ['actor', 'add', 'agent-2'], lead)
  })

  it('mcp --agent refuses a blank or unknown agent at start: exit 2, a clear message', async () => {
    const blank = await run(repo, ['mcp', '--agent', ''], lead)
    expect(blank.code).toBe(2)
    expect(blank.stdout).toBe('')
    expect(blank.stderr).toMatch(/--agent needs a name/)
    const spaces = await runJson(repo, ['mcp', '--agent', '   '], {...lead, expect: 2})
    expect(spaces.error.code).toBe('usage')
    const unknown = await runJson(repo, ['mcp', '--agent', 'agent-3'], {...lead, expect: 2})
    expect(unknown.error).toMatchObject({code: 'unknown_agent', agent: 'agent-3', exit: 2})
    expect(unknown.error.message).toContain('tasks actor add agent-3')
    expect(unknown.error.known).toEqual(expect.arrayContaining(['agent-1', 'agent-2', 'lead']))
    // A registered name, or its alias, starts (and ends when the client goes away: stdin closed).
    expect((await run(repo, ['mcp', '--agent', 'a1'], lead)).code).toBe(0)
    // A name with work assigned to it is known too: a scenario's members before they ever wrote.
    await runJson(repo, ['scenario', 'start', 'rel', '--member', 'ui=Build the UI'], lead)
    expect((await run(repo, ['mcp', '--agent', 'ui', '--list', 'rel'], lead)).code).toBe(0)
    expect((await runJson(repo, ['mcp', '--agent', 'qa', '--list', 'rel'], {...lead, expect: 2})).error.code).toBe('unknown_agent')
    // A list with no registry yet takes any valid name.
    const fresh = makeRepo()
    expect((await run(fresh, ['mcp', '--agent', 'anyone'], lead)).code).toBe(0)
  })

  it('mcp list-tools: names and summaries; --json has each input schema', async () => {
    const text = await run(repo, ['mcp', 'list-tools'], lead)
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^claim +.*\n/m)
    expect(text.stdout).toMatch(/^poll_inbox +.*acknowledged once returned/m)
    const {tools} = await runJson(repo, ['mcp', 'list-tools', '--toolsets', 'all'], lead)
    const claim = tools.find((t: any) => t.name === 'claim')
    expect(claim).toMatchObject({command: 'claim', read_only: false})
    expect(claim.summary.split('\n')).toHaveLength(1)
    expect(claim.input_schema.type).toBe('object')
    expect(Object.keys(claim.input_schema.properties)).toEqual(expect.arrayContaining(['id', 'session']))
    expect(tools.find((t: any) => t.name === 'list')).toMatchObject({read_only: true})
    expect(Object.keys(tools.find((t: any) => t.name === 'list').input_schema.properties)).toContain('format')
    // Needs no repository: the tools are the same anywhere.
    const elsewhere = await runJson(tempDir('plain-'), ['mcp', 'list-tools', '--toolsets', 'all'])
    expect(elsewhere.tools.map((t: any) => t.name)).toEqual(tools.map((t: any) => t.name))
  })

  it('mcp install --fleet: one entry per actor of the registry, each serving that agent', async () => {
    const r = await runJson(repo, ['mcp', 'install', '--fleet', '--write', '--yes'], lead)
    expect(r.entries.map((e: any) => [e.key, e.agent])).toEqual([
      ['git-tasks-agent-1', 'agent-1'],
      ['git-tasks-agent-2', 'agent-2'],
      ['git-tasks-lead', 'lead'],
    ])
    expect(r.server).toBeUndefined()
    const text = await run(repo, ['mcp', 'install', '--fleet'], lead)
    expect(text.stdout).toContain('server:git-tasks-agent-1')
    const codex = await runJson(repo, ['mcp', 'install', '--fleet', '--client', 'codex'], lead)
    expect(codex.snippet).toContain('[mcp_servers.git-tasks-agent-2]\ncommand = "tasks"\nargs = ["-C", ')
    expect(codex.snippet).toContain('"mcp", "--agent", "agent-2"]')
    // A list with no actors yet, or no list: refused, nothing written.
    const empty = makeRepo()
    await runJson(empty, ['init'], lead)
    expect((await runJson(empty, ['mcp', 'install', '--fleet', '--write', '--yes'], {...lead, expect: 2})).error.code).toBe('no_actors')
    expect((await runJson(makeRepo(), ['mcp', 'install', '--fleet', '--write', '--yes'], {...lead, expect: 1})).error.code).toBe('not_initialised')
    expect(existsSync(join(empty, '.mcp.json'))).toBe(false)
  })

  it('mcp doctor: every check ok on a working set-up (exit 0)', async () => {
    // The fleet entries from the test above are in .mcp.json.
    const r = await run(repo, ['mcp', 'doctor', '--agent', 'agent-1', '--json'], lead)
    const doc = JSON.parse(r.stdout)
    expect(r.code, JSON.stringify(doc.checks.filter((c: any) => c.status === 'problem'))).toBe(0)
    expect(doc.ok).toBe(true)
    const by = (check: string) => doc.checks.filter((c: any) => c.check === check)
    for (const c of ['git', 'repository', 'list', 'identity', 'agent']) expect(by(c).map((x: any) => x.status), c).toEqual(['ok'])
    expect(by('client:claude-code').map((x: any) => x.status)).toEqual(['ok', 'ok', 'ok'])
    expect(by('client:cursor')[0]).toMatchObject({status: 'note'})
    const human = await run(repo, ['mcp', 'doctor'], lead)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^ok +git: git version/m)
    expect(human.stdout).toMatch(/no problems found\n$/)
  })

  it('mcp doctor: names each problem of a broken set-up and exits 5', async () => {
    const broken = makeRepo()
    // Not initialised; a config naming an unknown command, one not running mcp, and a cursor file that is not JSON.
    writeFileSync(join(broken, '.mcp.json'), JSON.stringify({mcpServers: {'git-tasks': {command: 'no-such-tasks-binary', args: ['mcp']}, 'git-tasks-x': {command: 'tasks', args: ['list']}}}))
    await runJson(broken, ['mcp', 'install', '--client', 'cursor', '--write', '--yes'], lead)
    writeFileSync(join(broken, '.cursor', 'mcp.json'), '{not json')
    const r = await run(broken, ['mcp', 'doctor', '--json'], lead)
    expect(r.code).toBe(5)
    const doc = JSON.parse(r.stdout)
    expect(doc.ok).toBe(false)
    const problems = doc.checks.filter((c: any) => c.status === 'problem')
    expect(problems.map((c: any) => c.check)).toEqual(['list', 'client:claude-code', 'client:claude-code', 'client:cursor'])
    expect(problems[0].hint).toBe('tasks init')
    expect(problems[1].message).toContain('"no-such-tasks-binary", which is not on PATH')
    expect(problems[2].message).toContain('does not run `mcp`')
    expect(problems[3].message).toContain('is not JSON')
    expect(doc.problems).toBe(4)

    // An entry for an agent the registry does not know is a problem too.
    await runJson(repo, ['mcp', 'install', '--client', 'gemini', '--agent', 'agent-9', '--write', '--yes'], lead)
    const bad = await run(repo, ['mcp', 'doctor', '--json'], lead)
    expect(bad.code).toBe(5)
    const gemini = JSON.parse(bad.stdout).checks.filter((c: any) => c.check === 'client:gemini')
    expect(gemini).toEqual([expect.objectContaining({status: 'problem', hint: 'tasks actor add agent-9'})])
    expect(gemini[0].message).toContain('"agent-9" is not an actor of list main')
  })
})
