// V8 code cache for the two bundles in dist/. Compiling ~550 KB of bundled
// JavaScript is most of this CLI's start-up; V8 can instead load the code it
// compiled on an earlier run. The cache sits beside each bundle
// (dist/<name>.js.v8cache); when it is missing or V8 rejects it (another
// Node version, other flags), the bundle compiles normally and a fresh cache
// is written when the process exits. Writing is best-effort: a read-only
// install just runs without it. Only files in dist/ are affected.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')
const Module = require('node:module')

const distDir = path.join(__dirname, '..', 'dist') + path.sep
const pending = []

const originalCompile = Module.prototype._compile
Module.prototype._compile = function compileWithCache(content, filename) {
  if (!filename.startsWith(distDir) || process.env.TASKS_NO_COMPILE_CACHE) return originalCompile.call(this, content, filename)
  const cacheFile = `${filename}.v8cache`
  let cachedData
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {}
  const script = new vm.Script(Module.wrap(content), {filename, cachedData, importModuleDynamically: undefined})
  if (!cachedData || script.cachedDataRejected) pending.push({script, cacheFile})
  const fn = script.runInThisContext({displayErrors: true})
  const mod = this
  const require = (id) => mod.require(id)
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options)
  require.cache = Module._cache
  require.main = process.mainModule
  return fn.call(mod.exports, mod.exports, require, mod, filename, path.dirname(filename))
}

process.once('exit', () => {
  for (const {script, cacheFile} of pending) {
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(tmp, script.createCachedData())
      fs.renameSync(tmp, cacheFile)
    } catch {}
  }
})
