/**
 * Lazy access to the engine bundle (dist/engine.js, built from src/engine.ts).
 * Commands call engine() inside run(), never at module load, so start-up
 * pays only for oclif and the command definitions.
 */
import type * as Engine from '../engine'

let loaded: typeof Engine | undefined

export function engine(): typeof Engine {
  // Resolved next to dist/tasks.js at run time; kept external by scripts/build.mjs.
  loaded ??= require('./engine.js') as typeof Engine
  return loaded
}

/** The SVG renderer of the task graph (dist/graph-svg.js: d3-dag), loaded only when an SVG is drawn. */
export function graphSvg(): typeof import('../render/graph-svg') {
  return require('./graph-svg.js') as typeof import('../render/graph-svg')
}

/** The web board (dist/board.js: its server, pages and markdown-it), loaded only by `tasks board`. */
export function boardBundle(): typeof import('../board/index') {
  return require('./board.js') as typeof import('../board/index')
}
