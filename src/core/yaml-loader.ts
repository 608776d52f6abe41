/**
 * The `yaml` package, loaded on first use. Reading a list from a warm cache
 * parses no YAML at all, so `list` never pays to load the parser.
 */
import type * as YAML from 'yaml'

let loaded: typeof YAML | undefined

export function yaml(): typeof YAML {
  loaded ??= require('yaml') as typeof YAML
  return loaded
}
