/**
 * The command line itself (issue 8, points 6, 9 and 10): flags anywhere and
 * global flags before the command; help, -h, examples and did-you-mean;
 * oclif's parse errors in the tool's own words; shell completion; --lease
 * durations; $EDITOR for `edit ID` and `comment ID` under a real
 * pseudo-terminal. Real git, the built CLI as a separate process.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, TEST_ENV, cleanupAll, gitSync, jsonError, makeRepo, run, runJson, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

const ALICE = {env: {TASKS_ACTOR: 'alice'}}
let repo: string
let first: {id: string; short_id: string}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'tasks.js'))) throw new Error('dist/tasks.js is missing: run `npm run build` first')
  repo = makeRepo()
  await runJson(repo, ['init'])
  first = (await runJson(repo, ['add', 'First task'], ALICE)).task
})

function tip(): string {
  return gitSync(repo, ['rev-parse', 'refs/tasks/main']).trim()
}

/** One clean line on stderr: the tool's own words, none of oclif's. */
function expectOwnWords(stderr: string): void {
  const lines = stderr.trimEnd().split('\n')
  expect(lines, stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^error: /)
  expect(stderr).not.toMatch(/Missing \d+ required|The following error|Parsing --|See more help|Expected an integer|Nonexistent flag|Unexpected argument|command \S+ not found|\u001b\[/)
}

describe('flags anywhere (point 6)', () => {
  it('list-valued flags take one value each, before or after the title, repeated or comma-separated', async () => {
    const a = (await runJson(repo, ['add', '-t', 'backend', 'Tagged first'], ALICE)).task
    expect(a).toMatchObject({title: 'Tagged first', tags: ['backend']})
    const b = (await runJson(repo, ['add', '-t', 'a', '-t', 'b', '-d', first.id, '-p', '1', 'Two tags', '--tag', 'c,d'], ALICE)).task
    expect(b).toMatchObject({title: 'Two tags', tags: ['a', 'b', 'c', 'd'], depends_on: [first.id], priority: 1})
  })

  it('global flags go before the command name too (--json, --as, --list, -C)', async () => {
    const listed = JSON.parse((await run(repo, ['--json', 'list'])).stdout)
    expect(listed.list).toBe('main')
    const added = JSON.parse((await run(repo, ['--as', 'bob', '--json', 'add', 'By bob'])).stdout)
    expect(added.task.created_by).toBe('bob')
    const other = tempDir('elsewhere-')
    const viaC = await run(other, ['-C', repo, '--json', 'show', first.id])
    expect(viaC.code, viaC.stderr).toBe(0)
    expect(JSON.parse(viaC.stdout).task.id).toBe(first.id)
    const init = await run(repo, ['--list=side', '--json', 'init'])
    expect(JSON.parse(init.stdout).ref).toBe('refs/tasks/side')
    // A value that looks like a flag after `--` stays an argument.
    const dash = await run(repo, ['add', '--json', '--', '-h is a title'], ALICE)
    expect(JSON.parse(dash.stdout).task.title).toBe('-h is a title')
  })
})

describe('help and discovery (point 9)', () => {
  it('tasks, tasks help, -h and --help print the root help: commands, global flags, the actor, exit codes', async () => {
    for (const args of [[], ['help'], ['-h'], ['--help'], ['--json', '-h']]) {
      const r = await run(repo, args)
      expect(r.code, args.join(' ')).toBe(0)
      for (const section of ['COMMANDS', 'GLOBAL FLAGS', 'ACTOR', 'EXIT CODES', '--as ACTOR', 'TASKS_ACTOR', 'tasks.actor', 'user.email', 'completion']) {
        expect(r.stdout, `${args.join(' ')}: ${section}`).toContain(section)
      }
    }
  })

  it('COMMAND -h, help COMMAND and -h after arguments show that command with examples', async () => {
    for (const args of [['add', '-h'], ['help', 'add'], ['add', 'Some title', '-t', 'x', '-h'], ['--json', 'add', '--help']]) {
      const r = await run(repo, args)
      expect(r.code, args.join(' ')).toBe(0)
      expect(r.stdout).toContain('$ tasks add TITLE')
      expect(r.stdout).toContain('EXAMPLES')
    }
    const sub = await run(repo, ['help', 'remote', 'set'])
    expect(sub.stdout).toContain('$ tasks remote set NAME')
  })

  it('every command has at least one example', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    for (const [id, c] of Object.entries<any>(manifest.commands)) expect(c.examples?.length ?? 0, id).toBeGreaterThan(0)
  })

  it('a typo gets "did you mean", exit 2, code unknown_command', async () => {
    const r = await run(repo, ['ad', 'x'])
    expect(r.code).toBe(2)
    expectOwnWords(r.stderr)
    expect(r.stderr).toContain('"ad" is not a tasks command. Did you mean "add"?')
    const j = await run(repo, ['lsit', '--json'])
    expect(j.code).toBe(2)
    expect(jsonError(j)).toMatchObject({code: 'unknown_command', exit: 2, command: 'lsit', suggestions: ['list']})
    const topic = await run(repo, ['remote', 'st', '--json'])
    expect(jsonError(topic)).toMatchObject({code: 'unknown_command', suggestions: ['remote set']})
  })

  it('git tasks --help (git runs `man git-tasks`) finds the generated man page', () => {
    if (spawnSync('man', ['--version']).status !== 0) return
    const env = {...TEST_ENV, PATH: `${join(ROOT, 'bin')}:${TEST_ENV.PATH}`, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80'}
    const out = execFileSync('git', ['tasks', '--help'], {cwd: repo, env, encoding: 'utf8'})
    expect(out).toMatch(/git-tasks - a Git-native task tracker/)
    expect(out).toContain('EXIT CODES')
    const short = execFileSync('git', ['tasks', '-h'], {cwd: repo, env, encoding: 'utf8'})
    expect(short).toContain('GLOBAL FLAGS')
  })
})

describe('start-up', () => {
  it('--version, help, typos, parse errors and completion of commands never load the engine', () => {
    const hook = join(tempDir('hook-'), 'hook.js')
    writeFileSync(hook, `const M = require('module'); const load = M._load\nM._load = function (req, ...rest) { if (/engine\\.js$/.test(req)) process.stderr.write('ENGINE LOADED\\n'); return load.call(this, req, ...rest) }\n`)
    const loads = (args: string[]) => spawnSync(process.execPath, ['-r', hook, BIN, ...args], {cwd: repo, env: TEST_ENV, encoding: 'utf8'}).stderr.includes('ENGINE LOADED')
    for (const args of [['--version'], ['help'], ['-h'], ['add', '-h'], ['ad'], ['add'], ['log', '-n', 'x'], ['claim', 'x', '--lease', 'zz'], ['completion', 'bash'], ['__complete', 'li']]) {
      expect(loads(args), args.join(' ')).toBe(false)
    }
    expect(loads(['list'])).toBe(true)
  })
})

describe('parse errors in our own words (point 9)', () => {
  const cases: Array<[string[], RegExp]> = [
    [['add'], /^error: tasks add needs TITLE/],
    [['add', 'x', '--bogus'], /unknown flag --bogus for tasks add/],
    [['add', 'x', '--bdy', 'y'], /did you mean --body/],
    [['show', 'a', 'b'], /unexpected argument "b": tasks show takes ID/],
    [['claim', 'tsk-aaaa', '--lease', 'soon'], /--lease expects a duration such as 90s, 30m, 1h/],
    [['claim', 'tsk-aaaa', '--lease', '0'], /--lease must be at least 1 second/],
    [['log', '-n', 'x'], /--limit expects an integer, not "x"/],
    [['log', '-n', '0'], /--limit expects an integer of at least 1, not "0"/],
    [['done', 'tsk-aaaa', '--epoch', 'two'], /--epoch expects an integer, not "two"/],
    [['comment', 'tsk-aaaa', 'x', '--kind', 'rant'], /--kind must be one of note, decision, problem, lesson, knowledge, not "rant"/],
    [['cancel', 'tsk-aaaa'], /--reason is required/],
    [['add', 'x', '--body', 'a', '--body-file', 'b'], /--body(-file)? and --body(-file)? cannot be used together/],
    [['add', 'x', '--tags'], /--tags expects a value/],
    [['--list'], /--list expects a value/],
    [['completion', 'tcsh'], /"tcsh" is not one of bash, zsh, fish/],
    [['--bogus', 'list'], /unknown flag --bogus before the command/],
  ]
  it.each(cases)('tasks %j', async (args, message) => {
    const before = tip()
    const r = await run(repo, args, ALICE)
    expect(r.code, r.stderr).toBe(2)
    expectOwnWords(r.stderr)
    expect(r.stderr).toMatch(message)
    const j = await run(repo, ['--json', ...args], ALICE)
    expect(j.code).toBe(2)
    expect(j.stderr.trimEnd().split('\n')).toHaveLength(1)
    const e = jsonError(j)
    expect(e.exit).toBe(2)
    expect(e.message).not.toMatch(/\n|Missing \d+ required|The following|Parsing --|See more help/)
    expect(tip()).toBe(before)
  })
})

describe('--lease durations', () => {
  it('--lease 30m, 90s, 1h30m and plain seconds', async () => {
    const at = (iso: string) => ({env: {TASKS_ACTOR: 'alice', TASKS_NOW: iso}})
    for (const [lease, seconds] of [['30m', 1800], ['90s', 90], ['1h30m', 5400], ['120', 120]] as const) {
      const t = (await runJson(repo, ['add', `lease ${lease}`], ALICE)).task
      const c = await runJson(repo, ['claim', t.id, '--lease', lease], at('2030-01-01T00:00:00.000Z'))
      expect(Date.parse(c.task.lease_expires) - Date.parse('2030-01-01T00:00:00.000Z'), lease).toBe(seconds * 1000)
    }
  })
})

describe('shell completion (point 9)', () => {
  it('completion bash|zsh|fish print scripts that call tasks __complete', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await run(repo, ['completion', shell])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('tasks __complete')
    }
    const bash = await run(repo, ['completion', 'bash'])
    expect(spawnSync('bash', ['-n'], {input: bash.stdout}).status).toBe(0)
  })

  it('__complete lists commands, flags, choices and task ids by prefix', async () => {
    const values = async (...words: string[]) => (await run(repo, ['__complete', ...words])).stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0])
    expect(await values('li')).toEqual(['list', 'lists'])
    expect(await values('--json', 'sh')).toEqual(['show'])
    expect(await values('remote', '')).toEqual(['set', 'unset'])
    expect(await values('add', '--ta')).toEqual(['--tags'])
    expect(await values('comment', first.id, '--kind', 'de')).toEqual(['decision'])
    expect(await values('show', first.id.slice(0, 7))).toContain(first.short_id)
    expect(await values('show', first.id.slice(4, 8))).toContain(first.short_id.slice(4))
    expect(await values('add', 'x', '--parent', first.id.slice(0, 6))).toContain(first.short_id)
    expect(await values('show', 'tsk-zzzzzz')).toEqual([])
    const described = (await run(repo, ['__complete', 'show', first.short_id])).stdout
    expect(described).toContain(`${first.short_id}\ttodo: First task`)
    // Outside a repository: nothing, quietly.
    const nowhere = await run(tempDir('plain-'), ['__complete', 'show', 'tsk-'])
    expect(nowhere).toMatchObject({code: 0, stdout: '', stderr: ''})
  })

  it('--status completes its values (comma-separated too), and done, claim and block offer only open items', async () => {
    const own = makeRepo()
    await runJson(own, ['init'])
    const open = (await runJson(own, ['add', 'Still open'], ALICE)).task
    const finished = (await runJson(own, ['add', 'Finished already'], ALICE)).task
    await runJson(own, ['done', finished.id], ALICE)
    const values = async (...words: string[]) => (await run(own, ['__complete', ...words])).stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0])
    expect(await values('list', '--status', '')).toEqual(expect.arrayContaining(['ready', 'in_progress', 'blocked', 'done', 'open', 'all']))
    expect(await values('list', '--status', 'in_')).toEqual(['in_progress'])
    expect(await values('list', '-s', 'wa')).toEqual(['waiting'])
    expect(await values('list', '--status', 'ready,bl')).toEqual(['ready,blocked'])
    expect(await values('list', '--status', 'ready,')).not.toContain('ready,ready')
    for (const cmd of ['done', 'claim', 'block']) {
      const offered = await values(cmd, 'tsk-')
      expect(offered, cmd).toContain(open.short_id)
      expect(offered, cmd).not.toContain(finished.short_id)
    }
    // show and reopen still offer every item.
    expect(await values('show', 'tsk-')).toEqual(expect.arrayContaining([open.short_id, finished.short_id]))
  })

  it('the bash script completes in a real bash', async () => {
    const script = (await run(repo, ['completion', 'bash'])).stdout
    const file = join(tempDir('completion-'), 'tasks.bash')
    writeFileSync(file, script)
    const env = {...TEST_ENV, PATH: `${join(ROOT, 'bin')}:${TEST_ENV.PATH}`}
    const out = execFileSync('bash', ['-c', `source ${file}; COMP_WORDS=(tasks sh ); COMP_CWORD=1; _tasks; echo "\${COMPREPLY[*]}"; COMP_WORDS=(tasks show ${first.id.slice(0, 7)}); COMP_CWORD=2; _tasks; echo "\${COMPREPLY[*]}"`], {cwd: repo, env, encoding: 'utf8'})
    expect(out.split('\n')[0]).toBe('show')
    expect(out.split('\n')[1]).toContain(first.short_id)
  })
})

