/**
 * The registry of error codes (issue 8, point 16): every code the source can
 * raise is documented in docs/cli.md's exit-code table, under the exit its
 * class gives, and listed in the enum of schemas/output/error.schema.json;
 * nothing stale is listed. Codes are read from the source itself by a walk
 * over src/**\/*.ts: the first argument of `new XError(…)` (the third of
 * `new UsageError(…)`, `usage` when absent), every string literal in that
 * argument (so `cond ? 'a' : 'b'` counts both), and the values of constants
 * named `…_CODES` for codes a helper picks at run time. A code argument with
 * no literal and no `…_CODES` constant fails (`err.code`, re-raising an
 * existing error's code, is allowed), so a new code cannot hide.
 */
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(__dirname, '..', '..')
const EXIT_OF: Record<string, number> = {UsageError: 2, NotFoundError: 3, ConflictError: 4, InvalidError: 5, NotPermittedError: 6, EnvironmentError: 1}
const EXIT_NAME: Record<string, number> = {error: 1, usage: 2, notFound: 3, conflict: 4, invalid: 5, notPermitted: 6}

interface Raised {
  code: string
  exit: number | null
  where: string
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The top-level arguments of a call whose `(` is just before `start`, as source text. */
function callArguments(text: string, start: number): string[] {
  const args: string[] = []
  const closers: string[] = []
  let arg = ''
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = stringEnd(text, i)
      arg += text.slice(i, end)
      i = end - 1
      continue
    }
    if (ch === '(' || ch === '[' || ch === '{') closers.push(ch === '(' ? ')' : ch === '[' ? ']' : '}')
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (closers.length === 0) {
        if (arg.trim()) args.push(arg.trim())
        return args
      }
      closers.pop()
    } else if (ch === ',' && closers.length === 0) {
      args.push(arg.trim())
      arg = ''
      continue
    }
    arg += ch
  }
  throw new Error('unterminated call')
}

/** Index just past the string literal starting at `i` (template literals with `${…}` included). */
function stringEnd(text: string, i: number): number {
  const quote = text[i]!
  for (let j = i + 1; j < text.length; j++) {
    const ch = text[j]!
    if (ch === '\\') j++
    else if (ch === quote) return j + 1
    else if (quote === '`' && ch === '$' && text[j + 1] === '{') {
      let depth = 1
      for (j += 2; depth > 0; j++) {
        if (text[j] === "'" || text[j] === '"' || text[j] === '`') j = stringEnd(text, j) - 1
        else if (text[j] === '{') depth++
        else if (text[j] === '}') depth--
      }
      j--
    }
  }
  throw new Error('unterminated string')
}

/** Plain string literals (no template holes) in an expression. */
function literals(expr: string): string[] {
  return [...expr.matchAll(/'([^'\\]*)'|"([^"\\]*)"|`([^`$\\]*)`/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
}

