// Shared start of bin/tasks and bin/git-tasks. All code is in the bundles
// built by `npm run build`.
'use strict'
// package.json says Node >= 20; say so plainly instead of failing somewhere odd.
// (The bundle skips oclif's own semver check of the same thing, for start-up time.)
const major = Number(process.versions.node.split('.')[0])
if (major < 20) {
  process.stderr.write(`error: git-tasks needs Node.js 20 or newer; this is ${process.version}\n`)
  process.exit(1)
}
const argv = process.argv.slice(2)
const early = require('./early-git.js')
early.startEarlyGit(argv)
require('./compile-cache.js')
const done = require('../dist/tasks.js').main()
// A hot command (show, claim, next, add, done...; early-git.js) ends as soon as it is done and its
// output is written, without tearing the heap down piece by piece (a few ms of every command).
// The exit code is process.exitCode; 'exit' handlers (the code cache) still run. TASKS_NO_FAST_EXIT=1 turns this off.
if (early.isHot(argv) && !process.env.TASKS_NO_FAST_EXIT) {
  done.then(() => {
    if (!process.stdout.writableLength && !process.stderr.writableLength) process.exit()
  })
}
