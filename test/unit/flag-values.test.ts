import {describe, expect, it} from 'vitest'
import {ME, actorsNamed, splitValues} from '../../src/core/flag-values'

describe('flag values', () => {
  it('splits repeated and comma-separated values, trimmed, empty ones dropped, in order', () => {
    expect(splitValues(undefined)).toEqual([])
    expect(splitValues(['p0, p1', ' ,', 'p2', ''])).toEqual(['p0', 'p1', 'p2'])
  })

  it('reads @me as the acting identity, asking for it once and only when named', async () => {
    let asked = 0
    const actor = async () => {
      asked++
      return 'alice'
    }
    expect([...(await actorsNamed(['bob,' + ME, ME, 'carol'], actor))]).toEqual(['bob', 'alice', 'carol'])
    expect(asked).toBe(1)
    expect([...(await actorsNamed(['bob', 'bob'], actor))]).toEqual(['bob'])
    expect(asked).toBe(1)
  })
})