function raisedCodes(): {raised: Raised[]; problems: string[]} {
  const raised: Raised[] = []
  const problems: string[] = []
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const rel = relative(ROOT, file)
    if (rel === join('src', 'core', 'errors.ts')) continue
    const text = readFileSync(file, 'utf8')
    const lineOf = (index: number): string => `${rel}:${text.slice(0, index).split('\n').length}`
    for (const m of text.matchAll(/new (UsageError|NotFoundError|ConflictError|InvalidError|NotPermittedError|EnvironmentError|TasksError)\(/g)) {
      const args = callArguments(text, m.index! + m[0].length)
      const cls = m[1]!
      const codeArg = cls === 'UsageError' ? (args[2] ?? "'usage'") : args[0]!
      const exit = cls === 'TasksError' ? (EXIT_NAME[/EXIT\.(\w+)/.exec(args[1] ?? '')?.[1] ?? ''] ?? null) : EXIT_OF[cls]!
      const found = literals(codeArg)
      // `err.code`: an error re-raised in other words keeps the code it was raised with (counted where it was raised).
      if (found.length === 0 && !/_CODES\b/.test(codeArg) && !/^\w+\.code$/.test(codeArg)) problems.push(`${lineOf(m.index!)}: the code \`${codeArg}\` is not a literal; write the codes out (or take them from a …_CODES constant)`)
      for (const code of found) raised.push({code, exit, where: lineOf(m.index!)})
    }
    // Codes a helper chooses at run time, declared in a …_CODES constant.
    for (const m of text.matchAll(/const (\w+_CODES)\b[^=]*=\s*[{[]/g)) {
      const body = callArguments(text, m.index! + m[0].length).join(',') // the object or array, to its closing bracket
      for (const code of literals(body)) if (/^[a-z][a-z0-9_]*$/.test(code) && code.includes('_')) raised.push({code, exit: null, where: lineOf(m.index!)})
    }
  }
  return {raised, problems}
}

/** Codes in docs/cli.md's exit-code table, with the exit of their row (text in parentheses is commentary, not codes). */
function documentedCodes(): Map<string, number> {
  const docs = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
  const table = docs.slice(docs.indexOf('## Exit codes'))
  const out = new Map<string, number>()
  for (const line of table.split('\n')) {
    const row = /^\| (\d) \| [^|]* \| (.*) \|$/.exec(line)
    if (!row) continue
    let flat = ''
    let depth = 0
    for (const ch of row[2]!) {
      if (ch === '(') depth++
      else if (ch === ')') depth--
      else if (depth === 0) flat += ch
    }
    for (const m of flat.matchAll(/`([a-z][a-z0-9_]*)`/g)) out.set(m[1]!, Number(row[1]))
  }
  return out
}

function schemaEnum(): string[] {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'error.schema.json'), 'utf8'))
  return schema.properties.error.properties.code.enum ?? []
}

describe('error codes: source, docs/cli.md and the error schema agree', () => {
  const {raised, problems} = raisedCodes()
  const codes = [...new Set(raised.map((r) => r.code))].sort()
  const docs = documentedCodes()
  const listed = new Set(schemaEnum())

  it('finds the codes (sanity)', () => {
    expect(problems, problems.join('\n')).toEqual([])
    expect(codes).toContain('usage')
    expect(codes).toContain('already_claimed')
    expect(codes).toContain('ref_locked')
    expect(codes).toContain('body_too_long')
  })

  const missing = (has: (c: string) => boolean): string[] =>
    codes.filter((c) => !has(c)).map((c) => `${c} (raised at ${raised.filter((r) => r.code === c).map((r) => r.where).join(', ')})`)

  it('every code the source raises is in docs/cli.md', () => {
    const notInDocs = missing((c) => docs.has(c))
    expect(notInDocs, `codes missing from the exit-code table of docs/cli.md:\n${notInDocs.join('\n')}`).toEqual([])
  })

  it('every code the source raises is in the error schema enum', () => {
    const notInEnum = missing((c) => listed.has(c))
    expect(notInEnum, `codes missing from the enum of schemas/output/error.schema.json (properties.error.properties.code.enum):\n${notInEnum.join('\n')}`).toEqual([])
  })

  it('docs/cli.md lists each code under the exit its class gives', () => {
    const wrong = raised.filter((r) => r.exit !== null && docs.has(r.code) && docs.get(r.code) !== r.exit).map((r) => `${r.code}: exit ${r.exit} at ${r.where}, documented under ${docs.get(r.code)}`)
    expect(wrong, wrong.join('\n')).toEqual([])
  })

  it('nothing stale: the enum and the docs list only codes the source raises', () => {
    const known = new Set(codes)
    const staleEnum = [...listed].filter((c) => !known.has(c))
    const staleDocs = [...docs.keys()].filter((c) => !known.has(c))
    expect(staleEnum, `in the error schema's enum but raised nowhere in src: ${staleEnum.join(', ')}`).toEqual([])
    expect(staleDocs, `in docs/cli.md's exit-code table but raised nowhere in src: ${staleDocs.join(', ')}`).toEqual([])
  })
})
