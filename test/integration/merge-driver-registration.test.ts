/**
 * How `tasks init` registers the git merge driver: by name through PATH
 * when git-tasks is installed there (a moved or reinstalled tool keeps
 * working), else absolute paths to this node and script; `init` and
 * `doctor --fix` refresh an outdated registration, `doctor` warns.
 */
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs'
import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, TEST_ENV, cleanupAll, gitSync, makeRepo, run, runJson, tempDir} from '../helpers/cli'
import {serialiseTask} from '../../src/core/task-file'
import {task} from '../helpers/snapshot'

afterAll(() => cleanupAll())

const driver = (repo: string) => gitSync(repo, ['config', 'merge.tasks.driver']).trim()

/** A PATH with an installed `git-tasks` (a wrapper of this build) in front. */
function pathWithTool(): string {
  const dir = tempDir('bin-')
  mkdirSync(dir, {recursive: true})
  const tool = join(dir, 'git-tasks')
  writeFileSync(tool, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`)
  chmodSync(tool, 0o755)
  return `${dir}:${TEST_ENV.PATH}`
}

describe('merge driver registration', () => {
  it('absolute paths without git-tasks on PATH; by name once it is there; doctor warns about and --fix refreshes an outdated one', async () => {
    const repo = makeRepo()
    await runJson(repo, ['init'])
    expect(driver(repo)).toBe(`'${process.execPath}' '${BIN}' merge-driver %O %A %B %P`)

    const PATH = pathWithTool()
    await runJson(repo, ['init'], {env: {PATH}})
    expect(driver(repo)).toBe('git-tasks merge-driver %O %A %B %P')

    // A registration from a checkout that has since moved.
    gitSync(repo, ['config', 'merge.tasks.driver', "'/gone/node' '/gone/bin/tasks' merge-driver %O %A %B %P"])
    const warned = await run(repo, ['doctor', '--json'], {env: {PATH}})
    expect(warned.code).toBe(0)
    expect(JSON.parse(warned.stderr.trim()).warning.kind).toBe('merge_driver_outdated')
    expect(driver(repo)).toContain('/gone/')
    const fixed = await run(repo, ['doctor', '--fix', '--json'], {env: {PATH}})
    expect(fixed.code).toBe(0)
    expect(fixed.stderr).toBe('')
    expect(driver(repo)).toBe('git-tasks merge-driver %O %A %B %P')
    expect((await run(repo, ['doctor', '--json'], {env: {PATH}})).stderr).toBe('')

    // The registered command, run by a shell as git runs it, finds the tool through PATH and merges.
    const dir = tempDir('merge-')
    const text = serialiseTask(task({id: 'tsk-0123456789', title: 'Same'}), 'body\n')
    for (const f of ['O', 'A', 'B']) writeFileSync(join(dir, f), text)
    const command = driver(repo).replace('%O', 'O').replace('%A', 'A').replace('%B', 'B').replace('%P', 'tasks/01/tsk-0123456789/task.md')
    execFileSync('sh', ['-c', command], {cwd: dir, env: {...TEST_ENV, PATH}})
  })
})
