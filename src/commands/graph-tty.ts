/**
 * On a terminal with no --format and no --out, `tasks graph` prints the graph
 * as readable text (layers, critical path, ready items), never raw SVG; a
 * pipe or a file still gets the SVG.
 */
export function printsOutline(format: string | undefined, out: string | undefined, stdoutIsTTY: boolean): boolean {
  return format === undefined && !out && stdoutIsTTY
}
