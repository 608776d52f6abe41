/** Text for people from the hooks layer's results (strings arrive neutralized by base-command). */
import type {HooksResult, ServerHookResult} from './install'
import type {VerifyResult} from './verify'
import type {EventLine} from './events'

export function renderHooks(r: HooksResult, verb: string): string {
  const lines = [`hooks directory: ${r.hooks_dir}${r.hooks_path_config ? ' (core.hooksPath)' : ''}`]
  for (const h of r.hooks) {
    const what = h.state === 'ours' ? `${verb}${h.chained ? `, runs ${h.chained} first` : ''}` : h.state === 'foreign' ? 'not ours (left alone)' : 'not installed'
    lines.push(`  ${h.name.padEnd(19)} ${what}`)
  }
  if (r.command) lines.push(`runs: ${r.command}`)
  if (r.vendored) lines.push('vendored: commit the hooks directory; each clone runs `tasks hooks install --copy` once (sets core.hooksPath); `tasks` must be on PATH')
  if (r.queued !== undefined && r.queued > 0) lines.push(`queued: ${r.queued} entr${r.queued === 1 ? 'y' : 'ies'} waiting for the background worker`)
  if (r.failures) {
    if (r.failures.length === 0) lines.push('no failures logged')
    else {
      lines.push('last failures:')
      for (const f of r.failures) lines.push(`  ${f.time} ${f.hook}${f.commit ? ` ${f.commit.slice(0, 10)}` : ''}: ${f.message} [${f.code}]`)
    }
  }
  return `${lines.join('\n')}\n`
}

export function renderServerHook(r: ServerHookResult): string {
  const h = r.hook
  return h.state === 'ours'
    ? `pre-receive guard installed in ${h.path}${h.chained ? ` (runs ${h.chained} first)` : ''}\n`
    : `no pre-receive guard in ${h.path}${h.state === 'foreign' ? ' (the hook there is not ours; left alone)' : ''}\n`
}

export function renderVerify(r: VerifyResult): string {
  if (r.ok) return `ok: ${r.commits} commit(s) of ${r.ref} follow the rules${r.unjudged.length ? ` (${r.unjudged.length} file(s) of kinds not judged)` : ''}\n`
  const lines = [`git-tasks refused the update of ${r.ref}:`]
  for (const f of r.refusals) lines.push(`  commit ${f.commit.slice(0, 12)}${f.path ? ` ${f.path}` : ''}: [${f.rule}] ${f.message}`)
  return `${lines.join('\n')}\n`
}

export function renderEvent(e: EventLine): string {
  if ('event' in e) return `${e.time} ${e.commit.slice(0, 10)} ${e.event} ${e.revision === null ? e.id : `${e.id}@${e.revision}`} (${e.status})\n`
  const tasks = e.tasks.map((t) => (t.revision === null ? t.id : `${t.id}@${t.revision}`)).join(' ')
  return `${e.time} ${e.commit.slice(0, 10)} ${e.op} ${tasks} by ${e.actor}\n`
}
