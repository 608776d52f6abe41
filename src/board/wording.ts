/**
 * Refusals in the board's own words. The use cases refuse with the CLI's
 * messages, which name commands and flags (`tasks check pass … --evidence`,
 * `use --force --reason "…"`) a person on the page cannot type anywhere.
 * The board answers a refused action with the same code and data, plus
 * `page`: a sentence about the card and what to do next on the board (and a
 * link when the next step is on another page). Codes without a sentence of
 * their own fall back to the CLI message with every command and flag taken
 * out. Pure: values in, values out.
 */

export interface PageWording {
  text: string
  /** Where the next step is (the card page), when it is not on this page. */
  href?: string
  label?: string
}

type Data = Record<string, unknown>

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The CLI message without its advice in commands and flags: clauses naming `tasks …`, a backticked command or a --flag are dropped. */
export function withoutCliAdvice(message: string): string {
  const clauses = message.split(/;\s+|\.\s+(?=[A-Z])|\s+\((?=or use|use )/)
  const kept = clauses.filter((c) => !/`|(^|\s)--[a-z]|\btasks [a-z]/.test(c))
  const text = (kept.length ? kept : [clauses[0]!.replace(/`[^`]*`/g, '').replace(/\s--[a-z][a-z-]*(\s+"[^"]*")?/g, '')]).join('; ').trim()
  return text.replace(/[\s;,(]+$/, '')
}

/**
 * The page's sentence for a refused action. `action` is what was asked
 * (claim, done, block, release, reopen, bulk, comment, …); `now` is the
 * board's clock (ISO time: whether a holder's lease ran out); `shortOf`
 * names a card the way the board shows it (its short id).
 */
export function pageWording(error: {code: string; message: string} & Data, action: string, now: string, shortOf: (id: string) => string = (id) => id): PageWording {
  const id = str(error.id)
  const card = id ? shortOf(id) : 'this card'
  const open = id ? {href: `/task/${id}`, label: `open ${card}`} : {}
  const owner = str(error.owner)
  const list = (items: unknown): string =>
    Array.isArray(items)
      ? items
          .map((x) => (x && typeof x === 'object' ? x as Data : {}))
          .map((x) => `${shortOf(String(x.id ?? '?'))}${x.status ? ` (${String(x.status).replace('_', ' ')})` : ''}`)
          .join(', ')
      : ''
  const w = ((): PageWording => {
    switch (error.code) {
      case 'already_claimed':
        return {text: `${owner ?? 'Someone else'} holds this card`}
      case 'not_owner':
        return {text: `${owner ?? 'Someone else'} holds this card${error.lease_expires && Date.parse(String(error.lease_expires)) < Date.parse(now) ? ' (their lease ran out: claim it to take it over)' : '; only they can move it'}`}
      case 'claim_taken_over':
      case 'stale_epoch':
        return {text: `${str(error.taken_over_by) ?? owner ?? 'Someone else'} took this card over; it is theirs now`}
      case 'blocked':
        return {text: `${owner ?? 'Someone'} blocked this card${str(error.note) ? `: ${error.note}` : ''}`}
      case 'checks_pending':
        return {text: 'Pass its checks first (open the card)', ...open}
      case 'checks_required':
        return {text: `This list wants an acceptance and a test check on every card before it is done: add ${Array.isArray(error.missing) ? error.missing.join(' and ') : 'them'} on the card page`, ...open}
      case 'waiting':
        return {text: `It waits on ${list(error.blocked_by) || 'other cards'}: finish ${Array.isArray(error.blocked_by) && error.blocked_by.length === 1 ? 'that' : 'those'} first`}
      case 'open_subitems':
        return action === 'claim' ? {text: `Its sub-items are the work: claim one of them (${list(error.subitems)})`, ...open} : {text: `Finish or cancel its sub-items first: ${list(error.subitems)}`, ...open}
      case 'reserved':
        return {text: `This card is reserved for ${str(error.assignee) ?? 'someone else'}`}
      case 'not_scheduled':
        return {text: `Not before ${String(error.scheduled ?? 'its scheduled date').slice(0, 16).replace('T', ' ')}`}
      case 'flagged':
        return {text: `${str(error.flagged_by) ?? 'Someone'} flagged this card: ${String(error.flag_reason ?? '')}. Deal with the flag first`.replace(/: \. /, '. '), ...open}
      case 'not_claimable':
      case 'not_open':
        return {text: `It is ${String(error.status ?? 'closed').replace('_', ' ')}: drag it back to Ready first to reopen it`}
      case 'already_done':
        return {text: `Already done${owner ? ` by ${owner}` : ''}`}
      case 'cancelled':
      case 'terminal':
        return {text: 'It was cancelled, which is final: add a new card instead'}
      case 'already_open':
        return {text: 'It is already open'}
      case 'not_claimed':
        return {text: 'Nobody holds this card: claim it first'}
      case 'parent_finished':
        return {text: `Its parent ${str(error.parent) ? shortOf(String(error.parent)) : ''} is ${String(error.status ?? 'finished')}: reopen the parent first`.replace('  ', ' ')}
      case 'claim_limit':
        return {text: 'You hold as many cards as this list allows: finish or release one first'}
      case 'not_admin':
        return {text: 'Only the list’s admins may do that'}
      case 'revision_mismatch':
      case 'edit_conflict':
        return {text: 'Someone changed this card since the page was loaded: look again and retry'}
      case 'empty_note':
        return {text: 'Say why it is blocked'}
      case 'note_too_long':
        return {text: 'That note is too long'}
      case 'board_busy':
      case 'cas_exhausted':
      case 'ref_locked':
        return {text: 'The list is busy and nothing was written: try again in a moment'}
      case 'task_not_found':
        return {text: 'That card is gone (removed, or the page is out of date)'}
      default:
        return {text: withoutCliAdvice(error.message)}
    }
  })()
  // A bulk action names the refused card (and wrote nothing); a single card's refusal is about the card the person moved.
  if (action === 'bulk' && id) return {...w, text: `${card}: ${w.text} — nothing was written`}
  return w
}
