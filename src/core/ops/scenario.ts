/**
 * `scenario start`: seed a scenario's list with one item per member,
 * assigned to it, the members' dependencies as dependencies between their
 * items, and the marker file scenario.yaml, as one plan (one commit). Each
 * seed is an `add --key scenario:<member>` (ops/add.ts), so its id is the
 * same on every try and in every clone. Started again with the same
 * members, tasks and dependencies it returns the scenario as it is and
 * writes nothing; with others it is a conflict, nothing written.
 */
import {ConflictError} from '../errors'
import {LiveOverlay} from '../live-overlay'
import type {Change, OpContext, Plan} from '../plan'
import {type ScenarioFile, type ScenarioMember, SCENARIO_PATH, memberOrder, scenarioDifferences, seedId, seedKey, serialiseScenario} from '../scenario'
import {type Snapshot, tablesOf} from '../snapshot'
import type {TaskMeta} from '../task'
import {addTask} from './add'

export interface StartScenarioArgs {
  /** The scenario's name: its list's. */
  name: string
  /** From scenarioMembers: sorted, checked. */
  members: ReadonlyArray<Omit<ScenarioMember, 'item'>>
  /** The scenario.yaml on the list, read before each try: absent, its content, or why it cannot be read. */
  existing: {file: ScenarioFile} | {error: string} | null
}

export interface StartScenarioResult {
  scenario: ScenarioFile
  /** The seed items, by member name order (null: a seed removed since the scenario started). */
  items: Array<{member: string; task: TaskMeta | null}>
  /** False when the scenario was there already (nothing written). */
  created: boolean
}

export function startScenario(snap: Snapshot, ctx: OpContext, args: StartScenarioArgs): Plan<StartScenarioResult> {
  const existing = args.existing
  if (existing && 'error' in existing) {
    throw new ConflictError('scenario_unreadable', `the list "${snap.list}" has a ${SCENARIO_PATH} that cannot be read (${existing.error}); see \`tasks doctor\``, {list: snap.list, error: existing.error})
  }
  if (existing) {
    const differs = scenarioDifferences(existing.file, args.members)
    if (differs.length > 0) {
      throw new ConflictError('scenario_mismatch', `scenario "${snap.list}" was started with other members or tasks: ${differs.join('; ')}. Nothing was written; start it under another name, or change its items with add/edit/deps/assign`, {
        scenario: snap.list,
        differences: differs,
      })
    }
    const items = existing.file.members.map((m) => ({member: m.name, task: snap.tasks.get(m.item)?.meta ?? null}))
    return {op: 'scenario_start', summary: snap.list, changes: [], trailers: [], result: {scenario: existing.file, items, created: false}}
  }
  if (tablesOf(snap).sortedIds().length > 0) {
    throw new ConflictError('list_in_use', `the list "${snap.list}" already holds items and is not a scenario: a scenario starts on a new (or empty) list; pick another name`, {list: snap.list})
  }
  // Each seed after those it waits for, on the list as the ones before left it.
  const live = new LiveOverlay(snap)
  const view = live.snapshot
  const changes: Change[] = []
  const trailers: Array<[string, string]> = []
  const ids = new Map<string, string>()
  const tasks = new Map<string, TaskMeta>()
  for (const m of memberOrder(args.members)) {
    const plan = addTask(view, ctx, {title: m.task, assignee: m.name, key: seedKey(m.name), dependsOn: m.depends_on.map((d) => ids.get(d)!)})
    ids.set(m.name, plan.result.task.id)
    tasks.set(m.name, plan.result.task)
    changes.push(...plan.changes)
    trailers.push(...plan.trailers)
    live.apply(plan.changes)
  }
  const file: ScenarioFile = {scenario: snap.list, members: args.members.map((m) => ({name: m.name, task: m.task, item: ids.get(m.name) ?? seedId(snap, m.name), depends_on: [...m.depends_on]}))}
  changes.push({kind: 'put-file', path: SCENARIO_PATH, content: serialiseScenario(file)})
  trailers.push(['Tasks-Scenario', snap.list])
  return {
    op: 'scenario_start',
    summary: `${snap.list} (${args.members.length} member${args.members.length === 1 ? '' : 's'})`,
    changes,
    trailers,
    result: {scenario: file, items: args.members.map((m) => ({member: m.name, task: tasks.get(m.name) ?? null})), created: true},
  }
}
