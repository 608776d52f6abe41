/**
 * The board's graph view (/graph): the SVG of `tasks graph` fitted to the
 * window, with zoom (wheel, buttons, + and - keys) and pan (drag, arrow
 * keys), a button and a key (c) that bring the critical path into view, a
 * legend, and the same graph as a list of layers (what can start first at
 * the top), which is what a phone shows. The script and style here are
 * appended to /board.js and /board.css (no other file is loaded; the page's
 * Content-Security-Policy allows no inline script or style). Pure strings.
 */
import type {TaskGraph} from '../core/task-graph'
import {outlineLayers} from '../render/graph-outline'
import {esc} from './pages'

const STATE_LABEL = (s: string) => s.replace('_', ' ')

/** The graph as layers: the items that wait on nothing first, each item after everything it waits on, the items linked to nothing last. */
function layersHtml(g: TaskGraph): string {
  if (g.nodes.length === 0) return '<p class="muted">Nothing to draw: no open items.</p>'
  const short = new Map(g.nodes.map((n) => [n.id, n.short_id]))
  const link = (id: string) => `<a href="/task/${esc(id)}">${esc(short.get(id) ?? id)}</a>`
  return `<ol class="layers">${outlineLayers(g, {looseApart: true})
    .map(({layer, items: all}) => {
      const items = [...all]
        .sort((a, b) => Number(b.node.critical) - Number(a.node.critical) || Number(b.node.ready) - Number(a.node.ready) || a.node.priority - b.node.priority || (a.node.id < b.node.id ? -1 : 1))
        .map(({node: n, after, parent}) => {
          const badges = [
            `<span class="badge gstate state-${esc(n.state)}">${esc(STATE_LABEL(n.state))}</span>`,
            n.critical ? '<span class="badge crit">critical path</span>' : '',
            n.ready ? '<span class="badge ready">ready now</span>' : '',
            `<span class="badge prio p${n.priority}">P${n.priority}</span>`,
            n.owner ? `<span class="owner">${esc(n.owner)}</span>` : n.assignee ? `<span class="owner">for ${esc(n.assignee)}</span>` : '',
          ].join('')
          const notes = [after.length ? `after ${after.map(link).join(', ')}` : '', parent ? `in ${link(parent)}` : ''].filter(Boolean).join(' · ')
          return `<li class="gitem${n.critical ? ' critical' : ''}${n.ready ? ' frontier' : ''}" data-id="${esc(n.id)}"><a class="gtitle" href="/task/${esc(n.id)}"><span class="sid">${esc(n.short_id)}</span> ${esc(n.title)}</a><div class="badges">${badges}</div>${notes ? `<div class="muted gafter">${notes}</div>` : ''}</li>`
        })
        .join('')
      const head = layer === -1 ? 'Not linked to other items' : layer === 0 ? 'Layer 1 · waits on nothing here' : `Layer ${layer + 1}`
      return `<li><h3>${head} <span class="count">${all.length}</span></h3><ul>${items}</ul></li>`
    })
    .join('')}</ol>`
}

/**
 * The graph page: toolbar (zoom, fit, critical path, drawing or layers), legend, the drawing and the layers.
 * `svg` is renderSvg's drawing for embedding (no style attribute, which the page's CSP refuses): /board.css sizes it.
 */
