/**
 * The operations of roles and notification: who a card concerns (collab,
 * watch, unwatch, notify), the actor registry (actor list, add, alias), the
 * inbox those roles fill (inbox, inbox ack), and the sweep over work that
 * stopped moving (stale, remind). None of them is a batch operation.
 */
import {p} from '../core/params'
import {UsageError} from '../core/errors'
import {operation} from './spec'
import {taskId} from './common'

export const inbox = operation({
  name: 'inbox',
  toolset: 'core',
  summary: 'Your inbox: records of changes that concern you, unseen ones, newest last.',
  description:
    "Every change writes, in its own commit, a record for each person it concerns (never the one who made it): owner, assignee, creator, collaborators and subscribers, as the list's notify rules, your preferences and the card say. --as A reads A's inbox (aliases fold into one). `tasks inbox ack ID…|--all` marks records seen.",
  params: {all: p.boolean('Show seen records too.')},
  writes: false,
  result: 'inbox',
  compact: (e, r) => e.compact.compactInbox(r),
  examples: ['<%= config.bin %> inbox', '<%= config.bin %> inbox --json --as agent-7', '<%= config.bin %> inbox --all', '<%= config.bin %> inbox --format compact'],
  run: (e, s, a) => e.inbox.inbox(s, {all: a.all}),
})

export const inboxAck = operation({
  name: 'inbox ack',
  toolset: 'coordination',
  summary: 'Mark inbox records seen (by id, its last 8 characters, or --all).',
  description: 'Seen is an empty marker file beside each record, so acks made on several clones merge without loss.',
  params: {
    ids: p.strings('record ids (one or more): a record id, its 8-hex suffix or a unique prefix', {positional: true}),
    all: p.boolean('Mark every unseen record seen.'),
  },
  writes: true,
  result: 'inbox-ack',
  examples: ['<%= config.bin %> inbox ack 1a2b3c4d', '<%= config.bin %> inbox ack --all --json'],
  // "ids or all, not both" is the app's rule (the MCP server's poll_inbox acks through it too).
  run: (e, s, a) => e.inbox.inboxAck(s, {ids: a.ids, all: a.all}),
})

const collaborator = p.string('the collaborator', {positional: true}).need()

export const collabAdd = operation({
  name: 'collab add',
  toolset: 'coordination',
  summary: "Add a collaborator to a task (they get its inbox records as the list's rules say).",
  params: {id: taskId, actor: collaborator},
  writes: true,
  result: 'role-change',
  examples: ['<%= config.bin %> collab add tsk-k3v9 bob@example.com'],
  run: (e, s, a) => e.inbox.collab(s, {id: a.id, actor: a.actor}),
})

export const collabRm = operation({
  name: 'collab rm',
  toolset: 'coordination',
  summary: 'Remove a collaborator from a task.',
  params: {id: taskId, actor: collaborator},
  writes: true,
  result: 'role-change',
  examples: ['<%= config.bin %> collab rm tsk-k3v9 bob@example.com'],
  run: (e, s, a) => e.inbox.collab(s, {id: a.id, actor: a.actor, remove: true}),
})

export const watch = operation({
  name: 'watch',
  toolset: 'coordination',
  summary: 'Subscribe to a task: its changes reach your inbox (tasks inbox).',
  description:
    "Adds you to the card's subscribers and lifts a mute of yours on it. Which events reach subscribers is the list's notify rules (tasks config set notify.EVENT ROLES) and the card's own (tasks notify).",
  params: {id: taskId},
  writes: true,
  result: 'role-change',
  examples: ['<%= config.bin %> watch tsk-k3v9', '<%= config.bin %> watch tsk-k3v9 --as bob --json'],
  run: (e, s, a) => e.inbox.watch(s, {id: a.id, watch: true}),
})

export const unwatch = operation({
  name: 'unwatch',
  toolset: 'coordination',
  summary: 'Unsubscribe from a task; with --mute, get no inbox record about it whatever your role.',
  params: {id: taskId, mute: p.boolean('Also mute the card for you (owner, assignee, creator or collaborator included).')},
  writes: true,
  result: 'role-change',
  examples: ['<%= config.bin %> unwatch tsk-k3v9', '<%= config.bin %> unwatch tsk-k3v9 --mute'],
  run: (e, s, a) => e.inbox.watch(s, {id: a.id, watch: false, mute: a.mute}),
})

export const notify = operation({
  name: 'notify',
  toolset: 'coordination',
  summary: "Set who a card's changes notify, replacing the list's rules for it.",
  description:
    "Each RULE is ROLE (every event) or EVENT:ROLE (one event: comment, done, claim, … any op name), ROLE one of owner, assignee, creator, collaborators, subscribers. The rules replace the list's (config.yaml notify) for this card; people still mute or watch events for themselves (tasks actor add --mute/--watch), and `tasks unwatch ID --mute` silences one person on the card. --clear goes back to the list's rules.",
  params: {
    id: taskId,
    rules: p.strings('ROLE or EVENT:ROLE, several allowed', {positional: true}),
    clear: p.boolean("Remove the card's rules: the list's apply again."),
  },
  writes: true,
  result: 'role-change',
  examples: ['<%= config.bin %> notify tsk-k3v9 comment:owner done:creator', '<%= config.bin %> notify tsk-k3v9 --clear'],
  check: (a) => {
    const rules = a.rules ?? []
    if (a.clear && rules.length > 0) throw new UsageError('pass RULEs or --clear, not both')
    if (!a.clear && rules.length === 0) throw new UsageError('tasks notify needs RULEs (ROLE or EVENT:ROLE), or --clear')
  },
  // No rules (with clear) empties the card's own: the list's apply again.
  run: (e, s, a) => e.inbox.notify(s, {id: a.id, rules: a.rules ?? []}),
})

