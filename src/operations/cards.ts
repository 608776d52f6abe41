/**
 * The operations that write what a card says: add, edit, assign, deps,
 * comment and rm.
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import {COMMENT_KINDS, TASK_TYPES} from '../core/task'
import {assertRemovalConfirmed} from '../core/removal'
import {operation} from './spec'
import {idOf, ifRevision, taskId, taskIds, epoch} from './common'

const body = p.text('Markdown description.', {char: 'b', file: {limit: 'body'}})
const typeHelp = `Task type: ${TASK_TYPES.join(', ')} (default task; config types may allow fewer).`
/** Issue 33: custom fields, declared once here for add and edit: `--field KEY=VALUE` on the command line, a `fields` object over MCP and in batch files. */
const fieldHelp = 'A custom field, KEY=VALUE (repeatable): KEY a lowercase name (a-z, 0-9, _; at most 64), VALUE one line (at most 4096 bytes), read by its declared type (config set field.KEY TYPE; exit 5 when it does not fit).'
const field = p.strings(fieldHelp, {only: ['cli'], helpValue: 'KEY=VALUE'})
const fields = p.json<Record<string, string | number | boolean | null>>('Custom fields: an object of lowercase names to values (text, a number or true/false, read by the declared type; null removes one).', {only: ['mcp', 'batch']})

/** Why a spec change is made: recorded in the commit (Tasks-Reason), shown by `show --revisions`; with --force, the override's reason too. */
const specReason = p.string('Why (recorded in the commit; `show --revisions` shows it). With --force: the override\'s reason.')

// Issue 33: dates and repeats on add and edit (core/dates.ts; docs/model.md, "Dates and repeats").
const dueParam = p.string('Due date: YYYY-MM-DD (due by the end of that day, UTC), a timestamp with a zone, today, tomorrow or +N[hdwmy] (+3d).')
const scheduledParam = p.string('Scheduled date: not handed out by next (nor claimable without --force) before it. Same forms as --due.')
const everyParam = p.string('Repeat every N days, weeks, months or years (1d, 1w, 1m, 1y): done creates the next instance with its dates moved on.')

export const add = operation({
  name: 'add',
  toolset: 'planning',
  summary: 'Add a task.',
  description:
    'With --key, adding again with the same key returns the same task (idempotent). Without a key, a batch or MCP create whose title an open item under the same parent already has (case and spacing aside) returns that item instead of a new one; the command line creates another but warns, naming it. --acceptance and --test add checks in the same commit: done is refused until each passed with evidence.',
  params: {
    title: p.string('one-line title (at most 500 bytes)', {positional: true}).need(),
    body,
    tags: p.strings('Tag (repeatable, or comma-separated).', {char: 't', aliases: ['tag']}),
    parent: p.id('Make this a sub-item of PARENT (nested at most max_depth levels, 1 by default).'),
    type: p.string(typeHelp),
    dependsOn: p.strings('Wait for this task (repeatable).', {char: 'd', batchRef: true}),
    blocks: p.strings('This task blocks that one (repeatable): it gets this task as a dependency, with the checks of `deps` on it (cycles, other lists, its holder\'s spec).', {batchRef: true}),
    priority: p.numberOrString('Priority 0 (most urgent) to 4.', {char: 'p'}).or('2'),
    assignee: p.string('Reserve the task for this actor.'),
    key: p.string('Idempotency key: adding again with the same key returns the same task.'),
    session: p.string('Join this coordination session (ses-… id or prefix; exit 3 when none). Default: the parent\'s session for a sub-item, else $TASKS_SESSION when it holds a session id. A task never moves between sessions. In a batch file, the field session joins it (TASKS_SESSION does not).'),
    acceptance: p.strings('An acceptance criterion (repeatable): a check that must pass, with evidence, before done.'),
    test: p.strings('A test (repeatable): a check that must pass, with evidence, before done.'),
    field,
    fields,
    due: dueParam,
    scheduled: scheduledParam,
    every: everyParam,
  },
  writes: true,
  // --blocks changes another item's dependencies: on someone else's live claim that needs --force --reason.
  override: true,
  result: 'add',
  examples: [
    '<%= config.bin %> add "Wire the claim CAS" --tags backend -p 1',
    '<%= config.bin %> add "Write the regression test" --parent tsk-k3v9',
    '<%= config.bin %> add "Publish" --depends-on tsk-k3v9 --depends-on tsk-8d2q',
    '<%= config.bin %> add "Decide the schema" --blocks tsk-k3v9',
    '<%= config.bin %> add "Parse dates" --acceptance "ISO and RFC 2822 parse" --test "npm test -- dates"',
    '<%= config.bin %> add "Train model v3" --type compute --field command="python train.py" --field estimate=3',
    '<%= config.bin %> add "Weekly report" --due 2026-12-11 --every 1w',
  ],
  batch: {
    aliases: ['create'],
    named: true,
    plan: (ops, snap, ctx, a) => {
      // Without a key, the canonical title among open items is the key (a repeated create returns the item).
      const plan = ops.addTaskWithChecks(snap, ctx, {...a, sameTitle: 'reuse'})
      return {plan, id: plan.result.task.id}
    },
  },
  // An agent's retried create (MCP) returns the open item of the same title; a person (the command line) is warned.
  // TASKS_SESSION joins the task to a session only when it holds a session id (else it is an agent-run label).
  run: (e, s, a, call) => e.cards.add(s, {...a, sameTitle: call.surface === 'mcp' ? 'reuse' : 'warn', sessionFromEnv: a.session === undefined ? s.sessionName() : undefined}),
})

