// Stand-in for the `debug` package in the bundles (scripts/build.mjs). oclif
// makes its loggers with it at start-up, and loading it costs every command
// a few milliseconds (it loads tty and supports-color and scans the
// environment); its loggers print only for namespaces named in DEBUG. So
// with DEBUG set this is the real package; without, loggers that do nothing.
'use strict'
if (process.env.DEBUG) {
  module.exports = require('debug')
} else {
  const createDebug = (namespace) => {
    const log = () => undefined
    log.namespace = namespace
    log.enabled = false
    log.log = () => undefined
    log.extend = (sub, delimiter) => createDebug(`${namespace}${delimiter === undefined ? ':' : delimiter}${sub}`)
    log.destroy = () => true
    return log
  }
  createDebug.enable = () => undefined
  createDebug.disable = () => ''
  createDebug.enabled = () => false
  createDebug.names = []
  createDebug.skips = []
  createDebug.formatters = {}
  createDebug.default = createDebug
  module.exports = createDebug
}
