/**
 * Error messages as an MCP client can act on them (issue 35): the core's
 * messages name CLI commands (`tasks check pass ID CHECK --evidence "…"`);
 * over MCP each is rewritten as the tool and its parameters
 * (`check_pass {id: ID, check: CHECK, evidence: "…"}`), a bare flag as the
 * parameter (`--if-revision 4` → `if_revision 4`), and a tool outside the
 * served toolsets says which toolset holds it. A few refusals an agent
 * meets in the claim loop get one more line on what to call next. Pure:
 * strings in, string out; the message's structured data is left as it is.
 */
import {type Param, snake, takes} from '../core/params'
import type {AnySpec} from '../operations/spec'
import {toolName} from '../operations/spec'

/** What to call next after a refusal of the claim loop, by code (only when the message has no tool in it yet). */
const NEXT_STEP: Record<string, string> = {
  already_claimed: 'call next {} for another item, or takeover {id, reason} (coordination toolset) if the holder is gone',
  nothing_ready: 'list {} shows what waits and on what; inbox {} tells you when something changes',
  checks_pending: 'check_pass {id, check, evidence} for each, then done {id}',
  revision_mismatch: 'show {id} for the current revision, then retry with if_revision',
}

/** Turns the CLI words of one command (`check pass tsk-1 CHECK --evidence "x"`) into a tool call, or null when no operation matches. */
function toolCall(words: string, specs: readonly AnySpec[], served: ReadonlySet<string>): string | null {
  const tokens = words.match(/"[^"]*"|\S+/g) ?? []
  let spec: AnySpec | undefined
  let used = 0
  for (const s of specs) {
    const name = s.name.split(' ')
    if (name.length > used && name.every((w, i) => tokens[i] === w)) {
      spec = s
      used = name.length
    }
  }
  if (!spec || spec.mcp === false) return null
  const positional = Object.entries(spec.params as Record<string, Param>).filter(([, p]) => p.positional && takes(p, 'mcp'))
  const args: string[] = []
  let next = 0
  for (let i = used; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t === '…' || t === '...' || t.startsWith('[')) continue
    if (t.startsWith('--')) {
      const key = t.slice(2).replace(/-/g, '_')
      const value = tokens[i + 1] !== undefined && !tokens[i + 1]!.startsWith('--') ? tokens[++i]! : 'true'
      args.push(`${key}: ${value}`)
    } else if (next < positional.length) {
      args.push(`${snake(positional[next]![0])}: ${t}`)
      if (!positional[next]![1].greedy) next++
    }
  }
  const name = toolName(spec)
  const call = `\`${name} {${args.join(', ')}}\``
  return served.has(name) ? call : `${call} (toolset ${spec.toolset}: not served; restart tasks mcp with --toolsets …,${spec.toolset})`
}

/** `message` as an MCP client reads it; `served` is the names of the tools this server offers. */
export function mcpMessage(message: string, code: string, specs: readonly AnySpec[], served: ReadonlySet<string>): string {
  // Bare flags outside quoted commands first (`retry with --if-revision 4`), then the quoted commands.
  let out = message
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/(^|[\s(])--([a-z][a-z-]*)/g, (_m, before: string, flag: string) => `${before}${flag.replace(/-/g, '_')}`)))
    .join('`')
  out = out.replace(/`tasks ([^`]+)`/g, (whole, words: string) => toolCall(words, specs, served) ?? whole)
  const step = NEXT_STEP[code]
  if (step && !out.includes(step.split(' ')[0]!)) out = `${out}; ${step}`
  return out
}
