/**
 * The third-party libraries only some commands need, loaded on first use:
 * `tasks mcp` (the MCP SDK's server and types, and zod; the stdio transport is our own, agent/stdio-transport.ts) and `import` (cli-progress). They
 * stay outside the command and engine bundles (external in
 * scripts/build.mjs) and are required from node_modules at run time, so
 * `tasks show` or `claim` never load or compile them. (`search` needs no
 * library: core/text-index.ts computes MiniSearch's ranking itself.)
 */
import type * as McpModule from '@modelcontextprotocol/sdk/server/mcp.js'
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js'
import type * as Zod from 'zod'
import type * as CliProgress from 'cli-progress'

export interface McpLibs {
  mcp: typeof McpModule
  types: typeof TypesModule
  z: typeof Zod
}

let mcpLibs: McpLibs | undefined

export function loadMcp(): McpLibs {
  mcpLibs ??= {
    mcp: require('@modelcontextprotocol/sdk/server/mcp.js'),
    types: require('@modelcontextprotocol/sdk/types.js'),
    z: require('zod'),
  }
  return mcpLibs
}

export function loadCliProgress(): typeof CliProgress {
  return require('cli-progress') as typeof CliProgress
}