export function graphPage(svg: string, g: TaskGraph, all: boolean): string {
  const crit = g.critical_path.length
  return `<div class="graph-view">
<div class="toolbar graph-tools">
<span class="gbuttons"><button type="button" data-graph="in" title="zoom in (+)" aria-label="zoom in">+</button><button type="button" data-graph="out" title="zoom out (-)" aria-label="zoom out">−</button><button type="button" data-graph="fit" title="fit to the window (0)">fit</button><button type="button" data-graph="critical" title="the critical path (c)"${crit ? '' : ' disabled'}>critical path</button><button type="button" data-graph="layers" class="to-layers" title="the graph as a list of layers (l)">layers</button><button type="button" data-graph="drawing" class="to-drawing" title="the drawing (l)">drawing</button></span>
<span class="glegend"><span class="sw crit"></span>critical path (${crit}) <span class="sw ready"></span>ready now (${g.frontier.length}) <span class="sw sub"></span>sub-item</span>
<span class="glinks"><a href="${all ? '/graph' : '/graph?all=1'}">${all ? 'open items only' : 'include done and cancelled'}</a> · <a href="/graph.svg${all ? '?all=1' : ''}" download="tasks-graph.svg">download SVG</a></span>
</div>
<p class="muted ghelp">${g.nodes.length} items. Drag to move, wheel or + / − to zoom, 0 to fit, c for the critical path; a card opens its page.</p>
<div class="graph graph-canvas" data-graph-canvas tabindex="0" aria-label="dependency graph">${svg}</div>
<div class="graph-layers">${layersHtml(g)}</div>
</div>`
}

export const GRAPH_CSS = `
.graph-view .toolbar { gap:.6rem; }
.gbuttons { display:flex; flex-wrap:wrap; gap:.25rem; }
.gbuttons button { min-width:2rem; font-size:13px; }
.glegend { display:flex; flex-wrap:wrap; align-items:center; gap:.3rem; font-size:12px; color:var(--muted); }
.glegend .sw { display:inline-block; width:22px; height:12px; margin-left:.4rem; vertical-align:middle; }
.glegend .sw.crit { border-top:3px solid #c0392b; height:0; }
.glegend .sw.ready { background:#c8f0c8; border:3px dashed #1e8449; border-radius:3px; }
.glegend .sw.sub { border-top:2px dashed #888; height:0; }
.ghelp { margin:.2rem 0 .5rem; font-size:12px; }
.graph-canvas { height:calc(100vh - 170px); min-height:320px; overflow:hidden; touch-action:none; cursor:grab; user-select:none; }
.graph-canvas.dragging { cursor:grabbing; }
.graph-canvas:focus { outline:2px solid #7fb3ff; }
.graph-canvas svg { display:block; width:100%; height:100%; }
.graph-canvas svg .legend, .graph-canvas svg .background { display:none; }
.graph-canvas g.node:hover rect.box { filter:brightness(0.95); }
.graph-layers, .to-drawing { display:none; }
.graph-view.show-layers .graph-layers, .graph-view.show-layers .to-drawing { display:block; }
.graph-view.show-layers .graph-canvas, .graph-view.show-layers .to-layers, .graph-view.show-layers .ghelp { display:none; }
.layers { list-style:none; padding:0; margin:0; }
.layers > li { margin-bottom:.8rem; }
.layers h3 { font-size:13px; margin:.3rem 0; text-transform:uppercase; letter-spacing:.03em; color:#374151; }
.layers ul { list-style:none; padding:0; margin:0; display:grid; grid-template-columns:repeat(auto-fill, minmax(min(100%, 260px), 1fr)); gap:.4rem; }
.gitem { background:#fff; border:1px solid var(--line); border-left:4px solid #9aa3ad; border-radius:5px; padding:.35rem .5rem; min-width:0; }
.gitem.frontier { border-left-color:#1e8449; outline:2px dashed #1e8449; outline-offset:-1px; }
.gitem.critical { border-left-color:#c0392b; }
.gitem .gtitle { display:block; color:var(--text); text-decoration:none; overflow-wrap:anywhere; }
.gitem .sid { font-family:ui-monospace, monospace; font-weight:bold; }
.gitem .badges { margin-top:.2rem; align-items:center; }
.gitem .owner { font-size:12px; color:var(--muted); }
.gafter { font-size:12px; overflow-wrap:anywhere; }
.badge.crit { background:#c0392b; color:#fff; } .badge.ready { background:#1e8449; color:#fff; }
.badge.gstate { background:#6b7280; color:#fff; } .badge.gstate.state-ready { background:#2f9e44; } .badge.gstate.state-in_progress { background:#1c7ed6; }
.badge.gstate.state-blocked { background:#e03131; } .badge.gstate.state-stale { background:#f08c00; } .badge.gstate.state-reserved { background:#7950f2; }
@media (max-width: 700px) {
  .graph-view:not(.show-drawing) .graph-layers, .graph-view:not(.show-drawing) .to-drawing { display:block; }
  .graph-view:not(.show-drawing) .graph-canvas, .graph-view:not(.show-drawing) .to-layers, .graph-view:not(.show-drawing) .ghelp { display:none; }
  .graph-view .glegend { width:100%; }
  body[data-view="graph"] header { flex-wrap:wrap; }
  body[data-view="graph"] main { padding:.6rem; }
}
`

