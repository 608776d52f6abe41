/**
 * Plans on a branch (issue 34): a list forked from another by `tasks plan
 * start`, to be merged back by `tasks plan merge`. The list's marker is the
 * file `plan.yaml` at the root of its ref, written once in the plan's first
 * commit (whose parent is the fork point): the plan's name, the list it was
 * forked from (the default target of its merge), the fork point, and who
 * forked it when. A list without the file is not a plan. The marker is
 * carried by the ref, so a plan shared through the remote carries it too;
 * `plan merge` never lands it on the target.
 *
 * Pure: the file's text.
 */
import {validatePlan} from '../generated/validators'
import {serialiseFrontmatter} from './frontmatter'
import type {ListMarker} from './list-marker'
import type {Parsed} from './task-file'
import {parseYamlStrictly} from './yaml-loader'

/** The marker of a plan list, at the root of its ref. */
export const PLAN_PATH = 'plan.yaml'

export interface PlanFile {
  /** The plan's name: its list is refs/tasks/<plan>. */
  plan: string
  /** The list it was forked from: where `plan merge` lands it unless --into says otherwise. */
  from: string
  /** The fork point: the tip of `from` when the plan started (the parent of the plan's first commit). */
  base: string
  created_by: string
  created_at: string
}

/** Deterministic text: the same fields give the same bytes. */
export function serialisePlanFile(p: PlanFile): string {
  const text = serialiseFrontmatter([['plan', p.plan], ['from', p.from], ['base', p.base], ['created_by', p.created_by], ['created_at', p.created_at]], '')
  return text.slice('---\n'.length, -'---\n'.length)
}

export function parsePlanFile(text: string): Parsed<PlanFile> {
  const parsed = parseYamlStrictly(text)
  if ('error' in parsed) return {ok: false, error: parsed.error}
  if (!validatePlan(parsed.value)) {
    const e = validatePlan.errors?.[0]
    return {ok: false, error: `${PLAN_PATH}${e?.instancePath ?? ''} ${e?.message ?? 'is not valid'}`}
  }
  return {ok: true, value: parsed.value as PlanFile}
}

/** plan.yaml as a list's marker (core/list-marker.ts): it names its plan, the list it is on. */
export const PLAN_MARKER: ListMarker<PlanFile> = {kind: 'plan', path: PLAN_PATH, parse: parsePlanFile, listOf: (f) => f.plan}
