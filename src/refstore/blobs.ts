/**
 * Batch reads for `tasks verify`: many blobs through one `git cat-file
 * --batch`, the changed paths of many commits through one `git diff-tree
 * --stdin`, and the signature status of many commits through one `git log`.
 */
import {spawn} from 'node:child_process'
import {git} from './git-process'

/** Contents of blobs by id (missing or not a blob: absent from the map). Each is cut at `limit` bytes. */
export function readBlobs(cwd: string, ids: readonly string[], limit = 2 * 1024 * 1024 + 1): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)]
  const out = new Map<string, Buffer>()
  if (unique.length === 0) return Promise.resolve(out)
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], {cwd, stdio: ['pipe', 'pipe', 'ignore']})
    const chunks: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => chunks.push(b))
    child.on('error', reject)
    child.on('close', () => {
      const all = Buffer.concat(chunks)
      let pos = 0
      for (const id of unique) {
        const nl = all.indexOf(10, pos)
        if (nl === -1) break
        const header = all.subarray(pos, nl).toString('utf8').split(' ')
        pos = nl + 1
        if (header[1] === 'missing' || header.length < 3) continue
        const size = Number(header[2])
        if (header[1] === 'blob') out.set(id, all.subarray(pos, pos + Math.min(size, limit)))
        pos += size + 1
      }
      resolve(out)
    })
    child.stdin.end(`${unique.join('\n')}\n`)
  })
}

export interface ChangedPath {
  path: string
  /** Blob ids before and after (null: absent). */
  before: string | null
  after: string | null
  /** Mode after (null: deleted). */
  mode: string | null
}

/** The paths each (commit, parent) pair changes, by commit. */
export async function changedPaths(cwd: string, pairs: ReadonlyArray<{commit: string; parent: string}>): Promise<Map<string, ChangedPath[]>> {
  const out = new Map<string, ChangedPath[]>()
  if (pairs.length === 0) return out
  const r = await git(['diff-tree', '-r', '--no-renames', '-z', '--stdin'], {cwd, input: `${pairs.map((p) => `${p.commit} ${p.parent}`).join('\n')}\n`})
  if (r.code !== 0) throw new Error(`git diff-tree failed: ${r.stderr.trim()}`)
  // -z: "<commit>\0" headers, then ":<modes> <ids> <status>\0<path>\0" records.
  const parts = r.stdout.split('\0')
  let current: ChangedPath[] | null = null
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    if (!p) continue
    if (p.startsWith(':')) {
      const [oldMode, newMode, oldId, newId] = p.slice(1).split(' ') as [string, string, string, string]
      const path = parts[++i] ?? ''
      const zero = (s: string) => /^0+$/.test(s)
      current?.push({path, before: zero(oldId) ? null : oldId, after: zero(newId) ? null : newId, mode: zero(newMode) ? null : newMode})
      void oldMode
    } else {
      current = []
      out.set(p.trim(), current)
    }
  }
  return out
}

export interface SignatureStatus {
  /** git's %G?: G good, B bad, U good but untrusted key, X/Y expired, R revoked, E cannot check, N none. */
  status: string
  /** %GS: the signer (an ssh principal, a gpg user id). */
  signer: string
  /** %GF: the key's fingerprint. */
  fingerprint: string
}

/** Signature status of commits, checked by git with the given extra config (`-c key=value`). */
export async function signatureStatus(cwd: string, commits: readonly string[], config: Record<string, string>): Promise<Map<string, SignatureStatus>> {
  const out = new Map<string, SignatureStatus>()
  if (commits.length === 0) return out
  const c = Object.entries(config).flatMap(([k, v]) => ['-c', `${k}=${v}`])
  const r = await git([...c, 'log', '--no-walk=unsorted', '--stdin', '--format=%H%x1f%G?%x1f%GS%x1f%GF%x1e'], {cwd, input: `${commits.join('\n')}\n`})
  for (const rec of r.stdout.split('\x1e')) {
    const [h, status, signer, fingerprint] = rec.trim().split('\x1f')
    if (h) out.set(h, {status: status ?? 'N', signer: signer ?? '', fingerprint: fingerprint ?? ''})
  }
  return out
}
