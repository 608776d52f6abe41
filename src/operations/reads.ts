/**
 * The reads of the list: list and show.
 */
import {p} from '../core/params'
import {operation} from './spec'
import {at, taskId} from './common'

/** The rows of an MCP `list` or `search` page when the call does not ask for a limit. */
export const MCP_PAGE = 50

export const list = operation({
  name: 'list',
  toolset: 'core',
  summary: 'List tasks (open ones by default), sub-items under their parents.',
  description:
    'STATUS is the state: ready, waiting, reserved, todo, in_progress, stale, blocked, deferred, done, cancelled, failed. WHY BLOCKED shows what waiting items wait on and the note of blocked ones. Every list-valued flag is repeatable and comma-separated. Filters narrow the default open view; --all or --status widens it.',
  params: {
    status: p.strings('Only these states (ready, waiting, reserved, todo, in_progress, stale, blocked, deferred, done, cancelled, failed; open, all).', {char: 's'}),
    tags: p.strings('Only items with this tag (all must match; #bug and bug are the same).', {char: 't', aliases: ['tag']}),
    owner: p.string('Only items claimed by this actor (@me: you).'),
    assignee: p.string('Only items reserved for this actor (@me: you).'),
    blockedOn: p.string('Only blocked items parked on this actor (`block --on`; @me: you): their decision queue.'),
    parent: p.string('Only the sub-items of this task.'),
    session: p.string('Only the tasks of this coordination session (ses-… id or prefix).'),
    priority: p.strings('Only these priorities (0-4).', {char: 'p'}),
    type: p.strings('Only these task types (task, epic, feature, milestone, bug, chore, compute, goal).'),
    field: p.strings('Only items whose custom field KEY holds VALUE, read by its declared type (repeatable: all must match).', {helpValue: 'KEY=VALUE'}),
    ready: p.boolean('Only items you could claim now (stale claims included).'),
    all: p.boolean('Include done, cancelled and failed items.', {char: 'a'}),
    sort: p.string('Order by priority, created, updated, id, title or state (- in front to reverse; default: state, then priority, then age).'),
    limit: p.integer('At most N rows (default and cap: list_limit, 2000; over MCP 50 by default); 0: every row (over MCP: list_limit). next_cursor continues.', {char: 'n', min: 0}),
    offset: p.integer('Skip the first N rows (with --limit: the next page).', {min: 0}),
    overdue: p.boolean('Only open items past their due date (a day is due by its end, UTC).'),
    dueBefore: p.string('Only items due before this date: YYYY-MM-DD, a timestamp with a zone, today, tomorrow or +N[hdwmy].'),
    cursor: p.string('Continue after a previous page: its next_cursor. Rows added or removed meanwhile never make a page repeat or skip one.', {aliases: ['after']}),
    at,
  },
  writes: false,
  result: 'list',
  compact: (e, r) => e.compact.compactList(r),
  examples: [
    '<%= config.bin %> list',
    '<%= config.bin %> list --ready --json',
    '<%= config.bin %> list --status blocked,stale --tag backend',
    '<%= config.bin %> list --owner @me --all',
    '<%= config.bin %> list --blocked-on @me',
    '<%= config.bin %> list --type epic,milestone --all',
    '<%= config.bin %> list --type compute --field host=gpu-01',
    '<%= config.bin %> list --overdue',
    '<%= config.bin %> list --due-before +7d --json',
    '<%= config.bin %> list --json --limit 50 --offset 50',
    '<%= config.bin %> list --json --limit 50 --cursor CURSOR',
    '<%= config.bin %> list --all --json --limit 0    # every row, past list_limit',
    '<%= config.bin %> list --at 1d              # the list as it was a day ago',
  ],
  // JSON is streamed by the command line from a lazy page (views built a batch at a time); text and compact need it whole.
  // The command line's --limit 0 is every row; an MCP call gets a small page unless it asks, and at most list_limit.
  run: (e, s, {cursor, at: when, ...a}, call) =>
    e.timeTravel.readAt(s, when, (s) => e.listing.list(s, {...a, after: cursor, lazy: call.surface === 'cli' && call.output === 'json', unbounded: call.surface === 'cli', defaultLimit: call.surface === 'mcp' ? MCP_PAGE : undefined})),
})

export const show = operation({
  name: 'show',
  toolset: 'core',
  summary: 'Show one task: fields, description, comments, dependencies, dependents and sub-items.',
  description: 'The newest checkpoint comes first; checks say which stand in the way of done.',
  params: {
    id: taskId,
    history: p.boolean("Also show who did what when to this card, from the ref's history (claims, merges, repairs, linked commits)."),
    revisions: p.boolean('Also list every spec revision (title, description, type, dependencies, checks added or superseded): what changed, before and after, who, when, why, which commit.'),
    at,
  },
  writes: false,
  result: 'show',
  compact: (e, r) => e.compact.compactShow(r),
  examples: ['<%= config.bin %> show tsk-k3v9', '<%= config.bin %> show k3v9 --format compact', '<%= config.bin %> show tsk-k3v9 --history --json', '<%= config.bin %> show tsk-k3v9 --revisions', '<%= config.bin %> show tsk-k3v9 --at 2026-11-30'],
  // With --at, the card as it was then; its history and revisions up to that commit.
  run: (e, s, {at: when, ...a}) =>
    e.timeTravel.readAt(s, when, async (s) => {
      const shown = await e.listing.show(s, a)
      // The same events as `tasks log ID`: one source for a card's history.
      const history = a.history ? {history: (await e.history.log(s, {id: shown.task.id})).events} : {}
      // Spec revisions, derived from the same commits (never stored twice).
      const revisions = a.revisions ? {revisions: (await e.history.revisions(s, {id: shown.task.id})).revisions} : {}
      return {...shown, ...history, ...revisions}
    }),
})
