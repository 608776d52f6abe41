/**
 * The guard's clock and bounds as pure functions (issue 31, items 1 and 8):
 * judgeCommitClock and judgedTime (src/hooks/rules.ts), judgeBlob
 * (src/hooks/judges.ts) and the allowed_paths patterns
 * (src/core/path-patterns.ts). The pushes through a real guard are in
 * test/integration/guard-bounds.test.ts.
 */
import {describe, expect, it} from 'vitest'
import {pathAllowed, pathMatches, pathPatternProblem} from '../../src/core/path-patterns'
import {DEFAULT_CONFIG, type ListConfig, MAX_FILE_BYTES} from '../../src/core/task'
import {parseConfig, serialiseConfig} from '../../src/core/task-file'
import {parseConfigValue} from '../../src/core/ops/config'
import {judgeBlob} from '../../src/hooks/judges'
import {judgeCommitClock, judgedTime} from '../../src/hooks/rules'

const NOW = Date.parse('2030-01-01T12:00:00.000Z')
const S = 1000

describe('the clock', () => {
  it('refuses a commit dated after now + skew, or before its latest parent by more than the skew', () => {
    expect(judgeCommitClock(NOW, [NOW - 60 * S], NOW, 30)).toEqual([])
    expect(judgeCommitClock(NOW + 30 * S, [], NOW, 30)).toEqual([])
    expect(judgeCommitClock(NOW + 31 * S, [], NOW, 30).map((r) => r.rule)).toEqual(['clock_skew'])
    expect(judgeCommitClock(NOW + 3 * 3600 * S, [NOW], NOW, 30)[0]!.message).toContain('2030-01-01T15:00:00.000Z')
    // Before its parent: within the skew is clock difference between machines; beyond it is refused.
    expect(judgeCommitClock(NOW - 30 * S, [NOW], NOW, 30)).toEqual([])
    expect(judgeCommitClock(NOW - 31 * S, [NOW], NOW, 30).map((r) => r.rule)).toEqual(['clock_skew'])
    // A merge: against the later of its parents.
    expect(judgeCommitClock(NOW - 60 * S, [NOW - 3600 * S, NOW], NOW, 30).map((r) => r.rule)).toEqual(['clock_skew'])
    // A skew of 0: exact.
    expect(judgeCommitClock(NOW + 1 * S, [], NOW, 0).map((r) => r.rule)).toEqual(['clock_skew'])
  })

  it('judges time rules at min(commit time, now + skew)', () => {
    expect(judgedTime(NOW - 5 * S, NOW, 30)).toBe('2030-01-01T11:59:55.000Z')
    expect(judgedTime(NOW + 3 * 3600 * S, NOW, 30)).toBe('2030-01-01T12:00:30.000Z')
  })
})

