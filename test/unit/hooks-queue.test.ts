/**
 * The hooks' queue records (src/hooks/queue.ts) and the trailer reader
 * (messageTrailers in src/core/commit-link.ts), on hostile input: fields
 * that hold spaces, newlines and option-like words stay whole; old-format
 * lines are read only where unambiguous; the trailer reader is linear.
 */
import {describe, expect, it} from 'vitest'
import {MAX_TRAILER_LINE, commitTrailers, messageTrailers} from '../../src/core/commit-link'
import {type PushRecord, encodeRecord, isRefName, isRemoteName, parseQueue} from '../../src/hooks/queue'

const A = 'a'.repeat(40)
const B = 'b'.repeat(64)
const ZERO = '0'.repeat(40)

describe('queue records', () => {
  it('a field holding spaces, newlines, a leading dash or the record tag stays one field', () => {
    const push: PushRecord = {kind: 'push', pid: 42, remote: '-x --output=/tmp/INJ y', url: '/tmp/nl\n--output=/tmp/INJ z\n\0q2\0', localSha: A, remoteSha: ZERO, remoteRef: 'refs/heads/-weird', localRef: 'HEAD~1 x'}
    // A NUL cannot be in a shell variable or a path; were one there, the record is refused rather than misread.
    const text = encodeRecord({kind: 'commit', sha: B, branch: 'task/k3v9-x'}) + encodeRecord({...push, url: '/tmp/nl\n--output=/tmp/INJ z'}) + encodeRecord({kind: 'commit', sha: A, branch: 'HEAD'})
    const {records, dropped} = parseQueue(text)
    expect(dropped).toEqual([])
    expect(records).toEqual([{kind: 'commit', sha: B, branch: 'task/k3v9-x'}, {...push, url: '/tmp/nl\n--output=/tmp/INJ z'}, {kind: 'commit', sha: A, branch: 'HEAD'}])
  })

  it('reads what the shell writes: printf with \\000 and %s', () => {
    // The exact bytes `printf '\000q2\000%s\000push\000%s…\000\n' 8 "$PPID" "$1" …` produces.
    const text = `\0q2\x008\0push\x00123\0-y\0/srv/a b\0${A}\0${ZERO}\0refs/heads/main\0refs/heads/main\0\n`
    expect(parseQueue(text).records).toEqual([{kind: 'push', pid: 123, remote: '-y', url: '/srv/a b', localSha: A, remoteSha: ZERO, remoteRef: 'refs/heads/main', localRef: 'refs/heads/main'}])
  })

  it('old-format lines: read where unambiguous, else dropped with a reason', () => {
    const text = [
      `commit ${A} main`,
      `commit ${A} `,
      `push 7 /srv/x --output=/tmp/INJ y ${A} ${ZERO} refs/heads/main HEAD`,
      `push 7 /srv/nl`,
      `--output=/tmp/INJ z ${A} ${ZERO} refs/heads/main HEAD`,
      `push 7 /srv/x ${A} ${ZERO} --output=/tmp/INJ HEAD`,
      `push 7 /srv/x --upload-pack=evil ${ZERO} refs/heads/main HEAD`,
      `commit --output=/tmp/INJ main`,
      '',
    ].join('\n')
    const {records, dropped} = parseQueue(text)
    expect(records).toEqual([
      {kind: 'commit', sha: A, branch: 'main'},
      {kind: 'commit', sha: A, branch: 'HEAD'},
      {kind: 'push', pid: 7, remote: '/srv/x --output=/tmp/INJ y', url: '', localSha: A, remoteSha: ZERO, remoteRef: 'refs/heads/main', localRef: 'HEAD'},
    ])
    expect(dropped.map((d) => d.reason)).toEqual([
      expect.stringMatching(/too few fields/),
      expect.stringMatching(/no known kind/),
      expect.stringMatching(/remote ref is not a ref name/),
      expect.stringMatching(/shas are not shas/),
      expect.stringMatching(/sha is not a sha/),
    ])
  })

  it('old lines and new records mixed in one file (hooks of both versions, or a retry file) are all read', () => {
    const text = `commit ${A} main\n${encodeRecord({kind: 'commit', sha: B, branch: 'x'})}commit ${B} y\n`
    expect(parseQueue(text).records.map((r) => (r.kind === 'commit' ? r.branch : ''))).toEqual(['main', 'x', 'y'])
  })

  it('a record cut short, a wrong count or an unknown kind is dropped and the next record still read', () => {
    const next = encodeRecord({kind: 'commit', sha: A, branch: 'main'})
    for (const bad of [`\0q2\x008\0push\x001\0/srv/a`, `\0q2\0x\0commit\0${A}\0`, `\0q2\x00999\0commit\0`, `\0q9\x001\0x\0`, `\0q2\x002\0rm\0-rf\0`]) {
      const {records, dropped} = parseQueue(bad + next)
      expect([bad, dropped.length]).toEqual([bad, 1])
      // The cut-short record swallows fields of the next one; each other case resyncs on the next record.
      if (!bad.includes('/srv/a')) expect([bad, records]).toEqual([bad, [{kind: 'commit', sha: A, branch: 'main'}]])
    }
  })

  it('ref and remote names follow git check-ref-format, under refs/ only', () => {
    for (const ok of ['refs/heads/main', 'refs/heads/-weird', 'refs/heads/task/k3v9-x', 'refs/tags/v1.0', 'refs/heads/é']) expect([ok, isRefName(ok)]).toEqual([ok, true])
    for (const bad of ['-x', '--output=/tmp/x', 'main', 'HEAD', 'refs/heads/a b', 'refs/heads/a..b', 'refs/heads/a.lock', 'refs/heads/.a', 'refs/heads/a/', 'refs/heads//a', 'refs/heads/a@{1}', 'refs/heads/a*', 'refs/heads/a\nb', 'refs/heads/a:b', 'refs/heads/a.', '']) {
      expect([bad, isRefName(bad)]).toEqual([bad, false])
    }
    expect(isRemoteName('-y')).toBe(true)
    expect(isRemoteName('origin')).toBe(true)
    for (const bad of ['', 'a b', 'a*', '/srv/x', 'a\nb', '.']) expect([bad, isRemoteName(bad)]).toEqual([bad, false])
  })
})

