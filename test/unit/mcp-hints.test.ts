import {describe, expect, it} from 'vitest'
import {mcpMessage} from '../../src/agent/mcp-hints'
import {compactWrite} from '../../src/render/compact-write'
import {parseToolsets} from '../../src/agent/tools'
import {OPERATIONS} from '../../src/operations/table'
import {TOOLSETS} from '../../src/operations/spec'

const core = new Set(['list', 'show', 'next', 'claim', 'heartbeat', 'checkpoint', 'check_pass', 'done', 'block', 'release', 'comment', 'inbox', 'poll_inbox', 'toolsets'])

describe('error hints over MCP', () => {
  it('names the tool and its parameters instead of the command', () => {
    const m = mcpMessage('pass them with `tasks check pass tsk-1 CHECK --evidence "…"` or supersede them', 'checks_pending', OPERATIONS, core)
    expect(m).toBe('pass them with `check_pass {id: tsk-1, check: CHECK, evidence: "…"}` or supersede them')
  })
  it('a bare flag becomes the parameter; a tool outside the served toolsets says which holds it', () => {
    const m = mcpMessage('read it again (`tasks show tsk-1`) and retry with --if-revision 4', 'revision_mismatch', OPERATIONS, core)
    expect(m).toBe('read it again (`show {id: tsk-1}`) and retry with if_revision 4')
    expect(mcpMessage('use `tasks reopen tsk-1` first', 'x', OPERATIONS, core)).toBe('use `reopen {id: tsk-1}` (toolset planning: not served; restart tasks mcp with --toolsets …,planning) first')
    // A command that is no operation stays as it is.
    expect(mcpMessage('run `tasks board stop`', 'x', OPERATIONS, core)).toBe('run `tasks board stop`')
  })
  it('the refusals of the claim loop say what to call next, once', () => {
    expect(mcpMessage('tsk-1 is already claimed by b (epoch 1, lease until never)', 'already_claimed', OPERATIONS, core)).toMatch(/; call next \{\} for another item/)
    expect(mcpMessage('nothing is ready to claim', 'nothing_ready', OPERATIONS, core)).toBe('nothing is ready to claim; list {} shows what waits and on what; inbox {} tells you when something changes')
  })
})

describe('toolsets', () => {
  it('core always; all is every set; an unknown name is a usage error', () => {
    expect(parseToolsets(undefined)).toEqual(['core'])
    expect(parseToolsets('history, planning')).toEqual(['core', 'history', 'planning'])
    expect(parseToolsets('all')).toEqual(Object.keys(TOOLSETS))
    expect(() => parseToolsets('core,nope')).toThrow(/unknown toolset "nope"/)
  })
  it('every toolset holds at least one operation', () => {
    for (const set of Object.keys(TOOLSETS)) expect(OPERATIONS.some((s) => s.toolset === set), set).toBe(true)
  })
})

describe('compact write answers', () => {
  it('the task as it became, the commit, the nested object by id and status, none of the caller\'s text', () => {
    const text = compactWrite('check_pass', {
      task: {id: 'tsk-abcdefghij', short_id: 'abcd', title: 'T', state: 'in_progress', owner: 'a', epoch: 2, revision: 4, lease_expires: null, waiting: []},
      check: {id: 'chk-1', task: 'tsk-abcdefghij', kind: 'test', text: 'npm test', status: 'passed', evidence: 'SECRET EVIDENCE'},
      commit: 'c0ffee',
      published: false,
    })
    expect(text).toBe('# git-tasks compact 1: check_pass (format "json" for the whole result)\ntask: abcd\ntask.state: in_progress\ntask.owner: a\ntask.epoch: 2\ntask.revision: 4\ncheck.id: chk-1\ncheck.kind: test\ncheck.status: passed\ncommit: c0ffee\n')
  })
})
