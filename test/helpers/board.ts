/**
 * Helpers for the board's browser tests and the screenshot script: start
 * `tasks board` as its own process (the built CLI, like a person would) and
 * read the address it prints; launch Debian's Chromium through
 * playwright-core (it cannot download a browser here) with a throwaway
 * profile and nothing that reaches the network.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {chromium, type Browser, type Locator} from 'playwright-core'

export interface StartedBoard {
  url: string
  port: number
  token: string
  actor: string
  origin: string
  /** The JSON line the command printed at start, as printed. */
  printed: Record<string, unknown>
  /** What the board wrote on stderr so far. */
  stderr(): string
  child: ChildProcess
  stop(): Promise<void>
}

/** Chromium's path: CHROMIUM_PATH, else Debian's. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p))
  const found = candidates.find((p) => existsSync(p))
  if (!found) throw new Error('no Chromium found: install Debian\'s chromium package (.ci/run does) or set CHROMIUM_PATH')
  return found
}

/** A headless Chromium that stays off the network (its own temporary profile). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  })
}

/** Start `tasks board --port 0 --json` in `cwd` and wait for the address it prints. */
export function startBoard(bin: string, cwd: string, env: NodeJS.ProcessEnv, extraArgs: string[] = []): Promise<StartedBoard> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'board', '--port', '0', '--json', ...extraArgs], {cwd, env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    const timer = setTimeout(() => reject(new Error(`tasks board did not start: ${err}`)), 30_000)
    child.stderr!.on('data', (b) => (err += b))
    child.on('exit', (code) => reject(new Error(`tasks board exited ${code}: ${err}`)))
    child.stdout!.on('data', (b) => {
      out += b
      const nl = out.indexOf('\n')
      if (nl === -1) return
      clearTimeout(timer)
      const printed = JSON.parse(out.slice(0, nl)) as Record<string, unknown>
      const info = printed as unknown as {url: string; port: number; token: string; actor: string}
      resolve({
        ...info,
        printed,
        stderr: () => err,
        origin: `http://127.0.0.1:${info.port}`,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done()
            child.removeAllListeners('exit')
            child.once('exit', () => done())
            child.kill('SIGTERM')
          }),
      })
    })
  })
}

/**
 * Where the element a locator finds is drawn, once it is visible (attached
 * and laid out). A page of the board swaps its content when the ref moves,
 * and a page opened just after a write may get such a live update at once:
 * an element found and then replaced before it is measured has no box
 * (playwright's boundingBox() answers null), so it is found again.
 */
export async function boxOf(locator: Locator, timeout = 10_000): Promise<{x: number; y: number; width: number; height: number}> {
  const until = Date.now() + timeout
  for (;;) {
    await locator.waitFor({state: 'visible', timeout: Math.max(1, until - Date.now())})
    const box = await locator.boundingBox()
    if (box) return box
    if (Date.now() >= until) throw new Error(`no box for ${String(locator)} within ${timeout} ms`)
  }
}
