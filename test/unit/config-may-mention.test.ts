/**
 * configMayMention (src/refstore/repository.ts): the text search that lets a
 * mutation skip `git config` when no file git reads can set the key. With
 * GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM naming a file, that file is what
 * git reads instead of the user's or the system's, so that file is searched;
 * anything the search cannot see still means "ask git".
 */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {configMayMention} from '../../src/refstore/repository'

const VARS = ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG'] as const

describe('configMayMention', () => {
  const saved: Record<string, string | undefined> = {}
  let dir: string
  let common: string

  beforeEach(() => {
    for (const v of VARS) {
      saved[v] = process.env[v]
      delete process.env[v]
    }
    dir = mkdtempSync(join(tmpdir(), 'git-tasks-config-'))
    common = join(dir, 'repo.git')
    mkdirSync(common)
    writeFileSync(join(common, 'config'), '[core]\n\tbare = true\n')
    mkdirSync(join(dir, 'home'))
    process.env.HOME = join(dir, 'home')
    process.env.GIT_CONFIG_SYSTEM = join(dir, 'no-system-config')
  })

  afterEach(() => {
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v]
      else process.env[v] = saved[v]
    }
  })

  it('searches the file GIT_CONFIG_GLOBAL names instead of the user’s files', () => {
    const global = join(dir, 'global')
    writeFileSync(global, '[user]\n\tname = A\n')
    process.env.GIT_CONFIG_GLOBAL = global
    // ~/.gitconfig is not read by git now: what it says does not matter.
    writeFileSync(join(dir, 'home', '.gitconfig'), '[core]\n\tfsync = committed\n')
    expect(configMayMention(common, /fsync/i)).toBe(false)
    writeFileSync(global, '[core]\n\tfsync = committed\n')
    expect(configMayMention(common, /fsync/i)).toBe(true)
    writeFileSync(global, '[include]\n\tpath = other\n')
    expect(configMayMention(common, /fsync/i)).toBe(true)
  })

  it('without GIT_CONFIG_GLOBAL, searches ~/.gitconfig and the XDG file', () => {
    expect(configMayMention(common, /fsync/i)).toBe(false)
    mkdirSync(join(dir, 'home', '.config', 'git'), {recursive: true})
    writeFileSync(join(dir, 'home', '.config', 'git', 'config'), '[tasks]\n\tsignCommits = true\n')
    expect(configMayMention(common, /signcommits/i)).toBe(true)
  })

  it('searches the file GIT_CONFIG_SYSTEM names, and the repository’s own', () => {
    writeFileSync(process.env.GIT_CONFIG_SYSTEM!, '[core]\n\tfsyncObjectFiles = true\n')
    expect(configMayMention(common, /fsync/i)).toBe(true)
    writeFileSync(process.env.GIT_CONFIG_SYSTEM!, '')
    expect(configMayMention(common, /fsync/i)).toBe(false)
    writeFileSync(join(common, 'config'), '[core]\n\tfsync = all\n')
    expect(configMayMention(common, /fsync/i)).toBe(true)
  })

  it('asks git for a relative file name and for configuration from the environment', () => {
    process.env.GIT_CONFIG_GLOBAL = 'relative/config'
    expect(configMayMention(common, /fsync/i)).toBe(true)
    delete process.env.GIT_CONFIG_GLOBAL
    process.env.GIT_CONFIG_COUNT = '1'
    expect(configMayMention(common, /fsync/i)).toBe(true)
    delete process.env.GIT_CONFIG_COUNT
    process.env.GIT_CONFIG_PARAMETERS = "'core.fsync'='all'"
    expect(configMayMention(common, /fsync/i)).toBe(true)
  })
})