export const edit = operation({
  name: 'edit',
  toolset: 'planning',
  summary: "Change a task's title, description, type, priority, tags or custom fields.",
  description:
    'With no flags on a terminal, opens $VISUAL or $EDITOR (else vi) on the title and description. The title, description and type are the spec: on an item someone else holds (a live claim) changing them needs --force --reason (exit 6 not_owner otherwise). `show ID --revisions` lists every spec change.',
  params: {
    id: taskId,
    title: p.string('New title.'),
    body: p.text('New description (replaces the old one).', {char: 'b', file: {limit: 'body'}}),
    type: p.string(typeHelp),
    priority: p.numberOrString('New priority, 0 to 4.', {char: 'p'}),
    addTags: p.strings('Add a tag (repeatable).', {char: 't', aliases: ['tag']}),
    removeTags: p.strings('Remove a tag (repeatable).', {aliases: ['untag']}),
    session: p.string('Refused (exit 4 session_fixed) unless it names the session the task already belongs to: a task never moves between sessions.', {only: ['cli', 'mcp']}),
    field,
    fields,
    unsetField: p.strings('Remove a custom field (repeatable).', {helpValue: 'KEY'}),
    reason: specReason,
    ifRevision,
    epoch,
    due: p.string('New due date (none: clear it). YYYY-MM-DD, a timestamp with a zone, today, tomorrow or +N[hdwmy].'),
    scheduled: p.string('New scheduled date (none: clear it): not handed out by next before it.'),
    every: p.string('New repeat interval, 1d, 1w, 1m, 1y … (none: stop repeating).'),
  },
  writes: true,
  override: true,
  result: 'edit',
  examples: ['<%= config.bin %> edit tsk-k3v9 --title "Wire the claim CAS" -p 1', '<%= config.bin %> edit tsk-k3v9 --body-file notes.md --remove-tags draft', '<%= config.bin %> edit tsk-k3v9 --field job_id=8812 --field host=gpu-01 --unset-field queue', '<%= config.bin %> edit tsk-k3v9    # in $EDITOR'],
  batch: {readsChecks: true, plan: (ops, snap, ctx, a) => idOf(ops.editTask(snap, ctx, a))},
  run: (e, s, a) => e.cards.edit(s, a),
})

export const assign = operation({
  name: 'assign',
  toolset: 'planning',
  summary: 'Reserve tasks for an actor (only they may claim them), or --none to clear.',
  description: 'The last argument is the assignee, as with `mv`; with --none every argument is an id (null over MCP and in batch files). Several ids are one commit, all or nothing.',
  params: {
    id: taskIds,
    assignee: p.string('actor to reserve them for (the last argument); null lifts the reservation', {positional: true, nullable: true}),
    none: p.boolean('Clear the assignee.', {only: ['cli']}),
    ifRevision,
  },
  writes: true,
  result: 'assign',
  examples: ['<%= config.bin %> assign tsk-k3v9 agent-2', '<%= config.bin %> assign tsk-k3v9 tsk-8d2q agent-2', '<%= config.bin %> assign tsk-k3v9 --none'],
  check: (a) => {
    if (a.assignee === undefined) throw new UsageError('assign needs an assignee (null lifts the reservation)', {field: 'assignee'})
  },
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.assignTask(snap, ctx, {id: a.id[0]!, assignee: a.assignee ?? null}))},
  run: (e, s, a) => e.cards.assign(s, {ids: a.id, assignee: a.assignee ?? null, ifRevision: a.ifRevision}),
})

