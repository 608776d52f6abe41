/**
 * Who `tasks mcp --agent A` may run for, checked before the server starts
 * (a server that starts for nobody, or for a misspelt name, would deliver
 * nothing and say nothing): A must be a name (not blank, a valid actor id),
 * and when the list has an actor registry (`tasks actor list`: everyone who
 * wrote on the list or was added), A must be in it, by id or alias. A list
 * without a registry yet (or not initialised yet) takes any valid name, and
 * so does a list with open work assigned to or held by A (a scenario's
 * members are assigned their items before they ever write).
 */
import {TasksError, UsageError} from '../core/errors'
import {checkActor} from '../core/validation'
import {actorList} from '../app/inbox-actions'
import type {Session} from '../app/session'
import {tablesOf} from '../core/snapshot'

export interface AgentCheck {
  /** The name as given, trimmed. */
  agent: string
  /** The registry's canonical actor for it (an alias folds into its actor), or the name when there is no registry. */
  actor: string
  /** Whether the list has a registry (false: any valid name is taken). */
  registry: boolean
}

/** A blank `--agent` is refused before anything is opened. */
export function checkAgentName(agent: string): string {
  if (agent.trim() === '') {
    throw new UsageError('--agent needs a name: the actor whose inbox this server delivers (tasks actor list shows them)', {flag: 'agent'}, 'usage')
  }
  return checkActor(agent, 'agent')
}

/** The whole check: a name, and one the registry knows when there is a registry. */
export async function checkAgent(session: Session, agent: string): Promise<AgentCheck> {
  const name = checkAgentName(agent)
  let actors
  try {
    actors = (await actorList(session)).actors
  } catch (error) {
    // No list yet: nobody is registered, so nobody is unknown. The server reports the list's absence on use.
    if (error instanceof TasksError && error.code === 'not_initialised') return {agent: name, actor: name, registry: false}
    throw error
  }
  if (actors.length === 0) return {agent: name, actor: name, registry: false}
  const found = actors.find((a) => a.id === name || a.aliases.includes(name))
  // Work waiting for a name makes it known too: a scenario's member, or anyone assigned an item, before they ever wrote.
  if (!found && (await hasWorkFor(session, name))) return {agent: name, actor: name, registry: true}
  if (!found) {
    const known = actors.map((a) => a.id)
    const shown = known.length > 8 ? `${known.slice(0, 8).join(', ')}, … (${known.length} in all)` : known.join(', ')
    throw new UsageError(
      `"${name}" is not an actor of list ${session.list} (known: ${shown}); check the spelling, or register it with \`tasks actor add ${name}\``,
      {agent: name, known: known.slice(0, 50)},
      'unknown_agent',
    )
  }
  return {agent: name, actor: found.id, registry: true}
}

/** Whether an open item of the list is reserved for `name` or held by it (the index's tables: no card decoded). */
async function hasWorkFor(session: Session, name: string): Promise<boolean> {
  const tables = tablesOf((await session.store.load()).snapshot)
  return (tables.reservations().get(name)?.length ?? 0) > 0 || (tables.claims().get(name)?.length ?? 0) > 0
}
