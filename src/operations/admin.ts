/**
 * The operations that look after the list itself: init, sync, doctor,
 * lists, the remote, and the shared settings (config).
 */
import {p} from '../core/params'
import {operation} from './spec'

/** The path the hooks and the merge driver run this CLI by. */
const cliPath = (): string => process.argv[1] ?? 'tasks'

export const init = operation({
  name: 'init',
  toolset: 'admin',
  summary: 'Create the task list (refs/tasks/<list>) in this repository.',
  description:
    'The root commit is deterministic: two clones that initialise apart get the same commit, so their histories join. Running it again is harmless. Without --remote, a list this repository lacks is looked for on its remotes: when exactly one has it, init adopts it as --remote would (not with --offline). With --remote, the remote is recorded (git config tasks.remote) and the list is synced with it: a list the remote already has is adopted. Also registers the field-level merge driver for people who merge the tasks ref with plain git.',
  params: {remote: p.string('Share the list through this git remote (e.g. origin).')},
  writes: true,
  result: 'init',
  examples: ['<%= config.bin %> init', '<%= config.bin %> init --offline', '<%= config.bin %> init --remote origin', '<%= config.bin %> init --list release-2'],
  run: (e, s, a) => e.admin.initList(s, {remote: a.remote, cli: cliPath()}),
})

export const sync = operation({
  name: 'sync',
  toolset: 'admin',
  summary: 'Merge the local list with the remote one and publish the result.',
  description:
    'Fetches the remote list, fast-forwards or merges field by field (a real merge commit with both parents), repairs what the merge broke (cycles, dangling edges, …), and pushes with a lease, retrying when someone else pushed first. Prints what merged, what conflicted and how it was resolved.',
  params: {},
  writes: true,
  result: 'sync',
  examples: ['<%= config.bin %> sync', '<%= config.bin %> sync --json'],
  run: (e, s) => e.admin.sync(s),
})

export const doctor = operation({
  name: 'doctor',
  toolset: 'admin',
  summary: "Check the list's invariants (cycles, dangling edges, nesting, done-before-dependencies, done items that break done's rules) and stale ref locks; --fix repairs.",
  description:
    'The same checks and repairs the reconciler runs after every merge. Unreadable files are reported by path. An item done before its dependencies is reported but not repaired (ops reach that state: --force, or a dependency reopened later). A done item that is flagged, has an active check not passed with evidence, or has a sub-item neither done nor cancelled (states two clones\' edits can merge into) is reopened by --fix, the reason recorded on the card as a comment and in the commit (Tasks-Repair). Ref lock files left by killed git processes on the task refs, their tracking refs and packed-refs are reported; --fix removes those older than 10 minutes. Exits 0 when healthy or repaired, 5 when problems remain (over MCP: problems are in the result, not a tool error).',
  params: {fix: p.boolean('Repair what is found, in one commit, recording why on each card.')},
  writes: true,
  result: 'doctor',
  examples: ['<%= config.bin %> doctor', '<%= config.bin %> doctor --fix --json'],
  run: (e, s, a) => e.admin.doctor(s, {fix: Boolean(a.fix), cli: cliPath()}),
})

export const lists = operation({
  name: 'lists',
  toolset: 'admin',
  summary: 'Show the task lists: refs/tasks/* here, and those only the remote has.',
  description:
    "TASKS is the number of tasks (blank for a list never read in this clone: run `tasks --list NAME list` once). With a remote, its column compares each list with the remote's as last fetched; a list only the remote has is adopted with `tasks init --remote NAME --list LIST`.",
  params: {},
  writes: false,
  result: 'lists',
  examples: ['<%= config.bin %> lists', '<%= config.bin %> lists --json'],
  run: (e, s) => e.sharing.lists(s),
})

export const remote = operation({
  name: 'remote',
  toolset: 'admin',
  summary: 'Show the remote the lists are shared through, and where this list stands with it.',
  description:
    "No network: compares the local list with the remote's as this clone last fetched it (refs/tasks-remote/<remote>/<list>), and says how many commits are not published or not here yet. `tasks sync` fetches and settles both.",
  params: {},
  writes: false,
  result: 'remote-status',
  examples: ['<%= config.bin %> remote', '<%= config.bin %> remote --json', '<%= config.bin %> remote set origin'],
  run: (e, s) => e.sharing.remoteStatus(s),
})

