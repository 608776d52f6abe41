/**
 * The in-process reader of `.git/config` (src/refstore/repository.ts) must
 * answer exactly as git does, or hand the question to git (null). Random
 * config files built from the syntax git accepts and rejects (quotes,
 * escapes, comments, continuations, case, subsections, CRLF, includes) are
 * read by both and compared with `git config --file F --get tasks.actor`.
 */
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {configFileValue} from '../../src/refstore/repository'
import {TEST_ENV, cleanupAll, tempDir} from '../helpers/cli'

afterAll(() => cleanupAll())

/** git's answer: the value, or undefined when unset (exit 1); throws on a file git refuses. */
function gitValue(file: string): string | undefined | 'error' {
  try {
    return execFileSync('git', ['config', '--file', file, '--get', 'tasks.actor'], {env: TEST_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']}).replace(/\n$/, '')
  } catch (e) {
    return (e as {status?: number}).status === 1 ? undefined : 'error'
  }
}

const header = fc.constantFrom('[tasks]', '[TASKS]', '[Tasks]', ' [tasks] ', '[tasks "sub"]', '[tasks "a\\"b"]', '[other]', '[tasks.sub]', '[include]', '[includeIf "gitdir:/x/"]', '[tasks]\t# c', '[tasks] actor = inline', '[ tasks]', '[tasks')
const keyName = fc.constantFrom('actor', 'Actor', 'ACTOR', 'actor2', 'remote', 'act-or', '2actor')
const piece = fc.constantFrom('bob', 'a b', 'x', '  ', '\t', '"q # ; q"', '""', '" lead"', '\\\\', '\\"', '\\n', '\\t', '\\b', '\\x', '#c', ' ; c', '\\\n', 'é', '"unclosed', '=', "'s'")
const value = fc.array(piece, {maxLength: 6}).map((p) => p.join(''))
const keyLine = fc.tuple(keyName, fc.constantFrom('=', ' = ', '\t=\t', '= ', ''), value).map(([k, sep, v]) => (sep === '' ? k : `${k}${sep}${v}`))
const line = fc.oneof({weight: 3, arbitrary: keyLine}, {weight: 2, arbitrary: header}, {weight: 1, arbitrary: fc.constantFrom('# comment', '; comment', '', '   ', '\tactor = indented')})
const file = fc.tuple(fc.array(line, {minLength: 1, maxLength: 8}), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean()).map(
  ([lines, eol, bom, finalEol]) => `${bom ? '\uFEFF' : ''}${lines.join(eol)}${finalEol ? eol : ''}`,
)

describe('the in-process git config reader', () => {
  // TASKS_SOAK=1: 5,000 files instead of 300.
  it('reads tasks.actor exactly as git does, or asks git (property, against the real git)', {timeout: process.env.TASKS_SOAK === '1' ? 900_000 : 60_000}, () => {
    const dir = tempDir('config-')
    const path = join(dir, 'config')
    let compared = 0
    let deferred = 0
    fc.assert(
      fc.property(file, (text) => {
        writeFileSync(path, text)
        const ours = configFileValue(text, 'tasks', 'actor')
        if (ours === null) {
          deferred++
          return
        }
        compared++
        expect(ours, JSON.stringify(text)).toBe(gitValue(path))
      }),
      process.env.TASKS_SOAK === "1" ? {numRuns: 5000} : {numRuns: 300, seed: 7},
    )
    // The reader must answer most plain files itself, not defer everything to git.
    expect(compared).toBeGreaterThan(60)
    expect(deferred).toBeGreaterThan(0)
  })

  it('known cases: quoting, escapes, inline comments, continuation, subsections, includes', () => {
    const cases: Array<[string, string | undefined | null]> = [
      ['[tasks]\n\tactor = "a b"  c\\t#x\n', 'a b  c\t'],
      ['[tasks]\nactor = bob ; comment\n', 'bob'],
      ['[tasks]\nactor = bob#not-part-of-it\n', 'bob'],
      ['[tasks]\nactor = bo"b ; "x\n', 'bob ; x'],
      ['[tasks]\nactor = one\\\n  two\n', 'one  two'],
      ['[TASKS]\nACTOR = upper\n', 'upper'],
      ['[tasks "sub"]\nactor = sub\n', undefined],
      ['[tasks]\nactor = first\nactor = last\n', 'last'],
      ['[tasks]\nactor\n', null],
      ['[include]\npath = other\n[tasks]\nactor = x\n', null],
      ['[tasks]\nactor = "unclosed\n', null],
      ['[tasks] actor = inline\n', 'inline'],
    ]
    for (const [text, want] of cases) expect(configFileValue(text, 'tasks', 'actor'), JSON.stringify(text)).toBe(want)
  })
})
