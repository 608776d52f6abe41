/**
 * `tasks help` lists the commands in groups (everyday, agents, collaboration,
 * history, sharing and server, administration): every visible command is in
 * one of them, so a new command is placed on purpose, not left under OTHER.
 */
import {describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/commands'
import {HELP_GROUPS, helpGroupOf, rootHelp} from '../../src/commands/root-help'

describe('tasks help groups', () => {
  it('places every visible command in a named group', () => {
    const visible = Object.entries(COMMANDS as Record<string, {hidden?: boolean}>)
      .filter(([, c]) => !c.hidden)
      .map(([id]) => id.replace(/:/g, ' '))
    const unplaced = visible.filter((id) => helpGroupOf(id) === 'OTHER')
    expect(unplaced).toEqual([])
  })

  it('prints the groups in order, everyday first, each command once', () => {
    const text = rootHelp(COMMANDS as never, 100)
    const headings = [...text.matchAll(/^COMMANDS: (.+)$/gm)].map((m) => m[1])
    expect(headings).toEqual(HELP_GROUPS.map(([g]) => g))
    expect(text.indexOf('  next ')).toBeLessThan(text.indexOf('  config get'))
    expect(text.match(/^ {2}claim /gm)).toHaveLength(1)
  })
})
