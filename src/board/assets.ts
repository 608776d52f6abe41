/**
 * The board's only script and stylesheet, served from the CLI itself
 * (nothing is fetched from elsewhere). The script is plain browser
 * JavaScript: it sends actions with the start-up token in a header (again,
 * after the Retry-After it was given, when the board answered 503), shows a
 * refused action's message, loads more cards of a column, and swaps the page
 * body in place when the server reports that the list's ref moved
 * (Server-Sent Events on /events).
 */
export const BOARD_JS = String.raw`(() => {
  'use strict'
  const token = document.querySelector('meta[name="board-token"]')?.content || ''
  const flash = document.getElementById('flash')
  const live = document.getElementById('live')

  function say(text, kind) {
    flash.textContent = text
    flash.className = kind || 'error'
    flash.hidden = false
  }

  // The selected cards (ids), kept across live updates; the toolbar acts on them all at once.
  const selected = new Set()
  let lastError = null

  function syncSelection() {
    const boxes = [...document.querySelectorAll('input.select[data-id]')]
    const shown = new Set(boxes.map((b) => b.dataset.id))
    for (const id of [...selected]) if (!shown.has(id)) selected.delete(id)
    for (const box of boxes) {
      box.checked = selected.has(box.dataset.id)
      box.closest('article.card')?.classList.toggle('selected', box.checked)
    }
    const bar = document.querySelector('[data-bulkbar]')
    if (bar) {
      bar.hidden = selected.size === 0
      bar.querySelector('.bulk-count').textContent = selected.size + ' selected'
    }
  }

  async function act(action, payload) {
    lastError = null
    let res
    let data = null
    // A 503 ran nothing (the board's queue was full, or other writers kept winning): wait as told and send it
    // again, a few times, before showing the refusal.
    for (let attempt = 1; ; attempt++) {
      res = await fetch('/api/' + action, {
        method: 'POST',
        headers: {'Content-Type': 'application/json', 'X-Board-Token': token},
        body: JSON.stringify(payload),
      })
      data = null
      try { data = await res.json() } catch (e) { data = null }
      const wait = Number(res.headers.get('Retry-After'))
      if (res.status !== 503 || !(wait > 0) || attempt >= 4) break
      say('the board is busy; sending again in ' + Math.min(wait, 10) + ' s', 'muted')
      await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000))
    }
    if (!res.ok) {
      const err = (data && data.error) || {message: res.status + ' ' + res.statusText}
      lastError = err
      say(err.message + (err.code ? ' (' + err.code + ')' : ''), 'error')
      return null
    }
    flash.hidden = true
    return data
  }

  let refreshing = null
  let retry = null
  async function refresh() {
    if (refreshing) return refreshing
    refreshing = (async () => {
      try {
        const res = await fetch(location.href, {headers: {'X-Board-Partial': '1'}})
        if (!res.ok) return
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html')
        const next = doc.getElementById('main')
        const main = document.getElementById('main')
        if (next && main) {
          // Never throw away what the person typed: while a form holds unsent text, wait and try again.
          // (A card's selection box is not text: the selection is kept across the swap.)
          const dirty = [...main.querySelectorAll('input:not([type="checkbox"]), textarea')].some((el) => el.value !== el.defaultValue)
          if (dirty) {
            live.textContent = 'changes waiting (a form holds unsent text)'
            clearTimeout(retry)
            retry = setTimeout(refresh, 2000)
            return
          }
          main.replaceWith(document.importNode(next, true))
          syncSelection()
          live.textContent = 'live'
        }
      } finally {
        refreshing = null
      }
    })()
    return refreshing
  }

  document.addEventListener('click', async (ev) => {
    const target = ev.target instanceof Element ? ev.target : null
    if (!target) return
    const button = target.closest('button[data-action]')
    if (button) {
      ev.preventDefault()
      const action = button.dataset.action
      const payload = {id: button.dataset.id}
      if (action === 'block') {
        const note = prompt('Why is it blocked?')
        if (note === null) return
        payload.note = note
      }
      if (action === 'assign') {
        const who = prompt('Reserve for whom? (empty: nobody)')
        if (who === null) return
        payload.assignee = who.trim() || null
      }
      button.disabled = true
      try { if (await act(action, payload)) await refresh() } finally { button.disabled = false }
      return
    }
    const bulk = target.closest('button[data-bulk]')
    if (bulk) {
      ev.preventDefault()
      const action = bulk.dataset.bulk
      if (action === 'clear') {
        selected.clear()
        syncSelection()
        return
      }
      const payload = {action, ids: [...selected]}
      if (action === 'assign') {
        const who = prompt('Reserve the ' + selected.size + ' selected cards for whom? (empty: nobody)')
        if (who === null) return
        payload.assignee = who.trim() || null
      }
      if (action === 'tag') {
        const tags = prompt('Tags to add to the ' + selected.size + ' selected cards (comma-separated)')
        if (tags === null) return
        payload.tags = tags.split(',').map((t) => t.trim()).filter(Boolean)
      }
      for (const card of document.querySelectorAll('article.card.refused')) card.classList.remove('refused')
      bulk.disabled = true
      try {
        if (await act('bulk', payload)) {
          selected.clear()
          await refresh()
          syncSelection()
        } else if (lastError && lastError.id) {
          // The refused card stays selected and is marked: unselect it (or fix it) and send again.
          for (const card of document.querySelectorAll('article.card[data-id]')) if (card.dataset.id === lastError.id) card.classList.add('refused')
        }
      } finally {
        bulk.disabled = false
      }
      return
    }
    const more = target.closest('button.more')
    if (more) {
      const q = new URLSearchParams(more.dataset.filters || '')
      q.set('offset', more.dataset.offset)
      const res = await fetch('/column/' + encodeURIComponent(more.dataset.column) + '?' + q)
      if (res.ok) {
        const holder = document.createElement('div')
        holder.innerHTML = await res.text()
        const parent = more.parentElement
        more.remove()
        while (holder.firstChild) parent.appendChild(holder.firstChild)
        syncSelection()
      }
      return
    }
    const node = target.closest('svg g.node[data-id]')
    if (node) location.href = '/task/' + encodeURIComponent(node.getAttribute('data-id'))
  })

  document.addEventListener('change', (ev) => {
    const box = ev.target instanceof Element ? ev.target.closest('input.select[data-id]') : null
    if (!box) return
    if (box.checked) selected.add(box.dataset.id)
    else selected.delete(box.dataset.id)
    syncSelection()
  })

  document.addEventListener('submit', async (ev) => {
    const form = ev.target
    if (!(form instanceof HTMLFormElement) || !form.dataset.form) return
    ev.preventDefault()
    const data = Object.fromEntries(new FormData(form).entries())
    const kind = form.dataset.form
    const payload = {id: form.dataset.id}
    if (kind === 'add') {
      payload.title = data.title
      payload.tags = String(data.tags || '').split(',').map((s) => s.trim()).filter(Boolean)
      payload.priority = Number(data.priority)
      // Checks written with the card (a list with require_checks wants one of each).
      if (String(data.acceptance || '').trim()) payload.acceptance = [String(data.acceptance).trim()]
      if (String(data.test || '').trim()) payload.test = [String(data.test).trim()]
    } else if (kind === 'comment') {
      payload.text = data.text
    } else if (kind === 'edit') {
      payload.title = data.title
      payload.priority = Number(data.priority)
      payload.body = data.body
      payload.revision = Number(form.dataset.revision)
    }
    const done = await act(kind, payload)
    if (!done) return
    form.reset()
    // Sent: the form is emptied (an edit's shows the saved values once the page is fetched again).
    await refresh()
  })

  if (window.EventSource) {
    const source = new EventSource('/events')
    source.addEventListener('ref', (ev) => {
      const main = document.getElementById('main')
      if (main && main.dataset.commit === ev.data) return
      refresh()
    })
    source.onopen = () => { live.textContent = 'live'; live.className = 'ok' }
    source.onerror = () => { live.textContent = 'reconnecting…'; live.className = 'muted' }
  }
})()
`

