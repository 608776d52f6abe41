/**
 * Reading text a user passes as a file (`--body-file`, `comment --file`;
 * `-` is standard input). The read stops one byte past the largest size any
 * list allows, so `/dev/zero` or an endless pipe is refused after about a
 * megabyte instead of filling memory; the list's own (smaller) limit is
 * checked later by the op. The bytes must be valid UTF-8: nothing is
 * silently replaced with U+FFFD.
 */
import {closeSync, openSync} from 'node:fs'
import {engine} from './engine-loader'
import {InvalidError, UsageError} from '../core/errors'
import {CONFIG_BOUNDS} from '../core/task'
import {decodeUtf8} from '../core/validation'


/** Largest input any list accepts, per kind of text (the config maximum of its limit). */
export const INPUT_LIMITS = {
  body: CONFIG_BOUNDS.max_body_bytes.maximum,
  comment: CONFIG_BOUNDS.max_comment_bytes.maximum,
  /** `tasks batch`: a JSON list of operations (100,000 operations fit). */
  batch: 64 * 1024 * 1024,
} as const

/** The code when a file is over its limit, per kind (written out for test/unit/error-codes.test.ts). */
const INPUT_CODES = {body: 'body_too_long', comment: 'comment_too_long', batch: 'batch_too_large'} as const

/** The text of `path` (or standard input for `-`) as `what` (body or comment). */
export function readInputFile(path: string, what: keyof typeof INPUT_LIMITS): string {
  const limit = INPUT_LIMITS[what]
  let bytes: Buffer
  try {
    const fd = path === '-' ? 0 : openSync(path, 'r')
    try {
      bytes = engine().readCapped(fd, limit)
    } finally {
      if (fd !== 0) closeSync(fd)
    }
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`, {path}, 'bad_file')
  }
  if (bytes.length > limit) {
    throw new InvalidError(INPUT_CODES[what], `${path === '-' ? 'standard input' : path} is longer than ${limit} bytes, the most any list allows for a ${what}`, {path, limit})
  }
  const text = decodeUtf8(bytes)
  if (text === null) throw new InvalidError('bad_utf8', `${path === '-' ? 'standard input' : path} is not valid UTF-8 text`, {path})
  return text
}