export const actorList = operation({
  name: 'actor list',
  toolset: 'coordination',
  summary: "The list's actors: aliases, notification preferences and when each was last seen.",
  params: {},
  writes: false,
  result: 'actor-list',
  examples: ['<%= config.bin %> actor list', '<%= config.bin %> actor list --json'],
  run: (e, s) => e.inbox.actorList(s),
})

const events = (help: string) => p.strings(help, {helpValue: 'EVENT', greedy: true})

export const actorAdd = operation({
  name: 'actor add',
  toolset: 'coordination',
  summary: 'Register an actor, or change their notification preferences and aliases.',
  description:
    "An EVENT is an op name (comment, done, claim, assign, … or * for all). --mute EVENT: no inbox record for that event, whatever the role; --watch EVENT: a record for that event on every card where the actor holds any role, whatever the list's rules. --alias NAME makes NAME another name of the actor (tasks actor alias). Running it again updates the entry.",
  params: {
    id: p.string('the actor id', {positional: true}).need(),
    aliases: p.strings('Another name of this actor (repeatable).', {aliases: ['alias'], greedy: true}),
    mute: events('Get no inbox record for EVENT (repeatable, or comma list).'),
    unmute: events('Lift a --mute.'),
    watch: events('Get a record for EVENT on every card you hold a role on (repeatable).'),
    unwatch: events('Lift a --watch.'),
  },
  writes: true,
  result: 'actor-change',
  examples: ['<%= config.bin %> actor add alice --alias alice@example.com --mute heartbeat', '<%= config.bin %> actor add bob --watch claim'],
  run: (e, s, a) => e.inbox.actorAdd(s, a),
})

export const actorAlias = operation({
  name: 'actor alias',
  toolset: 'coordination',
  summary: 'Make ALIAS another name of actor ID: one recipient, one inbox, one last_seen.',
  description: "Records for ALIAS then go to ID's inbox and ID's preferences apply; `tasks inbox --as ALIAS` reads ID's inbox. --remove makes ALIAS a name of its own again.",
  params: {
    id: p.string('the actor', {positional: true}).need(),
    alias: p.string('another name of the actor (an email, a session name)', {positional: true}).need(),
    remove: p.boolean('Remove the alias.'),
  },
  writes: true,
  result: 'actor-change',
  examples: ['<%= config.bin %> actor alias alice alice@example.com', '<%= config.bin %> actor alias alice sess-42 --remove'],
  run: (e, s, a) => e.inbox.actorAlias(s, a),
})

const olderThan = p.duration('Idle for at least this long: 90m, 2h, 1d (default: stale_after_seconds in config.yaml, 2h).')

export const stale = operation({
  name: 'stale',
  toolset: 'coordination',
  summary: 'Work that is not moving: in-progress items without a change, todo items nobody picked up, by owner.',
  description: 'Blocked items (waiting on what their note names) and todo items waiting on unfinished dependencies are left out. A todo item is grouped under its assignee, else under nobody.',
  params: {olderThan},
  writes: false,
  result: 'stale',
  examples: ['<%= config.bin %> stale', '<%= config.bin %> stale --older-than 1d --json'],
  run: (e, s, a) => e.inbox.stale(s, a),
})

export const remind = operation({
  name: 'remind',
  toolset: 'coordination',
  summary: 'Send each owner of stale work one digest, and escalate cards whose owner is gone to their creator.',
  description:
    'At most one digest per owner per remind_every_seconds (config.yaml, 1 day); a card whose owner has not been seen for escalate_after_seconds (1 day) is escalated to its creator once per streak. What was sent is latched on the ref (reminders/), so clones that sync agree. One pass by default (--once); --every DURATION runs a pass that often until stopped (SIGTERM, Ctrl-C), one daemon per list and repository (a second exits 4 already_running); --install-unit prints a systemd user unit that runs it.',
  params: {
    olderThan,
    every: p.duration('Run until stopped, a pass every DURATION (30s, 5m, 1h): each pass is one `tasks remind`, printed as it ends (--json: one line a pass). One daemon per list here.', {only: ['cli'], max: 7 * 86400}),
    once: p.boolean('One pass, then exit (the default without --every).', {only: ['cli'], exclusive: ['every']}),
    installUnit: p.boolean('Print a systemd user unit that runs `tasks remind --every` (default 10m) for this repository and list, as you; nothing is written.', {only: ['cli'], exclusive: ['once']}),
  },
  check: (a) => {
    if (a.every !== undefined && a.every < 1) throw new UsageError('--every must be at least 1s', {flag: 'every'})
  },
  writes: true,
  result: 'remind',
  examples: ['<%= config.bin %> remind', '<%= config.bin %> remind --older-than 4h --json', '<%= config.bin %> remind --every 5m', '<%= config.bin %> remind --install-unit'],
  run: (e, s, a) => e.inbox.remindOwners(s, a),
})