describe('the trailer reader', () => {
  const time = (f: () => void) => {
    const t = process.hrtime.bigint()
    f()
    return Number(process.hrtime.bigint() - t) / 1e6
  }

  it('is linear: 1 MB lines that made the old regex backtrack (32 KB took 6 s) take milliseconds', () => {
    const shapes = [
      (n: number) => `s\n\nCloses: x${' '.repeat(n)}y\n`,
      (n: number) => `s\n\nKey:${' \t'.repeat(n / 2)}\n`,
      (n: number) => `s\n\n${'a:'.repeat(n / 2)}`,
      (n: number) => `s\n${'\n '.repeat(n / 2)}x`,
    ]
    for (const shape of shapes) {
      const large = shape(1024 * 1024)
      const ms = time(() => messageTrailers(large))
      expect(ms).toBeLessThan(500)
    }
  })

  it('skips lines longer than the cap, reads the rest as before', () => {
    const long = `Refs: tsk-aaaa ${'x'.repeat(MAX_TRAILER_LINE)}`
    expect(messageTrailers(`s\n\n${long}\nCloses: tsk-bbbb\n`)).toEqual([['Closes', 'tsk-bbbb']])
    expect(commitTrailers('s\n\nTask:   tsk-k3v9 ,tsk-aaaa  \r\nFixes:\ttsk-cccc\n')).toEqual({refs: ['tsk-k3v9', 'tsk-aaaa'], closes: ['tsk-cccc']})
    // A subject alone has no trailers; a blank first line separates nothing.
    expect(messageTrailers('Closes: tsk-aaaa')).toEqual([])
    expect(messageTrailers('\nCloses: tsk-aaaa')).toEqual([])
    expect(messageTrailers('s\n \t\nCloses: tsk-aaaa\nnot a trailer\nA-b: c\rd\n')).toEqual([['Closes', 'tsk-aaaa']])
  })
})