/**
 * Zoom and pan by changing the SVG's viewBox (kept at the canvas's aspect, so
 * the viewBox is exactly what shows); the view the person chose survives a
 * live update of the page.
 */
export const GRAPH_JS = String.raw`(() => {
  'use strict'
  let g = null
  let kept = null
  let mode = null
  const narrow = () => window.matchMedia('(max-width: 700px)').matches

  function showing() { return g && g.canvas.isConnected && g.canvas.offsetParent !== null }
  function sizeCanvas() {
    const top = g.canvas.getBoundingClientRect().top + window.scrollY
    g.canvas.style.height = Math.max(320, window.innerHeight - top - 12) + 'px'
  }
  function set(vb) {
    g.vb = vb
    g.svg.setAttribute('viewBox', vb.x + ' ' + vb.y + ' ' + vb.w + ' ' + vb.h)
  }
  function box(els) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity
    for (const el of els) {
      const b = el.getBBox()
      x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height)
    }
    return x0 === Infinity ? null : {x: x0, y: y0, w: x1 - x0, h: y1 - y0}
  }
  function fit(b) {
    const r = g.canvas.getBoundingClientRect()
    if (!b || !r.width || !r.height) return
    const pad = 12
    let w = b.w + pad * 2, h = b.h + pad * 2
    const aspect = r.width / r.height
    if (w / h < aspect) w = h * aspect
    else h = w / aspect
    set({x: b.x + b.w / 2 - w / 2, y: b.y + b.h / 2 - h / 2, w, h})
  }
  function fitAll() { kept = null; fit(g.full) }
  function zoom(f, cx, cy) {
    const r = g.canvas.getBoundingClientRect()
    const px = cx === undefined ? 0.5 : (cx - r.left) / r.width
    const py = cy === undefined ? 0.5 : (cy - r.top) / r.height
    const vb = g.vb
    const most = Math.max(g.full.w, g.full.h * r.width / r.height) * 3
    const w = Math.min(most, Math.max(160, vb.w / f))
    const h = w * r.height / r.width
    set({x: vb.x + px * vb.w - px * w, y: vb.y + py * vb.h - py * h, w, h})
    kept = g.vb
  }
  function pan(dx, dy) {
    const r = g.canvas.getBoundingClientRect()
    set({x: g.vb.x - dx * g.vb.w / r.width, y: g.vb.y - dy * g.vb.h / r.height, w: g.vb.w, h: g.vb.h})
    kept = g.vb
  }
  function critical() {
    const b = box(g.svg.querySelectorAll('g.node.critical'))
    if (b) { fit(b); kept = g.vb }
  }
  function toggle(layers) {
    const view = document.querySelector('.graph-view')
    if (!view) return
    mode = layers ? 'layers' : 'drawing'
    view.classList.toggle('show-layers', layers)
    view.classList.toggle('show-drawing', !layers)
    if (!layers) { if (g) g.ready = false; init() }
  }

  function init() {
    const canvas = document.querySelector('[data-graph-canvas]')
    const svg = canvas && canvas.querySelector('svg')
    if (!svg) { g = null; return }
    const view = document.querySelector('.graph-view')
    if (view && mode) { view.classList.toggle('show-layers', mode === 'layers'); view.classList.toggle('show-drawing', mode === 'drawing') }
    if (g && g.svg === svg && g.ready) return
    g = {canvas, svg, vb: null, full: null, ready: false}
    svg.removeAttribute('width')
    svg.removeAttribute('height')
    if (!showing()) return
    sizeCanvas()
    g.full = box([svg.querySelector('.graph-body')]) || {x: 0, y: 0, w: 100, h: 100}
    g.ready = true
    if (kept) set(kept)
    else fit(g.full)
    canvas.dataset.fitted = '1'
  }

  let drag = null
  document.addEventListener('pointerdown', (ev) => {
    if (!showing() || !g.canvas.contains(ev.target) || ev.button !== 0) return
    drag = {x: ev.clientX, y: ev.clientY, moved: false, id: ev.pointerId}
  })
  document.addEventListener('pointermove', (ev) => {
    if (!drag || ev.pointerId !== drag.id) return
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 5) return
    if (!drag.moved) { drag.moved = true; g.canvas.classList.add('dragging'); g.canvas.setPointerCapture(ev.pointerId) }
    pan(dx, dy)
    drag.x = ev.clientX; drag.y = ev.clientY
  })
  const end = (ev) => {
    if (!drag || ev.pointerId !== drag.id) return
    g.canvas.classList.remove('dragging')
    // A drag is not a click: the card under the pointer stays closed.
    if (drag.moved) window.addEventListener('click', (c) => { c.stopPropagation(); c.preventDefault() }, {capture: true, once: true})
    setTimeout(() => { drag = null }, 0)
  }
  document.addEventListener('pointerup', end)
  document.addEventListener('pointercancel', end)
  document.addEventListener('wheel', (ev) => {
    if (!showing() || !g.canvas.contains(ev.target)) return
    ev.preventDefault()
    zoom(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)), ev.clientX, ev.clientY)
  }, {passive: false})
  document.addEventListener('click', (ev) => {
    const b = ev.target instanceof Element ? ev.target.closest('button[data-graph]') : null
    if (!b) return
    const what = b.dataset.graph
    if (what === 'layers' || what === 'drawing') return toggle(what === 'layers')
    if (!showing()) return
    if (what === 'in') zoom(1.4)
    else if (what === 'out') zoom(1 / 1.4)
    else if (what === 'fit') fitAll()
    else if (what === 'critical') critical()
  })
  document.addEventListener('keydown', (ev) => {
    if (!document.querySelector('.graph-view') || ev.ctrlKey || ev.metaKey || ev.altKey) return
    const t = ev.target
    if (t instanceof Element && t.closest('input, textarea, select, [contenteditable]')) return
    if (ev.key === 'l') {
      const view = document.querySelector('.graph-view')
      const layersShown = view.classList.contains('show-layers') || (narrow() && !view.classList.contains('show-drawing'))
      toggle(!layersShown)
      return
    }
    if (!showing()) return
    const step = 60
    const acts = {'+': () => zoom(1.4), '=': () => zoom(1.4), '-': () => zoom(1 / 1.4), '0': fitAll, 'f': fitAll, 'c': critical,
      ArrowLeft: () => pan(step, 0), ArrowRight: () => pan(-step, 0), ArrowUp: () => pan(0, step), ArrowDown: () => pan(0, -step)}
    const act = acts[ev.key]
    if (!act) return
    ev.preventDefault()
    act()
  })
  window.addEventListener('resize', () => {
    if (!g) return init()
    if (!showing()) return
    if (!g.ready) return init()
    sizeCanvas()
    if (kept) { const c = {x: g.vb.x + g.vb.w / 2, y: g.vb.y + g.vb.h / 2}; fit({x: c.x - g.vb.w / 2, y: c.y - g.vb.h / 2, w: g.vb.w, h: g.vb.h}); kept = g.vb }
    else fit(g.full)
  })
  // A live update swaps the page's content: set the new drawing up as the old one was.
  new MutationObserver(() => { if (document.querySelector('[data-graph-canvas] svg') && (!g || g.svg !== document.querySelector('[data-graph-canvas] svg'))) init() })
    .observe(document.body, {childList: true, subtree: true})
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init)
  else init()
})()
`
