/** Small input readers shared by the MCP tools (the CLI's flag parsers, without oclif). */
import {parseDurationSeconds} from '../core/duration-flag'
import {MAX_LEASE_SECONDS} from '../core/task'

export const DURATION_HINT = '90s, 30m, 1h, 1h30m, or a number of seconds'

/** A lease given as a duration string or whole seconds; undefined stays undefined (the list's default). */
export function parseToolDuration(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined
  return parseDurationSeconds(String(value), 'lease', MAX_LEASE_SECONDS)
}
