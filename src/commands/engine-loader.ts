/**
 * Lazy access to the bundles that scripts/build.mjs writes beside
 * dist/tasks.js: the engine (dist/engine.js, built from src/engine.ts), the
 * SVG renderer and the web board. Commands call engine() inside run(), never
 * at module load, so start-up pays only for oclif and the command
 * definitions.
 *
 * Each bundle is required by its path in the directory of the running
 * bundle, never by a relative specifier such as './board.js': a static tool
 * (the dependency check, an editor) would resolve that to the source file
 * beside this one (src/commands/board.ts, the command), a cycle that does
 * not exist at run time.
 */
import {join} from 'node:path'
import type * as Engine from '../engine'

/** File names of the bundles, in the directory of dist/tasks.js. */
const BUNDLES = {engine: 'engine.js', graphSvg: 'graph-svg.js', board: 'board.js'} as const

/** The bundle `file`, loaded (once: require caches it) from beside the running bundle. */
function bundle<T>(file: (typeof BUNDLES)[keyof typeof BUNDLES]): T {
  return require(join(__dirname, file)) as T
}

let loaded: typeof Engine | undefined

export function engine(): typeof Engine {
  loaded ??= bundle<typeof Engine>(BUNDLES.engine)
  return loaded
}

/** The SVG renderer of the task graph (dist/graph-svg.js: d3-dag), loaded only when an SVG is drawn. */
export function graphSvg(): typeof import('../render/graph-svg') {
  return bundle<typeof import('../render/graph-svg')>(BUNDLES.graphSvg)
}

/** The web board (dist/board.js: its server, pages and markdown-it), loaded only by `tasks board`. */
export function boardBundle(): typeof import('../board/index') {
  return bundle<typeof import('../board/index')>(BUNDLES.board)
}
