#!/usr/bin/env node
// The dependency check (test/unit/dependencies.test.ts runs it; `node scripts/check-deps.mjs` prints it):
// every import among the TypeScript sources of src/ is read with the TypeScript parser and checked
// against the layers of docs/architecture.md, written below as data, and the graph of run-time imports
// is searched for cycles. Every violation is reported with its file and the import.
//
// Run-time imports are `import … from`, `export … from`, `import x = require(…)`, `require('…')` and
// `import('…')` calls with a literal relative path. Type-only imports are ignored, for cycles and for
// layers alike: `import type`, `export type`, an import whose every name is marked `type`, and a type
// written as `import('…').Name`. They are erased from the bundles, so they cannot make a module load
// another; a layer may name the types of the layers above it (e.g. a renderer's input).
import {readdirSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The layers (docs/architecture.md), most specific path first: the first whose path a file is under
 * is its layer. `may` lists the layers it may import (itself included); an import of any other
 * project file runs up (or across) the layers.
 */
export const LAYERS = [
  {name: 'generated', path: 'src/generated', may: ['generated']},
  {name: 'schemas', path: 'schemas', may: ['schemas']},
  // Pure domain: nothing of the project but itself, the generated validators and, as data, the schemas' bounds.
  {name: 'core', path: 'src/core', may: ['core', 'generated', 'schemas']},
  {name: 'merge', path: 'src/merge', may: ['merge', 'core', 'generated']},
  // The only code that talks to git.
  {name: 'refstore', path: 'src/refstore', may: ['refstore', 'merge', 'core', 'generated']},
  // Text for people: pure, over the core's values.
  {name: 'render', path: 'src/render', may: ['render', 'core', 'generated']},
  // Use cases: over refstore, merge and core; never an interface above them.
  {name: 'app', path: 'src/app', may: ['app', 'refstore', 'merge', 'core', 'render', 'generated', 'schemas']},
  // Git hooks and the server guard, at the level of app.
  {name: 'hooks', path: 'src/hooks', may: ['hooks', 'app', 'refstore', 'merge', 'core', 'render', 'generated']},
  // The operation table: one spec per operation, over the core's parameter vocabulary; the engine (app)
  // only as types, since a spec is handed the engine when it runs.
  {name: 'operations', path: 'src/operations', may: ['operations', 'core', 'generated']},
  // Interfaces over app: never refstore. The MCP tools are commands by another name, so like src/commands
  // they may call the hooks' use cases (events, branch).
  {name: 'agent', path: 'src/agent', may: ['agent', 'operations', 'app', 'hooks', 'core', 'render', 'generated']},
  {name: 'board', path: 'src/board', may: ['board', 'app', 'core', 'render', 'generated']},
  // The command bundle: flags and specs only; everything else at run time through engine() (the engine bundle,
  // loaded on first use), so start-up loads no use case.
  {name: 'commands', path: 'src/commands', may: ['commands', 'operations', 'core', 'generated']},
  // The bundles' entries: the engine is what commands load lazily, main the CLI.
  {name: 'engine', path: 'src/engine.ts', may: ['engine', 'app', 'hooks', 'agent', 'refstore', 'merge', 'core', 'render', 'generated']},
  {name: 'main', path: 'src/main.ts', may: ['main', 'commands', 'core', 'render', 'generated']},
]

/**
 * Known violations, each with why it is tolerated and who removes it. A cycle is allowed when its files
 * are exactly these; an entry that no longer matches anything is itself reported, so the list shrinks.
 */
export const ALLOWED = {
  cycles: [],
  /** Imports up the layers, as `from -> to`. */
  imports: [],
}

/** Every .ts file under `dir` of `root` (relative to root), declarations excluded. */
function sources(root, dir) {
  const out = []
  for (const e of readdirSync(join(root, dir), {withFileTypes: true})) {
    const p = `${dir}/${e.name}`
    if (e.isDirectory()) out.push(...sources(root, p))
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p)
  }
  return out.sort()
}

/** The project file an import of `spec` from `file` names (relative to `root`), or null for a package or node built-in. */
function resolveImport(root, file, spec, exists) {
  if (!spec.startsWith('.')) return null
  const base = relative(root, resolve(root, dirname(file), spec)).split('\\').join('/')
  const stem = base.replace(/\.(js|mjs|cjs)$/, '')
  for (const c of [base, `${stem}.ts`, `${base}.ts`, `${base}/index.ts`, `${stem}.js`, `${base}.js`]) if (exists(c)) return c
  return base
}

