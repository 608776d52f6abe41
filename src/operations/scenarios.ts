/**
 * The operations of scenarios (`tasks scenario …`; MCP tools scenario_start,
 * scenario_status, scenario_list): docs/model.md, "Scenarios". Not batch
 * operations: a scenario is a list of its own, and a batch works on one list.
 */
import {p} from '../core/params'
import {operation} from './spec'

const scenarioName = p.string('the scenario: its list is refs/tasks/NAME', {positional: true}).need()

export const scenarioStart = operation({
  name: 'scenario start',
  toolset: 'coordination',
  summary: 'Start a scenario: a new list NAME with one item per member, assigned to it, and the members\' dependencies, in one commit.',
  description:
    "Each --member NAME=TASK gets one item titled TASK, assigned to NAME (reserved for it: the member claims it with `tasks --list SCENARIO next` or `claim`); each --depends MEMBER:UPSTREAM makes MEMBER's item wait for UPSTREAM's (UPSTREAM may be a comma-separated list). The list is created as `init --list NAME` creates one, and the marker scenario.yaml is written with the items. Safe to retry: the same command again returns the scenario as it is and writes nothing (each item's id comes from the key scenario:<member>); other members, tasks or dependencies under the same name are refused (exit 4 scenario_mismatch), nothing written. Online, it publishes through the remote like any change.",
  params: {
    name: scenarioName,
    member: p.strings('A member and the task it is given: NAME=TASK. Repeatable; at least one. A member name holds no = : or ,.', {char: 'm'}).need(),
    depends: p.strings("MEMBER:UPSTREAM: MEMBER's item waits for UPSTREAM's (UPSTREAM,OTHER for several). Repeatable.", {char: 'd'}),
  },
  writes: true,
  result: 'scenario-start',
  examples: [
    '<%= config.bin %> scenario start strath --member api="Build the API" --member ui="Build the UI" --member docs="Write the docs" --depends ui:api --depends docs:api,ui',
    '<%= config.bin %> scenario start strath --member api="Build the API" --json',
  ],
  run: (e, s, a) => e.scenarios.start(s, {name: a.name, member: a.member, depends: a.depends, cli: process.argv[1] ?? 'tasks'}),
})

export const scenarioStatus = operation({
  name: 'scenario status',
  toolset: 'coordination',
  summary: "Show a scenario's progress: each member's done/total, state and WAITING ON, and whether the scenario is complete.",
  description:
    "Completion is derived, never declared: a member's items are its seed item, the seed's sub-items, and any other item of the list assigned to it (cancelled ones left out); a member is complete when every one is done, and the scenario when every tracked member is. WAITING ON names the members whose unfinished items the member's seed waits for.",
  params: {name: scenarioName},
  writes: false,
  result: 'scenario-status',
  examples: ['<%= config.bin %> scenario status strath', '<%= config.bin %> scenario status strath --json'],
  run: (e, s, a) => e.scenarios.status(s, {name: a.name}),
})

export const scenarioList = operation({
  name: 'scenario list',
  toolset: 'coordination',
  summary: 'List the scenarios: the lists here that carry a scenario.yaml, with their members and completion.',
  params: {},
  writes: false,
  result: 'scenario-list',
  examples: ['<%= config.bin %> scenario list', '<%= config.bin %> scenario list --json'],
  run: (e, s) => e.scenarios.list(s),
})