export const deps = operation({
  name: 'deps',
  toolset: 'planning',
  summary: "Replace a task's dependencies (none given: clear them); --blocks adds the inverse edge.",
  description:
    'Missing ids, self-dependencies, cycles and other lists are rejected; duplicates fold into one edge. The dependencies are part of the spec: on an item someone else holds (a live claim) changing them needs --force --reason. --blocks X makes X depend on this task (the same checks, on X: it is X\'s spec that changes); with --blocks and no dependencies listed, the task\'s own dependencies stay as they are.',
  params: {
    id: taskId,
    dependsOn: p.strings('the tasks it waits for (an empty list clears them, unless --blocks is given)', {positional: true, batchRef: true}).need(),
    blocks: p.strings('Make that task depend on this one (repeatable): the inverse edge.', {batchRef: true}),
    reason: specReason,
    ifRevision,
    epoch,
  },
  writes: true,
  override: true,
  result: 'deps',
  examples: ['<%= config.bin %> deps tsk-pub1 tsk-api2 tsk-ui33', '<%= config.bin %> deps tsk-pub1', '<%= config.bin %> deps tsk-pub1 tsk-api2 --if-revision 3', '<%= config.bin %> deps tsk-api2 --blocks tsk-pub1'],
  batch: {plan: (ops, snap, ctx, a) => idOf(ops.setDependenciesAndBlocks(snap, ctx, {id: a.id, deps: a.dependsOn, blocks: a.blocks, reason: a.reason, epoch: a.epoch}))},
  run: (e, s, a) => e.cards.deps(s, a),
})

export const comment = operation({
  name: 'comment',
  toolset: 'core',
  summary: 'Comment on a task: a note, decision, problem, lesson or knowledge.',
  description: 'With neither TEXT nor --file on a terminal, opens $VISUAL or $EDITOR (else vi) for the text.',
  params: {
    id: taskId,
    text: p.text('the comment (or --file)', {positional: true, file: {flag: 'file', limit: 'comment'}}),
    kind: p.choice(COMMENT_KINDS, 'Kind of comment.', {char: 'k'}).or('note'),
    key: p.string('Idempotency key: a retry with the same key on the same task records nothing and returns the comment already there (the same key with another text: exit 4).'),
    ifRevision,
    epoch,
  },
  writes: true,
  result: 'comment',
  examples: ['<%= config.bin %> comment tsk-k3v9 "Chose CAS over locks" --kind decision', '<%= config.bin %> comment tsk-k3v9 "Tests pass on CI" --key run-42-ci', '<%= config.bin %> comment tsk-k3v9 --file - < notes.md'],
  check: (a) => {
    if (a.text === undefined) throw new UsageError('a comment needs its text', {field: 'text'})
  },
  batch: {
    plan: (ops, snap, ctx, a) => {
      const plan = ops.addComment(snap, ctx, {id: a.id, text: a.text!, kind: a.kind, key: a.key, epoch: a.epoch})
      return {plan, id: plan.result.comment.task}
    },
  },
  run: (e, s, a) => e.cards.comment(s, {id: a.id, text: a.text!, kind: a.kind, ifRevision: a.ifRevision, key: a.key, epoch: a.epoch}),
})

export const rm = operation({
  name: 'rm',
  toolset: 'planning',
  summary: 'Remove tasks, confirmed and with a reason (history keeps them: `restore` brings one back; `cancel` is the soft path).',
  description:
    'Without a terminal (scripts, agents, MCP, batch files) the ids must be repeated with --confirm and a --reason given, else exit 2 and nothing is removed; on a terminal it asks instead (--yes: do not ask). The reason is recorded in the commit (Tasks-Reason) and shown by `tasks log`. A task with sub-items is refused unless --with-subitems, which removes them too. Refused while another task depends on one of them: change that dependency first. Several ids are one commit, all or nothing. To retire work and keep it in the list, `cancel` it instead.',
  params: {
    id: taskIds,
    confirm: p.strings('The ids to remove, repeated (required without a terminal).', {batchRef: true, greedy: true, helpValue: 'ID'}),
    // Also the override's reason when --force acts on an item someone else holds.
    reason: p.string('Why they are removed (recorded in the commit, shown by `tasks log`; required without a terminal).', {char: 'r'}),
    withSubitems: p.boolean('Remove their sub-items too (a task with sub-items is refused without it).'),
    yes: p.boolean('Do not ask for confirmation on a terminal (--reason is then needed).', {char: 'y', only: ['cli']}),
  },
  writes: true,
  override: true,
  result: 'rm',
  examples: [
    '<%= config.bin %> rm tsk-k3v9 --confirm tsk-k3v9 --reason "duplicate of tsk-8d2q"',
    '<%= config.bin %> rm tsk-k3v9 tsk-8d2q --confirm tsk-k3v9 tsk-8d2q -r "created by mistake" --with-subitems',
    '<%= config.bin %> rm tsk-k3v9    # on a terminal: asks',
  ],
  check: (a) => assertRemovalConfirmed(a.id, a.confirm, a.reason),
  batch: {
    plan: (ops, snap, ctx, a) => {
      const plan = ops.removeTask(snap, ctx, {id: a.id[0]!, reason: a.reason, withSubitems: a.withSubitems})
      return {plan, id: plan.result.removed[0]?.id ?? null}
    },
  },
  run: (e, s, a) => e.cards.remove(s, {ids: a.id, reason: a.reason!, withSubitems: a.withSubitems}),
})