describe('allowed_paths patterns', () => {
  it('matches * and ? within a segment, ** across segments, a trailing / for a directory', () => {
    const yes: Array<[string, string]> = [
      ['junk/**', 'junk/a'],
      ['junk/**', 'junk/a/b/c.bin'],
      ['junk/', 'junk/a/b'],
      ['docs/*.md', 'docs/readme.md'],
      ['**/*.md', 'a.md'],
      ['**/*.md', 'x/y/a.md'],
      ['a/**/z', 'a/z'],
      ['a/**/z', 'a/b/c/z'],
      ['file-?.txt', 'file-1.txt'],
      ['exact/path.txt', 'exact/path.txt'],
    ]
    const no: Array<[string, string]> = [
      ['docs/*.md', 'docs/sub/readme.md'],
      ['docs/*.md', 'docs/readme.txt'],
      ['junk/**', 'junkyard/a'],
      ['file-?.txt', 'file-10.txt'],
      ['a/**/z', 'a/b/c/y'],
      ['exact/path.txt', 'exact/path.txt.bak'],
      ['*', 'a/b'],
      ['.githooks/*', 'x/.githooks/post-checkout'],
    ]
    for (const [p, path] of yes) expect(pathMatches(p, path), `${p} ~ ${path}`).toBe(true)
    for (const [p, path] of no) expect(pathMatches(p, path), `${p} !~ ${path}`).toBe(false)
    expect(pathAllowed([], 'anything')).toBe(false)
    expect(pathAllowed(['x/**', 'junk/**'], 'junk/a')).toBe(true)
  })

  it('never backtracks its way into a long match: a hostile pattern against a long path stays fast', () => {
    const pattern = `${'*a'.repeat(60)}b`
    const path = 'a'.repeat(4000)
    const deep = `${'**/'.repeat(60)}b`
    const segments = Array.from({length: 400}, () => 'a').join('/')
    const started = performance.now()
    expect(pathMatches(pattern, path)).toBe(false)
    expect(pathMatches(deep, segments)).toBe(false)
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('refuses a pattern that is empty, absolute, has control characters, . or .. or empty segments, or is too long', () => {
    for (const bad of ['', '/etc/*', 'a\u0001b', 'a/../b', './a', 'a//b', 'x'.repeat(257)]) expect(pathPatternProblem(bad), JSON.stringify(bad)).not.toBeNull()
    for (const good of ['junk/', 'junk/**', '**/*.md', '.githooks/*', 'a b/c']) expect(pathPatternProblem(good), good).toBeNull()
    expect(() => parseConfigValue('allowed_paths', 'junk/**,/etc/passwd')).toThrow(/allowed_paths/)
    expect(parseConfigValue('allowed_paths', ' junk/** , docs/*.md,junk/** ')).toEqual(['junk/**', 'docs/*.md'])
    expect(() => parseConfigValue('allowed_paths', Array.from({length: 65}, (_, i) => `p${i}/**`).join(','))).toThrow(/at most 64/)
  })

  it('is written to config.yaml only when set, and read back', () => {
    const plain = serialiseConfig({...DEFAULT_CONFIG})
    expect(plain).not.toMatch(/allowed_paths|max_file_bytes/)
    const text = serialiseConfig({...DEFAULT_CONFIG, allowed_paths: ['junk/**'], max_file_bytes: 4 * 1024 * 1024})
    const back = parseConfig(text)
    expect(back.ok && back.value.allowed_paths).toEqual(['junk/**'])
    expect(back.ok && back.value.max_file_bytes).toBe(4 * 1024 * 1024)
    // The reader refuses what config set would refuse.
    expect(parseConfig('allowed_paths: ["/etc/*"]\n').ok).toBe(false)
    expect(parseConfig('max_file_bytes: 10\n').ok).toBe(false)
  })
})

describe('judgeBlob', () => {
  const config = (more: Partial<ListConfig> = {}): ListConfig => ({...DEFAULT_CONFIG, ...more})
  const rules = (b: Parameters<typeof judgeBlob>[0], c = config()) => judgeBlob(b, c).map((r) => r.rule)

  it('takes the known kinds up to the readers\' limit and other paths only when allowed, each up to max_file_bytes', () => {
    expect(rules({path: 'config.yaml', kind: 'config', mode: '100644', size: 100})).toEqual([])
    expect(rules({path: 'junk/a', kind: 'unknown', mode: '100644', size: 100})).toEqual(['path_not_allowed'])
    expect(rules({path: 'junk/a', kind: 'unknown', mode: '100644', size: 100}, config({allowed_paths: ['junk/**']}))).toEqual([])
    expect(rules({path: 'junk/a', kind: 'unknown', mode: '100644', size: 3 << 20}, config({allowed_paths: ['junk/**']}))).toEqual(['file_too_large'])
    expect(rules({path: 'junk/a', kind: 'unknown', mode: '100644', size: 3 << 20}, config({allowed_paths: ['junk/**'], max_file_bytes: 4 << 20}))).toEqual([])
    expect(rules({path: 'junk/a', kind: 'unknown', mode: '100644', size: 3 << 20})).toEqual(['path_not_allowed', 'file_too_large'])
    // The tool's own files stay within what the readers read, whatever max_file_bytes says; and within a lower max.
    expect(rules({path: 'config.yaml', kind: 'config', mode: '100644', size: MAX_FILE_BYTES + 1}, config({max_file_bytes: 4 << 20}))).toEqual(['file_too_large'])
    expect(rules({path: 'config.yaml', kind: 'config', mode: '100644', size: 70_000}, config({max_file_bytes: 65536}))).toEqual(['file_too_large'])
  })

  it('refuses anything that is not a regular file, allowed or not', () => {
    expect(rules({path: '.githooks/post-checkout', kind: 'unknown', mode: '100755', size: 20})).toEqual(['path_not_allowed'])
    expect(rules({path: 'junk/link', kind: 'unknown', mode: '120000', size: 5}, config({allowed_paths: ['junk/']}))).toEqual(['schema'])
    expect(rules({path: 'junk/sub', kind: 'unknown', mode: '160000', size: null}, config({allowed_paths: ['junk/']}))).toEqual(['schema'])
  })
})