export const remoteSet = operation({
  name: 'remote set',
  toolset: 'admin',
  summary: 'Share the task lists through this git remote (git config tasks.remote).',
  description: 'Mutations then fetch, run on the remote list and push with a lease (online mode); --offline or TASKS_OFFLINE=1 commits locally only. remote_not_found (exit 3) for a remote git does not know.',
  params: {name: p.string('a git remote, e.g. origin', {positional: true}).need()},
  writes: true,
  result: 'remote',
  examples: ['<%= config.bin %> remote set origin'],
  run: (e, s, a) => e.admin.setRemote(s, {name: a.name}),
})

export const remoteUnset = operation({
  name: 'remote unset',
  toolset: 'admin',
  summary: 'Stop sharing through a remote: every mutation commits locally only.',
  params: {},
  writes: true,
  result: 'remote',
  examples: ['<%= config.bin %> remote unset'],
  run: (e, s) => e.admin.setRemote(s, {name: null}),
})

const key = p.string('the setting', {positional: true}).need()

export const configList = operation({
  name: 'config list',
  toolset: 'admin',
  summary: "The list's shared settings in effect, defaults marked.",
  params: {},
  writes: false,
  result: 'config-list',
  examples: ['<%= config.bin %> config list', '<%= config.bin %> config list --list release-2 --json'],
  run: (e, s) => e.config.configList(s),
})

export const configGet = operation({
  name: 'config get',
  toolset: 'admin',
  summary: "Print one of the list's shared settings (config.yaml on the ref).",
  description:
    'Keys: lease_seconds, clock_skew_seconds, max_title_bytes, max_body_bytes, max_comment_bytes, admins, retention_seconds, stale_after_seconds, notify.EVENT, … (config list lists them). The value in effect; the JSON says whether it is the default.',
  params: {key},
  writes: false,
  result: 'config-get',
  examples: ['<%= config.bin %> config get lease_seconds', '<%= config.bin %> config get admins --json'],
  run: (e, s, a) => e.config.configGet(s, a),
})

export const configSet = operation({
  name: 'config set',
  toolset: 'admin',
  summary: "Change one of the list's shared settings, as a commit on the ref (published like any change).",
  description:
    'lease_seconds, clock_skew_seconds and retention_seconds take durations (90s, 30m, 1h, 2d; a plain number is seconds); max_*_bytes take sizes (bytes, or 64k, 1m); admins and allowed_paths take a comma list, or --add/--remove; require_signed and require_epoch take true or false; max_claims_per_actor a whole number (0: no limit); allowed_signers a path on the server; allowed_paths path patterns (junk/**, docs/*.md) and max_file_bytes a size (both for the guard, docs/verify.md); field.KEY declares the type of a custom field (string, integer, number, boolean, date, enum(a|b)), checked on every write. Values outside the bounds the reader enforces are refused (exit 5). When admins are listed, only they may change settings (exit 6).',
  params: {
    key,
    value: p.string('the new value', {positional: true}),
    add: p.string('List settings (admins, allowed_paths): add these comma-separated items.'),
    remove: p.string('List settings (admins, allowed_paths): remove these comma-separated items.'),
  },
  writes: true,
  result: 'config-change',
  examples: ['<%= config.bin %> config set lease_seconds 2h', '<%= config.bin %> config set admins alice,bob', '<%= config.bin %> config set admins --add carol', '<%= config.bin %> config set require_signed true', '<%= config.bin %> config set field.estimate integer'],
  run: (e, s, a) => e.config.configSet(s, a),
})

export const configUnset = operation({
  name: 'config unset',
  toolset: 'admin',
  summary: 'Put one of the shared settings back to its default, as a commit on the ref.',
  params: {key},
  writes: true,
  result: 'config-change',
  examples: ['<%= config.bin %> config unset lease_seconds'],
  run: (e, s, a) => e.config.configSet(s, {key: a.key, unset: true}),
})