/** The run-time imports of one source text: [{spec, line}]. */
function runtimeImports(ts, file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const out = []
  const add = (node, spec) => out.push({spec, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1})
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const typeOnly = clause && (clause.isTypeOnly || (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)))
      if (!typeOnly) add(node, node.moduleSpecifier.text)
      return
    }
    if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier && !node.isTypeOnly && !(node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly))) add(node, node.moduleSpecifier.text)
      return
    }
    if (ts.isImportEqualsDeclaration(node)) {
      if (!node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) add(node, node.moduleReference.expression.text)
      return
    }
    if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node, node.arguments[0].text)
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

/** The layer of a project file (relative to ROOT), or undefined. */
function layerOf(file) {
  return LAYERS.find((l) => file === l.path || file.startsWith(`${l.path}/`))
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function cyclesOf(graph) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const out = []
  let next = 0
  const connect = (v) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
    }
    if (low.get(v) !== index.get(v)) return
    const scc = []
    let w
    do {
      w = stack.pop()
      onStack.delete(w)
      scc.push(w)
    } while (w !== v)
    if (scc.length > 1 || (graph.get(v) ?? new Set()).has(v)) out.push(scc.sort())
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v)
  return out
}

/**
 * Check src/ of `root` (the project by default): returns the violations (each {kind: 'layer' | 'cycle' |
 * 'stale', message}) left after the allow-list, and the size of the graph.
 */
export function checkDependencies({root = ROOT, allowed = ALLOWED} = {}) {
  const ts = createRequire(import.meta.url)(join(ROOT, 'node_modules', 'typescript'))
  const files = sources(root, 'src')
  const known = new Set(files)
  const exists = (p) => known.has(p) || (p.startsWith('schemas/') && p.endsWith('.json')) || p === 'src/generated/validators.js'
  const graph = new Map()
  const problems = []
  const allowedImports = new Set(allowed.imports)
  const usedImports = new Set()
  let edges = 0
  for (const file of files) {
    const from = layerOf(file)
    const targets = new Set()
    for (const {spec, line} of runtimeImports(ts, file, readFileSync(join(root, file), 'utf8'))) {
      const target = resolveImport(root, file, spec, exists)
      if (target === null) continue
      edges++
      if (known.has(target)) targets.add(target)
      const to = layerOf(target)
      if (!from || !to) {
        problems.push({kind: 'layer', message: `${file}:${line}: imports '${spec}' (${target}), which is in no layer of scripts/check-deps.mjs`})
        continue
      }
      if (from.may.includes(to.name)) continue
      const key = `${file} -> ${target}`
      if (allowedImports.has(key)) {
        usedImports.add(key)
        continue
      }
      problems.push({kind: 'layer', message: `${file}:${line}: imports '${spec}' (${target}): ${from.name} may not import ${to.name} (it may import ${from.may.join(', ')})`})
    }
    graph.set(file, targets)
  }
  const allowedCycles = new Map(allowed.cycles.map((c) => [[...c].sort().join(' '), false]))
  for (const scc of cyclesOf(graph)) {
    const key = scc.join(' ')
    if (allowedCycles.has(key)) {
      allowedCycles.set(key, true)
      continue
    }
    const inside = new Set(scc)
    const links = scc.flatMap((f) => [...graph.get(f)].filter((t) => inside.has(t)).map((t) => `${f} -> ${t}`))
    problems.push({kind: 'cycle', message: `import cycle among ${scc.length} files: ${links.join(', ')}`})
  }
  for (const [key, seen] of allowedCycles) if (!seen) problems.push({kind: 'stale', message: `the allowed cycle ${key} no longer occurs: remove it from ALLOWED in scripts/check-deps.mjs`})
  for (const key of allowedImports) if (!usedImports.has(key)) problems.push({kind: 'stale', message: `the allowed import ${key} no longer occurs: remove it from ALLOWED in scripts/check-deps.mjs`})
  return {files: files.length, edges, problems}
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const {files, edges, problems} = checkDependencies()
  for (const p of problems) console.log(`${p.kind}: ${p.message}`)
  console.log(`check-deps: ${files} files, ${edges} project imports, ${problems.length} problem(s)`)
  process.exitCode = problems.length === 0 ? 0 : 1
}
