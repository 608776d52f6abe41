/**
 * The build writes a man page per visible command (`man tasks-add`) beside
 * tasks(1) and git-tasks(1); npm links only the pages package.json's `man`
 * lists, so the list must name every page the build writes, and no other.
 * (`npm test` builds first: the pages are there.)
 */
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const root = join(__dirname, '../..')
const dir = join(root, 'man', 'man1')

describe('man pages', () => {
  it.skipIf(!existsSync(dir))('package.json lists every page the build wrote, tasks(1) first', () => {
    const built = readdirSync(dir).filter((f) => f.endsWith('.1')).sort()
    const listed = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).man as string[]).map((p) => p.replace('./man/man1/', ''))
    expect([...listed].sort()).toEqual(built)
    expect(listed[0]).toBe('tasks.1')
    expect(built).toEqual(expect.arrayContaining(['tasks-add.1', 'tasks-check-pass.1', 'tasks-session-create.1']))
  })

  it.skipIf(!existsSync(dir))('a command page has its name, synopsis, flags and examples', () => {
    const page = readFileSync(join(dir, 'tasks-check-pass.1'), 'utf8')
    expect(page).toMatch(/^\.TH TASKS-CHECK-PASS 1/)
    expect(page).toContain(String.raw`tasks check pass ID CHECK [FLAGS]`)
    expect(page).toContain(String.raw`\fB\-\-evidence\fR`)
    expect(page).toContain('.SH EXAMPLES')
  })
})

describe('git tasks help COMMAND', () => {
  // Run through git, as a user would: git finds git-tasks on PATH. A stand-in `man` records what it was given.
  const {execFileSync} = require('node:child_process') as typeof import('node:child_process')
  const {mkdtempSync, writeFileSync, chmodSync, symlinkSync} = require('node:fs') as typeof import('node:fs')
  const {tmpdir} = require('node:os') as typeof import('node:os')
  const gitPath = execFileSync('sh', ['-c', 'command -v git'], {encoding: 'utf8'}).trim()

  function gitTasks(args: string[], withMan: boolean): string {
    const bin = mkdtempSync(join(tmpdir(), 'man-bin-'))
    if (withMan) {
      writeFileSync(join(bin, 'man'), '#!/bin/sh\necho "MAN $*"\n')
      chmodSync(join(bin, 'man'), 0o755)
    }
    symlinkSync(gitPath, join(bin, 'git'))
    symlinkSync(process.execPath, join(bin, 'node'))
    // PATH: our bin/ (git-tasks), then git, node and the stand-in man, and nothing else (so no real man).
    const env = {...process.env, PATH: [join(root, 'bin'), bin].join(':')}
    return execFileSync(gitPath, ['tasks', ...args], {env, encoding: 'utf8', cwd: tmpdir()})
  }

  it.skipIf(!existsSync(dir))('opens the command page with man, also for a topic command and for --help', () => {
    expect(gitTasks(['help', 'add'], true).trim()).toBe(`MAN ${join(dir, 'tasks-add.1')}`)
    expect(gitTasks(['session', 'create', '--help'], true).trim()).toBe(`MAN ${join(dir, 'tasks-session-create.1')}`)
  })

  it.skipIf(!existsSync(dir))('prints the help text when there is no man, and always from plain tasks', () => {
    expect(gitTasks(['help', 'add'], false)).toMatch(/^Add a task\./)
    const plain = execFileSync(process.execPath, [join(root, 'bin', 'run.js'), 'help', 'add'], {encoding: 'utf8', cwd: tmpdir()})
    expect(plain).toMatch(/^Add a task\./)
  })
})
