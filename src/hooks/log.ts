/**
 * The failure log of the hooks' background work:
 * `<git common dir>/git-tasks/hooks.log`, one JSON object per line
 * (time, hook, commit, code, message). `tasks hooks status` shows the
 * newest. The file is cut to its newest lines when it grows past 64 KiB.
 */
import {appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export interface HookFailure {
  time: string
  hook: string
  commit: string | null
  code: string
  message: string
}

const MAX_BYTES = 64 * 1024
const KEEP_LINES = 200

export function hookDir(commonDir: string): string {
  return join(commonDir, 'git-tasks')
}

export function logPath(commonDir: string): string {
  return join(hookDir(commonDir), 'hooks.log')
}

export function logFailure(commonDir: string, failure: HookFailure): void {
  try {
    mkdirSync(hookDir(commonDir), {recursive: true})
    const file = logPath(commonDir)
    appendFileSync(file, `${JSON.stringify(failure)}\n`)
    if (statSync(file).size > MAX_BYTES) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
      writeFileSync(file, `${lines.slice(-KEEP_LINES).join('\n')}\n`)
    }
  } catch {
    // Logging must never make the background work fail louder than it did.
  }
}

export function readFailures(commonDir: string, limit: number): HookFailure[] {
  let text: string
  try {
    text = readFileSync(logPath(commonDir), 'utf8')
  } catch {
    return []
  }
  const out: HookFailure[] = []
  for (const line of text.split('\n').filter(Boolean).slice(-limit)) {
    try {
      const f = JSON.parse(line) as HookFailure
      if (f && typeof f.message === 'string') out.push({time: String(f.time), hook: String(f.hook), commit: f.commit ?? null, code: String(f.code), message: f.message})
    } catch {
      // A torn line (two writers at once) is skipped.
    }
  }
  return out
}
