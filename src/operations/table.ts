/**
 * The operation table: every operation, once. The CLI's commands, the MCP
 * server's tools and the operations a batch file may hold are all read from
 * here (docs/architecture.md, "Adding an operation").
 */
import {p} from '../core/params'
import {BatchTable} from '../core/ops/batch-file'
import {type AnySpec, operation, wireName} from './spec'
import * as cards from './cards'
import * as claims from './claims'
import * as reads from './reads'
import * as checks from './checks'
import * as inbox from './inbox'
import * as admin from './admin'
import * as history from './history'
import * as sessions from './sessions'
import * as scenarios from './scenarios'
import * as plans from './plans'

/** Every operation but `batch`, which is made from them. */
const OPERATIONS_BUT_BATCH: readonly AnySpec[] = [...Object.values(reads), ...Object.values(cards), ...Object.values(claims), ...Object.values(checks), ...Object.values(inbox), ...Object.values(admin), ...Object.values(history), ...Object.values(sessions), ...Object.values(scenarios), ...Object.values(plans)].filter(isSpec)

function isSpec(value: unknown): value is AnySpec {
  return typeof value === 'object' && value !== null && 'run' in value && 'params' in value && 'name' in value
}

let batchTable: BatchTable | undefined

/** The operations a batch file may hold, by their snake-case names (and older aliases). */
export function batchOperations(): BatchTable {
  batchTable ??= new BatchTable(
    OPERATIONS_BUT_BATCH.filter((s) => s.batch).map((s) => ({name: wireName(s), params: s.params, step: s.batch!, check: s.check})),
  )
  return batchTable
}

export const batch = operation({
  name: 'batch',
  toolset: 'admin',
  summary: 'Apply a list of operations as one commit, or none.',
  description:
    'FILE (- for stdin) is a JSON list of operations: {"op": NAME, …its parameters in snake case}; an add (or a check add) may carry "name": "a", and later items refer to what it made as "$a" wherever an id is expected. Atomic: the first refused operation aborts the batch and nothing is written; --each applies what can be and reports each refused one.',
  params: {
    operations: p.json<unknown>('the operations: a JSON list (or {"operations": […], "lease": "30m"}: a default lease for the operations that take one and give none); on the command line a file, - for stdin', {positional: true, file: {limit: 'batch'}}).need(),
    each: p.boolean('Apply every operation that can be, report each refused one, and write the rest as one commit.'),
  },
  writes: true,
  agentSession: true,
  result: 'batch',
  examples: ['<%= config.bin %> batch plan.json', 'cat ops.json | <%= config.bin %> batch - --each --json'],
  run: (e, s, a) => e.coordination.batchFile(s, {operations: a.operations, each: a.each, table: batchOperations()}),
})

/** Every operation. */
export const OPERATIONS: readonly AnySpec[] = [...OPERATIONS_BUT_BATCH, batch]