describe('$EDITOR (point 10)', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0

  /** Run the CLI with stdin and stdout on a pseudo-terminal (util-linux `script`), EDITOR set to `editor`. */
  function underPty(args: string[], editor: string): {code: number; output: string} {
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
    const r = spawnSync('script', ['-qec', quoted, '/dev/null'], {cwd: repo, env: {...TEST_ENV, TASKS_ACTOR: 'alice', EDITOR: editor, VISUAL: ''}, encoding: 'utf8', input: ''})
    return {code: r.status ?? -1, output: r.stdout}
  }

  function editorScript(body: string): string {
    const file = join(tempDir('editor-'), 'editor.sh')
    writeFileSync(file, `#!/bin/sh\n${body}\n`)
    chmodSync(file, 0o755)
    return file
  }

  it.runIf(hasScript)('edit ID on a terminal edits the title and description in $EDITOR; # headings survive', async () => {
    const t = (await runJson(repo, ['add', 'Old title', '--body', 'old body'], ALICE)).task
    // Keep the template's instruction block (from the scissors line down), as a person would.
    const editor = editorScript(`{ printf 'New title\\n\\n# Heading\\nnew body\\n\\n'; sed -n '/>8/,$p' "$1"; } > "$1.new" && mv "$1.new" "$1"`)
    const r = underPty(['edit', t.id], editor)
    expect(r.code, r.output).toBe(0)
    expect(r.output).toContain('edited')
    const shown = await runJson(repo, ['show', t.id])
    expect(shown.task.title).toBe('New title')
    expect(shown.body.trimEnd()).toBe('# Heading\nnew body')
  })

  it.runIf(hasScript)('comment ID on a terminal takes the text from $EDITOR; an emptied file or a failing editor writes nothing', async () => {
    const t = (await runJson(repo, ['add', 'Commented'], ALICE)).task
    const ok = underPty(['comment', t.id, '--kind', 'decision'], editorScript(`printf 'Chose CAS\\n' > "$1"`))
    expect(ok.code, ok.output).toBe(0)
    const shown = await runJson(repo, ['show', t.id])
    expect(shown.comments).toHaveLength(1)
    expect(shown.comments[0]).toMatchObject({kind: 'decision', body: 'Chose CAS'})

    const before = tip()
    const empty = underPty(['comment', t.id], 'true')
    expect(empty.code).toBe(2)
    expect(empty.output).toContain('the comment was left empty: nothing posted')
    const emptied = underPty(['edit', t.id], editorScript(`: > "$1"`))
    expect(emptied.code).toBe(2)
    expect(emptied.output).toContain('edit aborted, nothing written')
    const tooLong = underPty(['edit', t.id, '--json'], editorScript(`printf '%0600d\\n\\nbody\\n' 0 > "$1"`))
    expect(tooLong.code, tooLong.output).toBe(5)
    const saved = /"saved":"([^"]+)"/.exec(tooLong.output)?.[1]
    expect(saved, tooLong.output).toBeTruthy()
    expect(readFileSync(saved!, 'utf8')).toMatch(/^0{600}\n\nbody\n$/)
    const failed = underPty(['comment', t.id, '--json'], 'false')
    expect(failed.code).toBe(1)
    expect(failed.output).toContain('"code":"editor_failed"')
    expect(tip()).toBe(before)
  })

  it('without a terminal, edit ID and comment ID say what to pass', async () => {
    const before = tip()
    const c = await run(repo, ['comment', first.id], ALICE)
    expect(c.code).toBe(2)
    expectOwnWords(c.stderr)
    expect(c.stderr).toContain('pass the comment TEXT, or --file PATH')
    expect(c.stderr).not.toContain('not both')
    const e = await run(repo, ['edit', first.id], ALICE)
    expect(e.code).toBe(2)
    expect(e.stderr).toContain('nothing to edit: pass --title, --body')
    const file = join(tempDir('c-'), 'c.md')
    writeFileSync(file, 'x')
    const both = await run(repo, ['comment', first.id, 'text', '--file', file], ALICE)
    expect(both.stderr).toContain('not both')
    expect(tip()).toBe(before)
  })
})
