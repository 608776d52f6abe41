/**
 * `tasks mcp list-tools`: the tools a client of `tasks mcp` sees, asked of
 * the server itself. The server is built as `tasks mcp` builds it and
 * connected to the SDK's client through the SDK's in-memory transport
 * pair; `tools/list` returns each tool's name, description, input schema
 * (JSON Schema, as the SDK converts it) and annotations. Nothing touches
 * the repository: the server opens its session on the first tool call,
 * and none is made.
 */
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js'
import type * as InMemoryModule from '@modelcontextprotocol/sdk/inMemory.js'
import {type McpOptions, startMcpServer} from './mcp-server'

export interface ListedTool {
  name: string
  /** The CLI command it mirrors (`poll_inbox`: inbox). */
  command: string
  /** One line. */
  summary: string
  description: string
  read_only: boolean
  input_schema: Record<string, unknown>
}

export interface ListToolsResult {
  tools: ListedTool[]
}

export async function listTools(options: Omit<McpOptions, 'agent' | 'inbox' | 'wrapDeliver'>): Promise<ListToolsResult> {
  const {Client} = require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule
  const {InMemoryTransport} = require('@modelcontextprotocol/sdk/inMemory.js') as typeof InMemoryModule
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const running = await startMcpServer({...options}, serverSide)
  const defs = new Map(running.tools.map((t) => [t.name, t]))
  const client = new Client({name: 'tasks-mcp-list-tools', version: options.version})
  try {
    await client.connect(clientSide)
    const tools: ListedTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? {cursor} : {})
      for (const t of page.tools) {
        const def = defs.get(t.name)
        tools.push({
          name: t.name,
          command: def?.command ?? t.name,
          summary: def?.summary ?? (t.description ?? '').split(/(?<=\.)\s/)[0] ?? '',
          description: t.description ?? '',
          read_only: Boolean(t.annotations?.readOnlyHint),
          input_schema: t.inputSchema as Record<string, unknown>,
        })
      }
      cursor = page.nextCursor
    } while (cursor)
    return {tools}
  } finally {
    await client.close()
    await running.close()
  }
}