export const BOARD_CSS = `
:root { --bg:#f6f7f9; --card:#fff; --line:#d8dce2; --text:#1d2129; --muted:#6b7280; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--text); }
header { display:flex; gap:1rem; align-items:center; padding:.5rem 1rem; background:#20262e; color:#fff; }
header .muted { color:#b7bec8; }
header nav a { color:#dfe5ec; margin-right:.8rem; text-decoration:none; }
header nav a.current { color:#fff; border-bottom:2px solid #7fb3ff; }
#live { margin-left:auto; font-size:12px; }
#live.ok::before { content:"● "; color:#4cd07d; }
main { padding:1rem; }
a { color:#1a5fb4; }
.muted { color:var(--muted); }
.notice { margin:.5rem 1rem; padding:.4rem .6rem; background:#fff7d6; border:1px solid #e8d48a; border-radius:4px; }
#flash { margin:.5rem 1rem; padding:.5rem .8rem; border-radius:4px; }
#flash.error { background:#fde2e1; border:1px solid #e5a5a2; color:#8a1c17; }
.toolbar { display:flex; flex-wrap:wrap; gap:1rem; align-items:center; margin-bottom:.8rem; }
.toolbar input, .toolbar select { padding:.25rem .4rem; margin-right:.3rem; border:1px solid var(--line); border-radius:4px; }
.kanban { display:grid; grid-template-columns:repeat(5, minmax(200px, 1fr)); gap:.8rem; align-items:start; }
.column { background:#eceff3; border-radius:6px; padding:.5rem; }
.column h2 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; margin:.2rem .2rem .5rem; }
.count { color:var(--muted); font-weight:normal; }
.card { background:var(--card); border:1px solid var(--line); border-left:4px solid #9aa3ad; border-radius:5px; padding:.45rem .55rem; margin-bottom:.5rem; }
.card.state-ready { border-left-color:#2f9e44; } .card.state-in_progress { border-left-color:#1c7ed6; }
.card.state-blocked { border-left-color:#e03131; } .card.state-stale { border-left-color:#f08c00; }
.card.state-done { border-left-color:#8ce99a; opacity:.85; } .card.state-deferred { border-left-color:#ffca28; border-style:dashed; } .card.state-failed { border-left-color:#ff8787; } .card.state-reserved { border-left-color:#9775fa; }
.card .head { display:flex; justify-content:space-between; font-size:12px; }
.card .sid { font-family:ui-monospace, monospace; font-weight:bold; text-decoration:none; }
.card .owner { color:var(--muted); }
.card .title { display:block; color:var(--text); text-decoration:none; margin:.15rem 0 .3rem; overflow-wrap:anywhere; }
.badges { display:flex; flex-wrap:wrap; gap:.25rem; }
.badge { font-size:11px; padding:0 .35rem; border-radius:9px; background:#eef1f5; color:#374151; }
.badge.tag { background:#e7f0ff; } .badge.deps, .badge.warn { background:#fff0d6; } .badge.flag { background:#ffe3e3; }
.badge.prio.p0 { background:#e03131; color:#fff; } .badge.prio.p1 { background:#f08c00; color:#fff; }
.note { font-size:12px; color:#8a1c17; margin-top:.25rem; }
.actions { margin-top:.35rem; display:flex; gap:.3rem; }
button { font:inherit; font-size:12px; padding:.15rem .5rem; border:1px solid #b8c0ca; background:#fff; border-radius:4px; cursor:pointer; }
button:hover { background:#f0f4fa; }
button.more { width:100%; color:var(--muted); }
.task { max-width:900px; }
.task h1 .sid { font-family:ui-monospace, monospace; color:var(--muted); }
.fields { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; }
.fields dt { color:var(--muted); }
.fields dd { margin:0; }
.related { display:grid; grid-template-columns:repeat(3, 1fr); gap:1rem; }
.md { background:#fff; border:1px solid var(--line); border-radius:5px; padding:.2rem .8rem; overflow-wrap:anywhere; }
.md pre { overflow:auto; background:#f4f5f7; padding:.5rem; }
.comment { margin-bottom:.6rem; }
form textarea, form input { font:inherit; }
.task form textarea, .task form input { width:100%; max-width:900px; }
.toolbar form { display:flex; flex-wrap:wrap; gap:.3rem; align-items:center; }
.toolbar input[name="title"] { width:22rem; }
.toolbar input[name="acceptance"], .toolbar input[name="test"] { width:12rem; }
form[data-form="comment"], details { margin:.6rem 0; }
.actions.big button { font-size:13px; }
.history, .timeline { list-style:none; padding:0; }
.history li, .timeline li { padding:.2rem 0; border-bottom:1px solid #e6e9ee; }
.graph { overflow:auto; background:#fff; border:1px solid var(--line); border-radius:6px; }
.graph g.node { cursor:pointer; }
.bulk { display:flex; gap:.4rem; align-items:center; margin:0 0 .8rem; padding:.35rem .6rem; background:#e7f0ff; border:1px solid #b6cdf5; border-radius:5px; }
.bulk[hidden] { display:none; }
.bulk-count { font-weight:bold; margin-right:.4rem; }
.card .head input.select { margin:0 .35rem 0 0; vertical-align:middle; }
.card.selected { outline:2px solid #7fb3ff; }
.card.refused { outline:2px solid #e03131; }
`

