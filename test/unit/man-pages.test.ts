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
