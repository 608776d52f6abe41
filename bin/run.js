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
require('./early-git.js')(process.argv.slice(2))
require('./compile-cache.js')
require('../dist/tasks.js').main()
