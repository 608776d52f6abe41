/**
 * Scenarios (docs/model.md, "Scenarios"): `scenario start` seeds the list
 * NAME with one assigned item per member in one commit, through the one
 * transaction (locally, or online through the remote like any mutation);
 * `scenario status` derives each member's and the scenario's completion
 * from the items; `scenario list` finds the lists that carry the marker
 * scenario.yaml.
 */
import {NotFoundError} from '../core/errors'
import {startScenario, type StartScenarioArgs} from '../core/ops/scenario'
import {type MemberStatus, type ScenarioFile, SCENARIO_MARKER, SCENARIO_PATH, scenarioMembers, scenarioStatus} from '../core/scenario'
import type {TaskView} from '../core/task-view'
import {listRef} from '../core/store-layout'
import {checkMarkedName} from '../core/list-marker'
import {installMergeDriver} from '../refstore/merge-driver-setup'
import {markedLists, readMarker} from './list-markers'
import type {ListStore, Loaded} from '../refstore/list-store'
import type {Session} from './session'
import {mutate} from './transaction'
import {viewer} from './task-results'

export interface ScenarioStartResult {
  scenario: string
  list: string
  ref: string
  /** False when the same scenario was there already: nothing written. */
  created: boolean
  members: Array<{member: string; task: string; depends_on: string[]; item: TaskView | null}>
  /** The commit that seeded it (this call's, or null when nothing was written). */
  commit: string | null
}

export interface ScenarioStatusResult {
  scenario: string
  list: string
  commit: string
  members: Array<MemberStatus & {short_id: string}>
  done: number
  total: number
  complete: boolean
}

export interface ScenarioListResult {
  scenarios: Array<{scenario: string; ref: string; commit: string; members: string[]; done: number; total: number; complete: boolean}>
  /** Lists whose scenario.yaml cannot be read, by list. */
  broken: Array<{list: string; error: string}>
}

const checkName = (name: string): string => checkMarkedName('scenario', name)

/** The scenario marker of the list at `loaded` (null: none), for the op to decide on, before each try. */
async function markerAt(store: ListStore, loaded: Loaded): Promise<StartScenarioArgs['existing']> {
  return loaded.index.commit ? readMarker(store, SCENARIO_MARKER, {rootTree: loaded.index.rootTree}) : null
}

/**
 * `tasks scenario start NAME --member M=TASK… [--depends M:UPSTREAM…]`.
 * The list is created with its deterministic root commit when this clone
 * does not have it (as `init --list NAME` would; online, a remote that has
 * the list wins, since the root is the same everywhere), then the seeds
 * and the marker are one mutation.
 */
export async function start(session: Session, args: {name: string; member: string[]; depends?: string[]; cli: string}): Promise<ScenarioStartResult> {
  const name = checkName(args.name)
  const members = scenarioMembers(args.member, args.depends ?? [])
  return session.onList(name, async (s) => {
    if (!s.store.tip) {
      // As `init --list NAME`: the merge driver registered (for a person who merges the ref with plain git), the fixed root.
      await installMergeDriver(s.store.repo.cwd, s.store.repo.commonDir, args.cli)
      await s.store.init()
    }
    let existing: StartScenarioArgs['existing'] = null
    const done = await mutate(
      s,
      (snap, ctx) => startScenario(snap, ctx, {name, members, existing}),
      async (store, loaded) => {
        existing = await markerAt(store, loaded)
      },
    )
    const v = await viewer(s, done.after)
    const r = done.result
    const byMember = new Map(r.items.map((i) => [i.member, i.task]))
    return {
      scenario: name,
      list: name,
      ref: listRef(name),
      created: r.created,
      members: r.scenario.members.map((m) => {
        const meta = byMember.get(m.name) ?? null
        return {member: m.name, task: m.task, depends_on: m.depends_on, item: meta ? v.view(meta) : null}
      }),
      commit: done.commit,
    }
  })
}

/** The marker of list `name` as of its tip, or scenario_not_found. */
async function requireScenario(s: Session, name: string, loaded: Loaded): Promise<ScenarioFile> {
  const marker = await markerAt(s.store, loaded)
  if (marker === null) throw new NotFoundError('scenario_not_found', `the list "${name}" is not a scenario (it has no ${SCENARIO_PATH}); \`tasks scenario list\` shows the scenarios`, {scenario: name})
  if ('error' in marker) throw new NotFoundError('scenario_not_found', `the scenario "${name}" cannot be read: ${marker.error}`, {scenario: name, error: marker.error})
  return marker.file
}

/** `tasks scenario status NAME`: each member's done/total, state and WAITING ON; the scenario's completion. */
export async function status(session: Session, args: {name: string}): Promise<ScenarioStatusResult> {
  const name = checkName(args.name)
  return session.onList(name, async (s) => {
    if (!s.store.tip) throw new NotFoundError('scenario_not_found', `there is no scenario "${name}" here (no ${listRef(name)}); \`tasks scenario list\` shows the scenarios`, {scenario: name})
    const loaded = await s.store.load()
    const file = await requireScenario(s, name, loaded)
    const st = scenarioStatus(loaded.snapshot, file, s.now())
    const v = await viewer(s, loaded.snapshot)
    return {
      scenario: name,
      list: name,
      commit: loaded.index.commit,
      members: st.members.map((m) => ({...m, short_id: loaded.snapshot.tasks.has(m.item) ? v.shortId(m.item) : m.item})),
      done: st.done,
      total: st.total,
      complete: st.complete,
    }
  })
}

/** `tasks scenario list`: every list here whose tip carries scenario.yaml, with its completion. */
export async function list(session: Session): Promise<ScenarioListResult> {
  const {lists, broken} = await markedLists(session.store, SCENARIO_MARKER)
  const out: ScenarioListResult = {scenarios: [], broken}
  for (const {list: name, ref, commit: oid, file} of lists) {
    const st = await session.onList(name, async (s) => scenarioStatus((await s.store.load()).snapshot, file, s.now()))
    out.scenarios.push({scenario: name, ref, commit: oid, members: file.members.map((m) => m.name), done: st.done, total: st.total, complete: st.complete})
  }
  out.scenarios.sort((a, b) => (a.scenario < b.scenario ? -1 : 1))
  return out
}
