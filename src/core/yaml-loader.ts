/**
 * The `yaml` package, loaded on first use. Reading a list from a warm cache
 * parses no YAML at all, so `list` never pays to load the parser.
 *
 * Files on the ref may have been written by anyone who can push, so YAML is
 * read through `parseYamlStrictly` only: plain mappings, sequences and
 * scalars of the YAML 1.2 core schema. Anchors, aliases, explicit tags and
 * merge keys are refused (an alias can multiply a small file into a huge
 * value; a tag like `!!js/function` means something else to other tools),
 * warnings are never printed (the parser would otherwise write a Node
 * `YAMLWarning` to stderr, breaking `--json`'s one-object promise), and
 * nothing the parser throws escapes: every problem is an error message.
 */
import type * as YAML from 'yaml'

let loaded: typeof YAML | undefined

export function yaml(): typeof YAML {
  loaded ??= require('yaml') as typeof YAML
  return loaded
}

/** Keys that would change an object's prototype if assigned; never allowed in a file. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__'])

function firstLine(message: string): string {
  return message.split('\n')[0]!
}

/**
 * The most YAML text handed to the YAML library. Files git-tasks writes are
 * read by its own linear reader whatever their size (frontmatter.ts); this
 * bounds only what a person edited by hand (and config.yaml, meta.yaml),
 * where the library's cost grows quickly with size.
 */
export const MAX_YAML_BYTES = 64 * 1024

/** Parse YAML text into plain values, or return what is wrong with it. */
export function parseYamlStrictly(text: string): {value: unknown} | {error: string} {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > MAX_YAML_BYTES) {
    return {error: `the YAML is ${bytes} bytes; YAML not in git-tasks' own form is read up to ${MAX_YAML_BYTES} bytes`}
  }
  try {
    const Y = yaml()
    // Duplicate keys are found below in one pass: the library's own check (uniqueKeys) is quadratic.
    const doc = Y.parseDocument(text, {schema: 'core', uniqueKeys: false, prettyErrors: false, logLevel: 'silent', merge: false})
    if (doc.errors.length > 0) return {error: `invalid YAML: ${firstLine(doc.errors[0]!.message)}`}
    if (doc.warnings.length > 0) return {error: `unsupported YAML: ${firstLine(doc.warnings[0]!.message)}`}
    let feature: string | null = null
    Y.visit(doc, {
      Map(_, map) {
        const keys = new Set<string>()
        for (const pair of map.items) {
          const key = Y.isScalar(pair.key) ? String(pair.key.value) : null
          if (key === null) continue
          if (keys.has(key)) {
            feature = `a duplicate key (${key.slice(0, 40)})`
            return Y.visit.BREAK
          }
          keys.add(key)
        }
        return undefined
      },
      Alias() {
        feature = 'an alias (*name)'
        return Y.visit.BREAK
      },
      Node(_, node) {
        if (node.anchor) feature = `an anchor (&${node.anchor})`
        else if (node.tag) feature = `a tag (${node.tag})`
        return feature ? Y.visit.BREAK : undefined
      },
      Pair(_, pair) {
        const key = Y.isScalar(pair.key) ? pair.key.value : pair.key
        if (key === '<<') feature = 'a merge key (<<)'
        else if (typeof key === 'string' && FORBIDDEN_KEYS.has(key)) feature = `the key ${key}`
        else if (key !== null && typeof key === 'object') feature = 'a key that is not a scalar'
        return feature ? Y.visit.BREAK : undefined
      },
    })
    if (feature) return {error: `${feature} is not allowed in a git-tasks file`}
    return {value: doc.toJS({maxAliasCount: 0})}
  } catch (error) {
    // Deep nesting can exhaust the parser's stack; that is a broken file, not a crash.
    return {error: `invalid YAML: ${firstLine((error as Error).message)}`}
  }
}
