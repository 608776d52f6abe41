/**
 * Reading what a user hands in as a file or a stream, bounded: at most the
 * limit and one byte more are ever held, so `/dev/zero` or an endless pipe
 * stops at the limit instead of filling memory. The command line's files
 * (--body-file, comment --file, batch; through the engine) and `import`
 * read this way.
 */
import {readSync} from 'node:fs'

const CHUNK = 64 * 1024

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** At most `limit` + 1 bytes of `fd`: more than `limit` means the input is too large. */
export function readCapped(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = []
  let total = 0
  while (total <= limit) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total))
    let n: number
    try {
      n = readSync(fd, chunk, 0, chunk.length, null)
    } catch (error) {
      // A non-blocking standard input with nothing yet: wait for the writer.
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
        pause(5)
        continue
      }
      if ((error as NodeJS.ErrnoException).code === 'EOF') break
      throw error
    }
    if (n === 0) break
    chunks.push(chunk.subarray(0, n))
    total += n
  }
  return Buffer.concat(chunks, total)
}
