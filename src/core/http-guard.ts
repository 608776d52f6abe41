/**
 * The checks the two local HTTP servers (`tasks board`, `tasks mcp --http`)
 * make before anything else: is the address they listen on loopback (then
 * the Host header must name it: no DNS rebinding), is a request addressed to
 * it, and does a token match without leaking its length by timing. Pure.
 */
import {timingSafeEqual} from 'node:crypto'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i

/** Whether listening on `host` keeps the server on this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host)
}

/** Whether a request's Host header names the loopback server listening on `listenHost`:`port`. */
export function addressedToLoopback(hostHeader: string | undefined, listenHost: string, port: number): boolean {
  const host = (hostHeader ?? '').toLowerCase()
  const own = listenHost.toLowerCase()
  // An IPv6 address is written in brackets in a Host header.
  const ownAuthority = own.includes(':') && !own.startsWith('[') ? `[${own}]` : own
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${ownAuthority}:${port}`].includes(host)
}

/** Constant-time comparison of two secrets (a different length is simply not the same). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
