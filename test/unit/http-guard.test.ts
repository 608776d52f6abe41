import {describe, expect, it} from 'vitest'
import {addressedToLoopback, isLoopbackHost, sameSecret} from '../../src/core/http-guard'

describe('the local HTTP servers\' guard', () => {
  it('knows loopback in every spelling, and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(h)).toBe(true)
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'example.com', '128.0.0.1']) expect(isLoopbackHost(h)).toBe(false)
  })
  it('accepts a Host header naming the loopback server, and refuses a rebound name', () => {
    expect(addressedToLoopback('127.0.0.1:8275', '127.0.0.1', 8275)).toBe(true)
    expect(addressedToLoopback('LOCALHOST:8275', '127.0.0.1', 8275)).toBe(true)
    expect(addressedToLoopback('[::1]:8275', '::1', 8275)).toBe(true)
    expect(addressedToLoopback('127.0.0.2:8275', '127.0.0.2', 8275)).toBe(true)
    expect(addressedToLoopback('evil.example:8275', '127.0.0.1', 8275)).toBe(false)
    expect(addressedToLoopback('127.0.0.1:9999', '127.0.0.1', 8275)).toBe(false)
    expect(addressedToLoopback(undefined, '127.0.0.1', 8275)).toBe(false)
  })
  it('compares secrets whole', () => {
    expect(sameSecret('abcdefghijklmnop', 'abcdefghijklmnop')).toBe(true)
    expect(sameSecret('abcdefghijklmnop', 'abcdefghijklmnoq')).toBe(false)
    expect(sameSecret('abc', 'abcd')).toBe(false)
  })
})
