import {describe, expect, it} from 'vitest'
import {formatDuration, parseDuration} from '../../src/core/duration'

describe('durations in settings', () => {
  it('parses seconds (bare or s), ms, m and h; refuses the rest', () => {
    expect(parseDuration('30')).toBe(30_000)
    expect(parseDuration('30s')).toBe(30_000)
    expect(parseDuration(' 2m ')).toBe(120_000)
    expect(parseDuration('1500ms')).toBe(1500)
    expect(parseDuration('1.5s')).toBe(1500)
    expect(parseDuration('1h')).toBe(3_600_000)
    expect(parseDuration('0')).toBe(0)
    expect(parseDuration('2M')).toBe(120_000)
    for (const bad of ['', 'soon', '-1s', '1e3', '2 min', '25h', 's', '1s2']) expect(parseDuration(bad), bad).toBeNull()
  })

  it('formats for messages', () => {
    expect(formatDuration(30_000)).toBe('30s')
    expect(formatDuration(120_000)).toBe('2m')
    expect(formatDuration(1500)).toBe('1.5s')
    expect(formatDuration(2300)).toBe('2.3s')
  })
})
