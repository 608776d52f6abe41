/**
 * The third-party libraries only some commands need, loaded on first use:
 * `tasks mcp` (the MCP SDK's server and types, and zod; the stdio transport is our own, agent/stdio-transport.ts) and `import` (cli-progress). They
 * stay outside the command and engine bundles: the MCP SDK and zod are in
 * their own bundle, dist/mcp.js, which scripts/build.mjs puts behind each
 * require of them; cli-progress is required from node_modules. So
 * `tasks show` or `claim` never load or compile them. (`search` needs no
 * library: core/text-index.ts computes MiniSearch's ranking itself.)
 * `graph --out FILE.png` loads @resvg/resvg-js (native, an optional
 * dependency): only for a PNG, with a clear error when it is not installed.
 */
import type * as McpModule from '@modelcontextprotocol/sdk/server/mcp.js'
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js'
import type * as Zod from 'zod'
import type * as CliProgress from 'cli-progress'
import type * as ResvgModule from '@resvg/resvg-js'
import {EnvironmentError} from '../core/errors'

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

/**
 * The SVG renderer behind `graph --out FILE.png` (@resvg/resvg-js: prebuilt
 * per-platform binaries from the registry, an optionalDependency). Missing,
 * or without a binary for this platform: `png_unavailable` (exit 1).
 */
export function loadResvg(): typeof ResvgModule {
  try {
    return require('@resvg/resvg-js') as typeof ResvgModule
  } catch (error) {
    throw new EnvironmentError(
      'png_unavailable',
      `PNG output needs the optional package @resvg/resvg-js, which cannot be loaded here (${(error as Error).message.split('\n')[0]}): install it with \`npm install @resvg/resvg-js\` beside git-tasks, or write an SVG (--out FILE.svg)`,
      {package: '@resvg/resvg-js'},
    )
  }
}
