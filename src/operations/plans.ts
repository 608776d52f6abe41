/**
 * The operations of plans on a branch (`tasks plan …`; MCP tools plan_start,
 * plan_list, plan_rm, plan_diff, plan_merge): docs/history.md, "Plans". Not
 * batch operations: a plan is a list of its own, and a batch works on one
 * list (a batch on the plan is `tasks --list NAME batch`).
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import {operation} from './spec'

const planName = p.string('the plan: its list is refs/tasks/NAME', {positional: true}).need()

export const planStart = operation({
  name: 'plan start',
  toolset: 'planning',
  summary: 'Start a plan: fork a list into refs/tasks/NAME (its tip, with the marker plan.yaml recording the fork point), to draft on with --list NAME and land with `plan merge`.',
  description:
    'The plan is a list like any other: `tasks --list NAME add/edit/deps/batch/import/board` work on it and leave the live list alone. Its first commit, on the source\'s tip, writes plan.yaml (the plan, the list it was forked from, the fork point, who and when), so a plan shared through the remote carries it. A name already taken is refused (exit 4 plan_exists), nothing written. Online, it is published like any change.',
  params: {
    name: planName,
    from: p.string('The list to fork (default: the --list in effect, main).'),
  },
  writes: true,
  result: 'plan-start',
  examples: ['<%= config.bin %> plan start q3-roadmap', '<%= config.bin %> plan start q3-roadmap --from main --json', '<%= config.bin %> --list q3-roadmap add "Migrate the billing API"'],
  run: (e, s, a) => e.plans.start(s, {name: a.name, from: a.from}),
})

export const planList = operation({
  name: 'plan list',
  toolset: 'planning',
  summary: 'List the plans here: each with its target, base, commits ahead/behind the target and cards changed.',
  params: {},
  writes: false,
  result: 'plan-list',
  examples: ['<%= config.bin %> plan list', '<%= config.bin %> plan list --json'],
  run: (e, s) => e.plans.list(s),
})

export const planRm = operation({
  name: 'plan rm',
  toolset: 'planning',
  summary: "Remove a plan's ref here (only a plan: a list made by `plan start`), confirmed.",
  description:
    "Without a terminal the name must be repeated with --confirm (exit 2 confirm_required, nothing removed); on a terminal it asks instead (--yes: do not ask). A list that is not a plan is refused (exit 4 not_a_plan). A merged plan's commits stay in its target's history. The remote's copy is left (the guard refuses deleting a list's ref).",
  params: {
    name: planName,
    confirm: p.string('The plan\'s name, repeated (required without a terminal).', {helpValue: 'NAME'}),
    yes: p.boolean('Do not ask for confirmation on a terminal.', {char: 'y', only: ['cli']}),
  },
  writes: true,
  result: 'plan-rm',
  examples: ['<%= config.bin %> plan rm q3-roadmap --confirm q3-roadmap'],
  check: (a) => {
    if (a.confirm === undefined) throw new UsageError(`plan rm without a terminal needs the name repeated: \`tasks plan rm ${a.name} --confirm ${a.name}\`; nothing was removed`, {plan: a.name}, 'confirm_required')
    if (a.confirm !== a.name) throw new UsageError(`--confirm (${a.confirm}) does not repeat the plan to remove (${a.name}); nothing was removed`, {plan: a.name, confirm: a.confirm}, 'confirm_mismatch')
  },
  run: (e, s, a) => e.plans.rm(s, {name: a.name}),
})

export const planMerge = operation({
  name: 'plan merge',
  toolset: 'planning',
  summary: 'Land a plan on its target list as one change: a three-way, field-by-field merge (the fork point, the target, the plan), the reconciler after it, nothing typed lost, claims on the target untouched.',
  description:
    "The target is the list the plan was forked from, or --into. The merge is sync's engine: each field merged on its own (a text both sides changed: the target's kept, the plan's filed as a comment); then the reconciler. A plan never changes a claim: the target's owner, epoch and lease always stand; a plan's status move of a card lands only when nobody holds the card and the move holds no claim (a cancel, a deferral), else it is listed in kept_claims. plan.yaml never lands. One commit with two parents (the target's tip, the plan's tip) by one compare-and-swap; online, pushed with a lease like any change (the guard replays it). The plan's ref is then removed here (--keep keeps it).",
  params: {
    name: planName,
    into: p.string('The list to land the plan on (default: the list it was forked from).', {helpValue: 'LIST'}),
    keep: p.boolean('Keep the plan\'s ref after the merge (default: removed here; its commits are in the target\'s history).'),
  },
  writes: true,
  result: 'plan-merge',
  examples: ['<%= config.bin %> plan merge q3-roadmap', '<%= config.bin %> plan merge q3-roadmap --into main --keep --json'],
  run: (e, s, a) => e.plans.merge(s, {name: a.name, into: a.into, keep: a.keep}),
})

export const planDiff = operation({
  name: 'plan diff',
  toolset: 'planning',
  summary: 'What merging a plan would change on its target, as `tasks diff` shows it: cards added, removed and changed field by field.',
  description:
    "The merge `plan merge` would make now is computed (objects only: no ref moves) on the target as this clone has it, and diffed from the target's tip; notes, repairs and kept_claims say what the merge would decide (a text kept as a comment, a claim move of the plan not applied). Nothing is written.",
  params: {
    name: planName,
    into: p.string('The list the plan would land on (default: the list it was forked from).', {helpValue: 'LIST'}),
  },
  writes: false,
  result: 'plan-diff',
  compact: (e, r) => e.listDiffRender.compactDiff(r.diff),
  examples: ['<%= config.bin %> plan diff q3-roadmap', '<%= config.bin %> plan diff q3-roadmap --json'],
  run: (e, s, a) => e.plans.diff(s, {name: a.name, into: a.into}),
})
