// Stand-in for `wsl-utils` in the bundles (scripts/build.mjs): oclif loads it
// at start-up only to ask whether this is WSL (is-wsl, a few file checks);
// the rest of it (PowerShell paths, drive mounts) loads only if used.
'use strict'
module.exports = {
  get isWsl() {
    return require('is-wsl').default
  },
  get powerShellPath() {
    return require('wsl-utils').powerShellPath
  },
}
