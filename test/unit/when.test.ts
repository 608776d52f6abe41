import {describe, expect, it} from 'vitest'
import {parseWhen} from '../../src/core/when'

const NOW = Date.parse('2026-12-04T12:00:00Z')

describe('parseWhen', () => {
  it('reads a duration back from now first, even when it is also hexadecimal', () => {
    expect(parseWhen('2h', NOW)).toEqual({kind: 'time', input: '2h', at: NOW - 2 * 3600_000})
    expect(parseWhen('3d', NOW)).toEqual({kind: 'time', input: '3d', at: NOW - 3 * 86_400_000})
    expect(parseWhen('1d12h', NOW).kind).toBe('time')
    // Five hex digits, so also a commit prefix in form: the duration wins.
    expect(parseWhen('1000d', NOW)).toEqual({kind: 'time', input: '1000d', at: NOW - 1000 * 86_400_000})
  })
  it('reads a text of both forms as a commit from 7 characters on, and refuses a duration before any date', () => {
    // A commit prefix the tests met by chance: as a duration it would be 15 days ago, or a date that does not exist.
    expect(parseWhen('3d3d3d3d3d', NOW)).toEqual({kind: 'commit', input: '3d3d3d3d3d', prefix: '3d3d3d3d3d'})
    expect(parseWhen('98765432d', NOW).kind).toBe('commit')
    expect(() => parseWhen('99999999w', NOW)).toThrow(expect.objectContaining({code: 'bad_when', exitCode: 2}))
  })
  it('reads 4 to 40 hex digits as a commit prefix', () => {
    expect(parseWhen('ABCD12', NOW)).toEqual({kind: 'commit', input: 'ABCD12', prefix: 'abcd12'})
    expect(parseWhen('a'.repeat(40), NOW).kind).toBe('commit')
  })
  it('reads dates and ISO times', () => {
    expect(parseWhen('2026-11-30T14:00:00Z', NOW)).toEqual({kind: 'time', input: '2026-11-30T14:00:00Z', at: Date.parse('2026-11-30T14:00:00Z')})
    expect(parseWhen('2026-11-30', NOW).kind).toBe('time')
  })
  it('refuses anything else with exit 2 bad_when', () => {
    for (const bad of ['', 'yesterday', 'abc', 'a'.repeat(41), '2026-13-45x', 'HEAD~1']) {
      expect(() => parseWhen(bad, NOW, 'at')).toThrow(expect.objectContaining({code: 'bad_when', exitCode: 2}))
    }
  })
})
