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
