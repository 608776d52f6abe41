// V8 code cache for the bundles in dist/. Compiling ~550 KB of bundled
// JavaScript is most of this CLI's start-up; V8 can instead load the code it
// compiled on an earlier run. No cache is shipped (it is specific to one Node
// build): it is made at the first run, as Node's own module compile cache is.
// It sits beside each bundle (dist/<name>.js.v8cache) when dist/ is writable
// (a checkout, an install the user owns); otherwise (a global install owned
// by root) in the user's cache directory, $XDG_CACHE_HOME/git-tasks/v8 or
// ~/.cache/git-tasks/v8 (TASKS_COMPILE_CACHE_DIR chooses another). When the
// cache is missing or V8 rejects it (another Node version, other flags), the
// bundle compiles normally and a fresh cache is written when the process
// exits. Writing is best-effort: when nothing is writable the CLI just runs
// without it. TASKS_NO_COMPILE_CACHE=1 turns it off. Only files in dist/ are affected.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')
const Module = require('node:module')

const distDir = path.join(__dirname, '..', 'dist') + path.sep
const pending = []

/** The cache directory used when dist/ is not writable, and the name of a bundle's cache file in it. */
function userCacheFile(filename) {
  const os = require('node:os')
  const dir = process.env.TASKS_COMPILE_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'git-tasks', 'v8')
  // One file per installed bundle (its path names it), so two installs do not overwrite each other's.
  return path.join(dir, `${filename.replace(/[\\/:]+/g, '_')}.v8cache`)
}

function readCache(file) {
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

const originalCompile = Module.prototype._compile
Module.prototype._compile = function compileWithCache(content, filename) {
  if (!filename.startsWith(distDir) || process.env.TASKS_NO_COMPILE_CACHE) return originalCompile.call(this, content, filename)
  const besideFile = `${filename}.v8cache`
  // Beside the bundle first (a checkout: one read); the user's cache only when there is none beside it.
  let cacheFile = process.env.TASKS_COMPILE_CACHE_DIR ? undefined : besideFile
  let cachedData = cacheFile && readCache(cacheFile)
  if (!cachedData) {
    const other = userCacheFile(filename)
    const data = readCache(other)
    if (data || process.env.TASKS_COMPILE_CACHE_DIR) {
      cacheFile = other
      cachedData = data
    }
  }
  const script = new vm.Script(Module.wrap(content), {filename, cachedData, importModuleDynamically: undefined})
  if (!cachedData || script.cachedDataRejected) pending.push({script, cacheFile: cacheFile ?? besideFile, filename})
  const fn = script.runInThisContext({displayErrors: true})
  const mod = this
  const require = (id) => mod.require(id)
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options)
  require.cache = Module._cache
  require.main = process.mainModule
  return fn.call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename))
}

function writeCache(file, data) {
  const tmp = `${file}.${process.pid}.tmp`
  try {
    fs.writeFileSync(tmp, data)
    fs.renameSync(tmp, file)
    return true
  } catch {
    try {
      fs.rmSync(tmp, {force: true})
    } catch {}
    return false
  }
}

process.once('exit', () => {
  for (const {script, cacheFile, filename} of pending) {
    try {
      const data = script.createCachedData()
      if (writeCache(cacheFile, data)) continue
      // dist/ is not writable (a root-owned global install): the user's cache directory instead.
      // (Or the cache directory does not exist yet: made here, and the write tried once more.)
      const other = userCacheFile(filename)
      fs.mkdirSync(path.dirname(other), {recursive: true})
      writeCache(other, data)
    } catch {}
  }
})
