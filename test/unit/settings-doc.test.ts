/**
 * docs/model.md's "List settings" table names every key of config.yaml the
 * code knows, with its default: a setting added to DEFAULT_CONFIG without a
 * row (or with a row whose default drifted) fails here.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {DEFAULT_CONFIG} from '../../src/core/task'

const doc = readFileSync(join(__dirname, '../../docs/model.md'), 'utf8')
const section = doc.slice(doc.indexOf('## List settings'), doc.indexOf('\n## ', doc.indexOf('## List settings') + 1))
const rows = new Map<string, string>()
for (const line of section.split('\n')) {
  const m = /^\| `([a-z_]+)` \| ([^|]*) \|/.exec(line)
  if (m) rows.set(m[1]!, /^`([^`]*)`/.exec(m[2]!)?.[1] ?? m[2]!)
}

describe('docs/model.md, "List settings"', () => {
  it('has a row for every key of DEFAULT_CONFIG, and no other', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(DEFAULT_CONFIG).sort())
  })

  it('gives each key its default', () => {
    for (const [key, value] of Object.entries(DEFAULT_CONFIG)) {
      if (key === 'notify') continue
      const shown = rows.get(key)
      const want = Array.isArray(value) || (typeof value === 'object' && value !== null) ? JSON.stringify(value) : typeof value === 'string' ? `'${value}'` : String(value)
      expect(shown, key).toBe(want)
    }
  })
})
