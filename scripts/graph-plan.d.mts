// Types of scripts/graph-plan.mjs (for the browser tests in TypeScript).
export interface BatchOp {
  op: string
  [field: string]: unknown
}
export interface Plan {
  adds: BatchOp[]
  moves(ids: Record<string, string>): Array<[actor: string, ops: BatchOp[]]>
}
export function realisticPlan(): Plan
export function generatedPlan(size: number): Plan
export function writePlan(plan: Plan, tasks: (args: string[], actor: string, input?: string) => Promise<any>): Promise<Record<string, string>>
