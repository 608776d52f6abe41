// Stand-in for `tinyglobby` in the bundles (scripts/build.mjs): oclif requires
// it at start-up but calls it only to find command files by pattern, which
// this CLI never does (its commands are listed explicitly). The real package
// (and fdir, picomatch) loads on first use.
'use strict'
let real
const load = () => (real ??= require('tinyglobby'))
module.exports = {
  get glob() {
    return load().glob
  },
  get globSync() {
    return load().globSync
  },
  get convertPathToPattern() {
    return load().convertPathToPattern
  },
  get escapePath() {
    return load().escapePath
  },
  get isDynamicPattern() {
    return load().isDynamicPattern
  },
}
