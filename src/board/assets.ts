/**
 * The board's only script and stylesheet, served from the CLI itself
 * (nothing is fetched from elsewhere). The script is plain browser
 * JavaScript: it sends actions with the start-up token in a header (again,
 * after the Retry-After it was given, when the board answered 503), shows a
 * refused action in the board's own words (the server's `page` wording,
 * never the CLI's commands and flags), loads more cards of a column, and
 * swaps the page body in place when the server reports that the list's ref
 * moved (Server-Sent Events on /events). Cards move between columns by
 * drag-and-drop (HTML5 drag events; a long press and drag on a touch
 * screen) or by the keyboard (Shift+←/→, and c, d, b, r), through the same
 * actions as the buttons; a refused move puts the card back where it was.
 */
export const BOARD_JS = String.raw`(() => {
  'use strict'
  const token = document.querySelector('meta[name="board-token"]')?.content || ''
  const flash = document.getElementById('flash')
  const live = document.getElementById('live')

  function say(text, kind) {
    flash.textContent = text
    flash.className = kind || 'error'
    flash.dataset.code = ''
    flash.hidden = false
  }

  // A refusal as the board words it (the server's "page"), with a link when the next step is on another page.
  function sayRefusal(err) {
    const page = err.page || {text: err.message}
    say(page.text, 'error')
    flash.dataset.code = err.code || ''
    if (page.href) {
      const a = document.createElement('a')
      a.href = page.href
      a.textContent = page.label || 'open the card'
      flash.append(' — ', a)
    }
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
      sayRefusal(err)
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
          // Nor pull a card from under a drag in progress.
          if (document.body.classList.contains('is-dragging')) {
            clearTimeout(retry)
            retry = setTimeout(refresh, 1000)
            return
          }
          if (dirty) {
            live.textContent = 'changes waiting (a form holds unsent text)'
            clearTimeout(retry)
            retry = setTimeout(refresh, 2000)
            return
          }
          const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('article.card[data-id]') : null
          main.replaceWith(document.importNode(next, true))
          if (focused) focusCard(cardById(focused.dataset.id))
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


  // ------------------------------------------------------------ moving cards between columns
  const columnTitle = (key) => document.querySelector('section.column[data-column="' + key + '"] h2')?.firstChild?.textContent.trim() || key
  const cardById = (id) => [...document.querySelectorAll('article.card[data-id]')].find((c) => c.dataset.id === id) || null
  function focusCard(card) {
    if (!card) return
    card.focus({preventScroll: true})
    card.scrollIntoView({block: 'nearest', inline: 'nearest'})
  }
  function flashCard(card, cls) {
    card.classList.add(cls)
    setTimeout(() => card.classList.remove(cls), 2500)
  }
  let moving = false

  // Drop a card on a column: the action the server listed for it (data-moves), or the reason there is none.
  async function moveCard(card, to) {
    if (!card || moving) return
    const from = card.closest('section.column')?.dataset.column
    if (!to || from === to) return
    let moves = {}
    try { moves = JSON.parse(card.dataset.moves || '{}') } catch (e) { moves = {} }
    const move = moves[to]
    if (!move) return
    if (move.startsWith('!')) {
      say(move.slice(1), 'error')
      flash.dataset.code = 'no_move'
      flashCard(card, 'refused')
      return
    }
    const payload = {id: card.dataset.id}
    if (move === 'block') {
      const note = prompt('Why is ' + (card.dataset.short || 'this card') + ' blocked?')
      if (note === null) return
      payload.note = note
    }
    // Shown where it was dropped while the board writes; put back where it was when the move is refused.
    const home = card.parentElement
    const after = card.nextSibling
    const target = document.querySelector('section.column[data-column="' + to + '"] .cards')
    if (target) target.insertBefore(card, target.querySelector('article.card'))
    card.classList.add('moving')
    moving = true
    let done = null
    try { done = await act(move, payload) } finally { moving = false; card.classList.remove('moving') }
    if (done) {
      await refresh()
      const moved = cardById(payload.id)
      if (moved && document.activeElement === document.body) focusCard(moved)
      return
    }
    // The page was swapped meanwhile (a live update): the card's place is the server's again.
    if (!home || !home.isConnected) return void refresh()
    home.insertBefore(card, after && after.parentNode === home ? after : null)
    flashCard(card, 'refused')
    focusCard(card)
  }

  let dragging = null
  const clearTargets = () => { for (const c of document.querySelectorAll('section.column.drop-target')) c.classList.remove('drop-target') }
  const columnAt = (el) => (el instanceof Element ? el.closest('section.column[data-column]') : null)
  document.addEventListener('dragstart', (ev) => {
    const card = ev.target instanceof Element ? ev.target.closest('article.card[draggable="true"]') : null
    if (!card || moving) return
    dragging = card
    ev.dataTransfer.setData('text/plain', card.dataset.id)
    ev.dataTransfer.effectAllowed = 'move'
    card.classList.add('dragging')
    document.body.classList.add('is-dragging')
  })
  document.addEventListener('dragend', () => {
    if (dragging) dragging.classList.remove('dragging')
    dragging = null
    clearTargets()
    document.body.classList.remove('is-dragging')
  })
  document.addEventListener('dragover', (ev) => {
    const col = dragging && columnAt(ev.target)
    if (!col) return
    ev.preventDefault()
    ev.dataTransfer.dropEffect = 'move'
    if (!col.classList.contains('drop-target')) { clearTargets(); col.classList.add('drop-target') }
  })
  document.addEventListener('drop', (ev) => {
    const col = dragging && columnAt(ev.target)
    if (!col) return
    ev.preventDefault()
    const card = dragging
    clearTargets()
    void moveCard(card, col.dataset.column)
  })

  // Touch screens send no drag events: a long press on a card picks it up, the finger carries it, lifting drops it.
  let touch = null
  document.addEventListener('pointerdown', (ev) => {
    if (ev.pointerType !== 'touch' || moving) return
    const card = ev.target instanceof Element ? ev.target.closest('article.card[draggable="true"]') : null
    if (!card || ev.target.closest('a, button, input')) return
    touch = {card, x: ev.clientX, y: ev.clientY, live: false, timer: setTimeout(() => {
      if (!touch) return
      touch.live = true
      card.classList.add('dragging')
      document.body.classList.add('is-dragging')
      if (navigator.vibrate) navigator.vibrate(10)
    }, 450)}
  })
  document.addEventListener('pointermove', (ev) => {
    if (!touch || ev.pointerType !== 'touch') return
    if (!touch.live) {
      // The finger moved before the long press: a scroll, not a drag.
      if (Math.abs(ev.clientX - touch.x) + Math.abs(ev.clientY - touch.y) > 10) { clearTimeout(touch.timer); touch = null }
      return
    }
    ev.preventDefault()
    const col = columnAt(document.elementFromPoint(ev.clientX, ev.clientY))
    clearTargets()
    if (col) col.classList.add('drop-target')
  }, {passive: false})
  const endTouch = (ev, drop) => {
    if (!touch || ev.pointerType !== 'touch') return
    const t = touch
    touch = null
    clearTimeout(t.timer)
    if (!t.live) return
    t.card.classList.remove('dragging')
    document.body.classList.remove('is-dragging')
    clearTargets()
    const col = drop ? columnAt(document.elementFromPoint(ev.clientX, ev.clientY)) : null
    if (col) void moveCard(t.card, col.dataset.column)
  }
  document.addEventListener('pointerup', (ev) => endTouch(ev, true))
  document.addEventListener('pointercancel', (ev) => endTouch(ev, false))
  document.addEventListener('touchmove', (ev) => { if (touch && touch.live) ev.preventDefault() }, {passive: false})
  document.addEventListener('contextmenu', (ev) => { if (touch) ev.preventDefault() })

  // ------------------------------------------------------------ keyboard
  const typing = (el) => el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))
  const help = () => document.getElementById('shortcuts')
  function toggleHelp(show) {
    const h = help()
    if (!h) return
    h.hidden = show === undefined ? !h.hidden : !show
    if (!h.hidden) h.querySelector('button')?.focus()
  }
  const columnKeys = () => [...document.querySelectorAll('section.column[data-column]')].map((c) => c.dataset.column)
  const cardsIn = (key) => [...document.querySelectorAll('section.column[data-column="' + key + '"] article.card')]
  function focusColumn(from, step) {
    const keys = columnKeys()
    let i = keys.indexOf(from?.closest('section.column')?.dataset.column)
    const row = from ? cardsIn(keys[i]).indexOf(from) : 0
    for (let n = 0; n < keys.length; n++) {
      i += step
      if (i < 0 || i >= keys.length) return
      const cards = cardsIn(keys[i])
      if (cards.length) return focusCard(cards[Math.min(row, cards.length - 1)])
    }
  }
  function focusField(id) {
    const el = document.getElementById(id)
    if (!el) return false
    el.focus()
    if (el.select) el.select()
    return true
  }
  const SHORTCUT_MOVES = {c: 'in_progress', d: 'done', b: 'blocked', r: 'ready'}
  const SHORTCUT_ACTIONS = {c: 'claim', d: 'done', b: 'block'}

  document.addEventListener('keydown', async (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return
    const active = document.activeElement
    if (ev.key === 'Escape') {
      if (help() && !help().hidden) { toggleHelp(false); ev.preventDefault(); return }
      if (typing(active)) { active.blur(); return }
      if (document.body.dataset.view !== 'board') location.href = '/'
      return
    }
    if (typing(active)) return
    const key = ev.key
    if (key === '?') { ev.preventDefault(); toggleHelp(); return }
    if (help() && !help().hidden) return
    if (key === '/') {
      ev.preventDefault()
      if (!focusField('filter-q')) location.href = '/'
      return
    }
    if (key === 'n') {
      ev.preventDefault()
      if (!focusField('add-title')) location.href = '/#add'
      return
    }
    if (key === 'g' && !ev.shiftKey) { location.href = '/graph'; return }
    if (key === 'a' && !ev.shiftKey) { location.href = '/activity'; return }
    const view = document.body.dataset.view
    if (view === 'task') {
      // On a card page the moves act on the card shown.
      const id = document.querySelector('article.task[data-id]')?.dataset.id
      const action = SHORTCUT_ACTIONS[key]
      if (!id || !action) return
      ev.preventDefault()
      const payload = {id}
      if (action === 'block') {
        const note = prompt('Why is it blocked?')
        if (note === null) return
        payload.note = note
      }
      if (await act(action, payload)) await refresh()
      return
    }
    if (view !== 'board') return
    const card = active instanceof Element ? active.closest('article.card') : null
    const onCard = card && active === card
    if (key === 'j' || key === 'k' || ((key === 'ArrowDown' || key === 'ArrowUp') && (onCard || active === document.body))) {
      ev.preventDefault()
      if (!card) return focusCard(document.querySelector('.kanban article.card'))
      const cards = cardsIn(card.closest('section.column').dataset.column)
      const i = cards.indexOf(card) + (key === 'j' || key === 'ArrowDown' ? 1 : -1)
      if (i >= 0 && i < cards.length) focusCard(cards[i])
      return
    }
    if ((key === 'ArrowLeft' || key === 'ArrowRight') && ev.shiftKey && card) {
      ev.preventDefault()
      const keys = columnKeys()
      const to = keys[keys.indexOf(card.closest('section.column').dataset.column) + (key === 'ArrowLeft' ? -1 : 1)]
      if (to) await moveCard(card, to)
      return
    }
    if (key === 'h' || key === 'l' || ((key === 'ArrowLeft' || key === 'ArrowRight') && (onCard || active === document.body))) {
      ev.preventDefault()
      if (!card) return focusCard(document.querySelector('.kanban article.card'))
      focusColumn(card, key === 'h' || key === 'ArrowLeft' ? -1 : 1)
      return
    }
    if (!card) return
    if (key === 'Enter' && onCard) {
      ev.preventDefault()
      location.href = card.querySelector('a.title').href
      return
    }
    if (key === 'x') {
      const box = card.querySelector('input.select')
      if (box) { box.checked = !box.checked; box.dispatchEvent(new Event('change', {bubbles: true})) }
      return
    }
    const to = SHORTCUT_MOVES[key]
    if (to) {
      ev.preventDefault()
      // r: back to todo, which is Ready or Waiting (the card lands where its dependencies put it).
      await moveCard(card, to === 'ready' && card.closest('section.column').dataset.column === 'ready' ? 'waiting' : to)
    }
  })
  document.addEventListener('click', (ev) => {
    const t = ev.target instanceof Element ? ev.target : null
    if (!t) return
    if (t.closest('[data-shortcuts]')) { ev.preventDefault(); toggleHelp(); return }
    const focus = t.closest('a[data-focus]')
    if (focus && focusField(focus.dataset.focus)) ev.preventDefault()
    const h = help()
    if (h && !h.hidden && t === h) toggleHelp(false)
  })
  if (location.hash === '#add') focusField('add-title')

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
header { display:flex; flex-wrap:wrap; gap:.3rem 1rem; align-items:center; padding:.5rem 1rem; background:#20262e; color:#fff; }
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
.kanban { display:grid; grid-template-columns:repeat(5, minmax(200px, 1fr)); gap:.8rem; align-items:start; overflow-x:auto; scroll-snap-type:x mandatory; overscroll-behavior-x:contain; }
.column { scroll-snap-align:start; min-width:0; }
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
.task { max-width:1280px; }
.task h1 { margin:.2rem 0; overflow-wrap:anywhere; }
.crumbs { margin:0; }
.task-layout { display:grid; grid-template-columns:minmax(0, 1fr) minmax(260px, 340px); gap:1.5rem; align-items:start; }
.task-main { min-width:0; }
.side { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem; min-width:0; overflow-wrap:anywhere; }
.side h2 { font-size:12px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:.9rem 0 .3rem; }
.side ul { margin:0; padding-left:1.1rem; }
.side .actions.big { flex-wrap:wrap; margin:0 0 .6rem; }
.checks { list-style:none; padding-left:0 !important; }
.checks li { margin-bottom:.3rem; }
.evidence { font-size:12px; }
.badge.ok { background:#d3f9d8; }
.thread { margin-top:1rem; }
.composer { display:flex; flex-direction:column; gap:.3rem; align-items:flex-start; }
.edit summary, .history-section summary { cursor:pointer; color:var(--muted); }
@media (max-width: 760px) {
  /* One column: the actions under the title, then description, thread and composer, then the properties. */
  .task-layout { grid-template-columns:minmax(0, 1fr); gap:1rem; }
  .side { display:contents; }
  .side .actions.big { order:-1; margin:0; }
  .side .props { order:1; background:#fff; border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem; min-width:0; }
  .side .props > h2:first-child, .side .props > dl:first-child { margin-top:0; }
}
.task h1 .sid { font-family:ui-monospace, monospace; color:var(--muted); }
.fields { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; }
.fields dt { color:var(--muted); }
.fields dd { margin:0; }
.empty-state { background:#fff; border:1px dashed #b8c0ca; border-radius:8px; padding:1rem 1.2rem; margin:0 0 1rem; }
.empty-state h2 { margin:0 0 .3rem; font-size:18px; }
.empty-state p { margin:0; }
.empty-hint { color:var(--muted); font-size:12px; margin:.2rem .2rem .6rem; padding:.6rem; border:1px dashed #cfd5dd; border-radius:5px; text-align:center; }
.cards .empty-hint:not(:only-child) { display:none; }
.tip { font-size:12px; margin-top:.6rem; }
kbd { font:11px ui-monospace, monospace; padding:0 .3rem; border:1px solid #b8c0ca; border-bottom-width:2px; border-radius:3px; background:#fff; color:var(--text); }
header button.keys { margin-left:0; background:transparent; color:#dfe5ec; border-color:#58606b; border-radius:50%; width:1.6rem; padding:0; }
.card[draggable="true"] { cursor:grab; }
.card:focus { outline:2px solid #1c7ed6; outline-offset:1px; }
.card.dragging { opacity:.45; }
.card.moving { opacity:.6; }
.is-dragging .column { outline:2px dashed transparent; }
.column.drop-target { outline:2px dashed #1c7ed6; background:#e3eefc; }
.card.refused { animation:shake .3s; }
@keyframes shake { 25% { transform:translateX(-4px); } 75% { transform:translateX(4px); } }
.shortcuts { position:fixed; inset:0; background:rgba(20,24,30,.45); display:flex; align-items:center; justify-content:center; z-index:10; padding:1rem; }
.shortcuts[hidden] { display:none; }
.shortcuts .panel { background:#fff; border-radius:8px; padding:1rem 1.2rem; max-width:34rem; width:100%; max-height:90vh; overflow:auto; }
.shortcuts dl { display:grid; grid-template-columns:max-content 1fr; gap:.3rem 1rem; }
.shortcuts dd { margin:0; }
#flash a { color:inherit; font-weight:bold; }
@media (max-width: 640px) {
  main { padding:.6rem; }
  header { padding:.4rem .6rem; }
  .toolbar { gap:.5rem; }
  .toolbar form { width:100%; }
  .toolbar input, .toolbar select { margin-right:0; min-width:0; flex:1 1 8rem; }
  .toolbar input[name="title"] { flex-basis:100%; width:auto; }
  .kanban { grid-template-columns:repeat(5, 85%); }
  .fields { grid-template-columns:max-content minmax(0, 1fr); }
}
.md { background:#fff; border:1px solid var(--line); border-radius:5px; padding:.2rem .8rem; overflow-wrap:anywhere; }
.md pre { overflow:auto; background:#f4f5f7; padding:.5rem; }
.comment { margin-bottom:.6rem; }
form textarea, form input { font:inherit; }
.task form textarea, .task form input { width:100%; max-width:900px; }
.toolbar form { display:flex; flex-wrap:wrap; gap:.3rem; align-items:center; }
.toolbar input[name="title"] { width:22rem; max-width:100%; }
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

