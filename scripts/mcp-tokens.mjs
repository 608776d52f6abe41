#!/usr/bin/env node
// Measure what `tasks mcp` costs an agent in characters (tokens ~ characters/4):
// the tools/list answer, and one agent loop (next -> checkpoint -> check_pass -> done),
// counting the arguments sent and the text received. Usage: node scripts/mcp-tokens.mjs [mcp args…]
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

const BIN = resolve(import.meta.dirname, '..', 'bin', 'tasks')
const dir = mkdtempSync(join(tmpdir(), 'mcp-tokens-'))
const home = mkdtempSync(join(tmpdir(), 'mcp-tokens-home-'))
writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Tok\n\temail = tok@example.com\n[init]\n\tdefaultBranch = main\n')
const env = {PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: join(home, '.gitconfig'), NO_COLOR: '1'}
const sh = (cmd, args) => execFileSync(cmd, args, {cwd: dir, env, encoding: 'utf8'})
try {
  sh('git', ['init', '-q'])
  sh(process.execPath, [BIN, 'init', '--json'])
  const added = JSON.parse(sh(process.execPath, [BIN, 'add', 'Wire the parser', '--json']))
  const id = added.task?.id ?? added.id
  const check = JSON.parse(sh(process.execPath, [BIN, 'check', 'add', id, '--test', 'npm test passes', '--json']))
  const checkId = check.check?.id ?? check.id
  const transport = new StdioClientTransport({command: process.execPath, args: [BIN, 'mcp', '--as', 'agent-1', ...process.argv.slice(2)], cwd: dir, env, stderr: 'pipe'})
  const client = new Client({name: 'mcp-tokens', version: '1'})
  await client.connect(transport)
  const listed = await client.listTools()
  const listChars = JSON.stringify(listed).length
  const steps = [
    ['next', {}],
    ['checkpoint', {id, summary: 'parser written', next: 'run the tests'}],
    ['check_pass', {id, check: checkId, evidence: 'npm test: 12 passed'}],
    ['done', {id}],
  ]
  let loop = 0
  const per = []
  for (const [name, args] of steps) {
    const r = await client.callTool({name, arguments: args})
    const text = r.content.map((c) => c.text ?? '').join('')
    if (r.isError) throw new Error(`${name}: ${text}`)
    const n = JSON.stringify(args).length + name.length + text.length
    per.push(`${name}=${n}`)
    loop += n
  }
  await client.close()
  console.log(JSON.stringify({tools: listed.tools.length, list_tools_chars: listChars, list_tools_tokens: Math.round(listChars / 4), loop_chars: loop, loop_tokens: Math.round(loop / 4), steps: per.join(' ')}))
} finally {
  rmSync(dir, {recursive: true, force: true})
  rmSync(home, {recursive: true, force: true})
}
