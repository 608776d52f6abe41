// Start the git processes a command talks to before the bundles load.
// Starting a process from node costs more the larger node already is (the
// fork copies its page tables): ~2 ms here, at the very start, against
// 3-8 ms once the bundles and the task index are in memory. git's own
// start-up (its config, the repository) then runs while this process
// loads its code, instead of while the command waits for it.
// - `git cat-file --batch`, for the commands that read objects from git;
// - `git update-ref --stdin`, for the commands that usually change it: the
//   compare-and-swap is then one transaction written to it (used only where
//   git keeps no reflog for the list's ref, see src/refstore/early-git.ts).
// Nothing is sent to them until the engine adopts them (the same working
// directory and environment it would have started them with); one that is
// not adopted sees its input end when this process exits, and exits too.
// TASKS_NO_EARLY_GIT=1 turns this off.
'use strict'

// Commands that always read objects from git (a card's text, the trees a change edits). `list` and
// `stale` answer from the index cache alone when it is current, so they start no process early.
const READS = new Set(['show', 'claim', 'next', 'add', 'done', 'edit', 'comment', 'release', 'heartbeat', 'start', 'assign', 'block', 'cancel', 'reopen', 'flag', 'unflag', 'deps'])
const WRITES = new Set(['claim', 'next', 'add', 'done', 'edit', 'comment', 'release', 'heartbeat', 'start', 'assign', 'block', 'cancel', 'reopen', 'flag', 'unflag', 'deps'])
/** The hot commands: the above, and the reads that end at once when done too (bin/run.js). */
const HOT = new Set([...READS, 'list', 'stale', 'search'])

/** The command word: the first argument that is not a flag (global flags with values are not guessed at). */
function commandOf(argv) {
  for (const a of argv) {
    if (a === '--') return null
    if (!a.startsWith('-')) return a
  }
  return null
}

function start(args, env, stderr) {
  try {
    const {spawn} = require('node:child_process')
    const proc = spawn('git', args, {cwd: process.cwd(), env, stdio: ['pipe', 'pipe', stderr]})
    const early = {proc, failed: false}
    proc.on('error', () => {
      early.failed = true
    })
    proc.stdin.on('error', () => undefined)
    // Not adopted, it must not keep this process alive.
    proc.unref()
    for (const s of [proc.stdin, proc.stdout, proc.stderr]) s?.unref?.()
    return early
  } catch {
    return null
  }
}

/** Whether `argv` runs one of the hot commands (not their help): bin/run.js ends them at once when done. */
function isHot(argv) {
  const command = commandOf(argv)
  return command !== null && HOT.has(command) && !argv.includes('--help') && !argv.includes('-h')
}

function startEarlyGit(argv) {
  const command = commandOf(argv)
  if (process.env.TASKS_NO_EARLY_GIT || !isHot(argv) || !READS.has(command)) return
  globalThis[Symbol.for('git-tasks.early-git')] = {
    cwd: process.cwd(),
    // The environments the engine starts them with (object-reader.ts, git-process.ts).
    catFile: start(['cat-file', '--batch'], process.env, 'ignore'),
    updateRef: WRITES.has(command) ? start(['update-ref', '--stdin'], {...process.env, GIT_TERMINAL_PROMPT: '0'}, 'pipe') : null,
  }
}

module.exports = {startEarlyGit, isHot}
