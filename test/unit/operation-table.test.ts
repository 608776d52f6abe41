/**
 * The operation table is the one declaration of every operation: each is
 * reachable from the command line, over MCP and (where it is one) in batch
 * files, under the same parameter names, and the same values given on two
 * surfaces reach the operation as the same arguments.
 */
import {Parser} from '@oclif/core'
import * as z from 'zod'
import {describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/commands'
import {argumentsFrom} from '../../src/commands/from-spec'
import {type Param, kebab, readParams, snake, takes, unknownFields} from '../../src/core/params'
import {inputShapeOf} from '../../src/agent/tool-schema'
import {parseToolsets, toolsFor} from '../../src/agent/tools'
import {OPERATIONS, batchOperations} from '../../src/operations/table'
import {toolName, wireName} from '../../src/operations/spec'

const commandOf = (name: string) => (COMMANDS as Record<string, any>)[name.replace(/ /g, ':')]
const paramsOf = (spec: (typeof OPERATIONS)[number]) => Object.entries(spec.params as Record<string, Param>)

describe('the operation table', () => {
  it('names each operation once, and every MCP tool but the connection\'s own comes from it', () => {
    const names = OPERATIONS.map((s) => s.name)
    expect(new Set(names).size).toBe(names.length)
    const tools = toolsFor(
      OPERATIONS,
      () => {
        throw new Error('not called')
      },
      parseToolsets('all'),
    ).map((t) => t.name)
    const fromTable = OPERATIONS.filter((s) => s.mcp !== false).map(toolName)
    expect(tools.filter((t) => !fromTable.includes(t))).toEqual(['poll_inbox', 'toolsets'])
    // Every operation the MCP server had before the table still has its tool.
    for (const t of ['list', 'show', 'add', 'edit', 'claim', 'next', 'heartbeat', 'done', 'block', 'reopen', 'release', 'cancel', 'comment', 'deps', 'assign', 'sync', 'log', 'search', 'prime', 'checkpoint', 'check_add', 'check_pass', 'check_fail', 'check_supersede', 'check_list', 'flag', 'unflag', 'takeover', 'sweep', 'prune', 'batch', 'inbox', 'inbox_ack', 'collab_add', 'collab_rm', 'watch', 'unwatch', 'notify', 'actor_list', 'actor_add', 'actor_alias', 'stale', 'remind', 'events', 'graph', 'rm', 'restore', 'undo', 'config_list', 'config_get', 'config_set', 'config_unset', 'doctor', 'lists', 'remote', 'remote_set', 'remote_unset', 'init', 'branch', 'export', 'import']) {
      expect(tools, t).toContain(t)
    }
  })

  for (const spec of OPERATIONS) {
    it(`${spec.name}: the same parameter names on the command line, over MCP and in batch files`, () => {
      const command = commandOf(spec.name)
      expect(command, `no command "${spec.name}"`).toBeDefined()
      expect(command.summary).toBe(spec.summary)
      const shape = inputShapeOf(z, spec)
      for (const [name, param] of paramsOf(spec)) {
        if (takes(param, 'cli')) {
          if (param.positional) expect(Object.keys(command.args), `${spec.name} ${name}`).toContain(kebab(name))
          else {
            expect(Object.keys(command.flags), `${spec.name} --${kebab(name)}`).toContain(kebab(name))
            for (const alias of param.aliases ?? []) expect(command.flags[kebab(name)].aliases, `${spec.name} --${kebab(alias)}`).toContain(kebab(alias))
          }
        }
        if (takes(param, 'mcp') && spec.mcp !== false) {
          expect(Object.keys(shape), `${toolName(spec)}.${snake(name)}`).toContain(snake(name))
          for (const alias of param.aliases ?? []) expect(Object.keys(shape)).toContain(snake(alias))
        }
        if (spec.batch && takes(param, 'batch')) {
          expect(unknownFields(spec.params, {[snake(name)]: null}, 'batch')).toEqual([])
        }
      }
      if (spec.batch) {
        const op = batchOperations().get(wireName(spec))
        expect(op?.params).toBe(spec.params)
        expect(unknownFields(spec.params, {colour: 'red'}, 'batch')).toEqual(['colour'])
      }
      // The session-level parameters come with the declaration too.
      if (spec.override) expect(Object.keys(command.flags)).toEqual(expect.arrayContaining(['force', 'reason']))
      if (spec.agentSession) expect(Object.keys(command.flags)).toContain('session')
    })
  }

  /** A value of each kind, as the command line types it and as JSON sends it. */
  function sample(param: Param): {cli: string[]; json: unknown} | null {
    switch (param.kind) {
      case 'string':
      case 'id':
        return {cli: ['word-x'], json: 'word-x'}
      case 'text':
        return {cli: ['some text'], json: 'some text'}
      case 'integer':
        return {cli: ['3'], json: 3}
      case 'boolean':
        return {cli: [], json: true}
      case 'strings':
      case 'ids':
        return {cli: ['tsk-aaaa', 'tsk-bbbb'], json: ['tsk-aaaa', 'tsk-bbbb']}
      case 'duration':
        return {cli: ['90s'], json: '90s'}
      case 'choice':
        return {cli: [param.options![0]!], json: param.options![0]}
      case 'number-or-string':
        return {cli: ['2'], json: '2'}
      default:
        return null
    }
  }

  /** Operations whose arguments can be written generically: a list argument only last, and every required one sampled. */
  const roundTrips = OPERATIONS.filter((spec) => {
    const positional = paramsOf(spec).filter(([, p]) => p.positional && takes(p, 'cli'))
    const restAt = positional.findIndex(([, p]) => p.kind === 'ids' || p.kind === 'strings' || p.kind === 'text')
    if (restAt !== -1 && restAt !== positional.length - 1) return false
    return positional.every(([, p]) => !p.required || (sample(p) !== null && takes(p, 'mcp') && !(p.file && !p.file.flag)))
  })

  it('round-trips most operations (the rest have their own command-line tests)', () => {
    expect(roundTrips.length).toBeGreaterThan(OPERATIONS.length * 0.8)
  })

  for (const spec of roundTrips) {
    it(`${spec.name}: the same values typed on the command line and sent over MCP reach the operation alike`, async () => {
      const command = commandOf(spec.name)
      const positional: string[] = []
      const flags: string[] = []
      const json: Record<string, unknown> = {}
      for (const [name, param] of paramsOf(spec)) {
        if (!takes(param, 'cli') || !takes(param, 'mcp') || param.exclusive || (param.file && !param.file.flag && param.positional)) continue
        const value = sample(param)
        if (!value) continue
        if (param.positional) positional.push(...value.cli)
        else if (param.kind === 'boolean') flags.push(`--${kebab(name)}`)
        else for (const v of param.kind === 'strings' || param.kind === 'ids' ? value.cli : [value.cli[0]!]) flags.push(`--${kebab(name)}`, v)
        json[snake(name)] = value.json
      }
      const parsed = await Parser.parse([...positional, ...flags], {flags: command.flags, args: command.args, strict: command.strict})
      const fromCli = argumentsFrom(spec, parsed as any)
      const fromMcp = readParams(spec.params, json, 'mcp')
      // What both surfaces take: the sampled values, and the defaults.
      const shared = (a: Record<string, unknown>) => Object.fromEntries(Object.entries(a).filter(([k]) => json[snake(k)] !== undefined || (spec.params[k] as Param).default !== undefined))
      expect(shared(fromCli)).toEqual(shared(fromMcp))
    })
  }
})
