/**
 * The one place inbox records join a mutation: after the op planned its
 * changes and before the commit is written, the transaction asks this hook
 * for the records (and the actor's last_seen) and adds them to the plan, so
 * they land in the same commit, are re-computed when a lost race re-runs
 * the op, and reach every op, including ops added later, with no change to
 * the op. It reads only the registry entries of the names on the touched
 * cards (app → refstore), and leaves the decision to core/notify.ts.
 */
import {type ActorEntry, ACTORS_DIR, actorSlug, parseActor} from '../core/inbox'
import {inboxChanges, namesToResolve} from '../core/notify'
import type {OpContext, Plan} from '../core/plan'
import type {ListStore, Loaded} from '../refstore/list-store'

/** Registry entries of `names` and of the canonical actors their aliases name (two reads at most). */
export async function readRegistry(store: ListStore, rootTree: string, names: readonly string[]): Promise<Map<string, ActorEntry>> {
  const registry = new Map<string, ActorEntry>()
  const fetch = async (wanted: readonly string[]): Promise<void> => {
    const bySlug = new Map<string, string>()
    for (const n of wanted) if (!registry.has(n)) bySlug.set(`${actorSlug(n)}.yaml`, n)
    if (bySlug.size === 0) return
    const texts = await store.readFilesIn(rootTree, ACTORS_DIR, [...bySlug.keys()])
    for (const [file, text] of texts) {
      const parsed = parseActor(text)
      const name = bySlug.get(file)!
      // An entry that does not parse, or names another id (a hash clash), is as if absent.
      if (parsed.ok && parsed.value.id === name) registry.set(name, parsed.value)
    }
  }
  await fetch(names)
  const targets = [...registry.values()].map((e) => e.alias_of).filter((t): t is string => !!t)
  await fetch(targets)
  return registry
}

/** The plan with its inbox records and the actor's last_seen added. */
export async function withInbox<R>(store: ListStore, loaded: Loaded, plan: Plan<R>, ctx: OpContext): Promise<Plan<R>> {
  const registry = await readRegistry(store, loaded.index.rootTree, namesToResolve(plan, loaded.snapshot, ctx))
  const extra = inboxChanges(plan, loaded.snapshot, ctx, registry)
  return extra.length > 0 ? {...plan, changes: [...plan.changes, ...extra]} : plan
}
