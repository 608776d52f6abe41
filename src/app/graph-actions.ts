/**
 * `tasks graph` and the board's graph view: the task graph of the list at its
 * tip (src/core/task-graph.ts), as the acting actor sees readiness.
 */
import {lookup} from '../core/snapshot'
import {type TaskGraph, buildTaskGraph} from '../core/task-graph'
import type {Session} from './session'
import {warnTrackingState} from './sharing'
import {viewer} from './task-results'
import {loadResvg} from './lazy-libs'

export interface GraphResult extends TaskGraph {
  list: string
  commit: string
  /** The ids asked for (full), or empty for the whole list's open items. */
  roots: string[]
}

/** The graph of the open items (or all with `all`), or of what the given ids reach. */
export async function taskGraph(session: Session, {ids, ...options}: {ids: readonly string[]; all?: boolean}): Promise<GraphResult> {
  const loaded = await session.store.load()
  const snap = loaded.snapshot
  const roots = ids.map((input) => lookup(snap, input).id)
  const g = buildTaskGraph(snap, await viewer(session, snap), {roots, all: options.all})
  await warnTrackingState(session)
  return {list: session.list, commit: loaded.index.commit, roots, ...g}
}

/**
 * A PNG of an SVG document at its own size (width and height in pixels, on
 * white), through @resvg/resvg-js, loaded only here. Text uses the system's
 * fonts (a machine without any draws the boxes and lines).
 */
export function svgToPng(svg: string): Buffer {
  const {Resvg} = loadResvg()
  return new Resvg(svg, {fitTo: {mode: 'original'}, background: '#ffffff', font: {loadSystemFonts: true, defaultFontFamily: 'sans-serif'}, logLevel: 'off'}).render().asPng()
}
