/**
 * The list section of the index cache file (format 9): what `list --all
 * --json` needs to put every row in its place and find its line, as fixed
 * width binary records, so the streamed listing (src/app/list-stream.ts)
 * keeps no id, no string and no sort key a task, and reads the open and
 * finished rows a window at a time. This module holds the format; it is
 * written by task-index/list-section-writer.ts and read, for the listing,
 * only by task-index/list-section-reader.ts. Little-endian; every line
 * number is a task line's position in the file (id order).
 *
 *   offsets   u32 × (n + 1)  where each task line starts, from the first; the last is the body's length
 *   extrasAt  u32 × n        where the line's extras start in `extras`, NONE when it has none
 *   status    u8 × n         status code (0 unreadable, 1 todo, 2 in_progress, 3 blocked, 4 done, 5 cancelled)
 *   shortLen  u8 × n         length of the short id (from its neighbours in id order), 0 when over 255
 *   (padding to 4)
 *   extras    per line with a parent, dependencies or sub-items: i32 parent line (-1 none, -2 not a line),
 *             u32 dependency count, u32 sub-item count, u32 × dependency lines (NONE: not a line), then per
 *             sub-item (in the frontmatter's order of its children list): u32 line, u32 static position
 *   (padding to 8)
 *   open      OPEN_RECORD × open rows, in the open rows' order (priority, creation time, id): u32 line,
 *             u8 status code, u8 flags, u16 0, f64 priority, u32 owner, u32 assignee (in `people`, 0 for none),
 *             f64 lease end (Date.parse: Infinity without one, NaN unparsable), i32 creation date, i32 time
 *   finished  FINISHED_RECORD × finished rows, in listing order (done before cancelled, priority, creation
 *             time, id): u32 line, i32 creation date, i32 time, u32 0, f64 priority
 *
 * A static position is a row's place in `open` (k) or `finished` (open count + k). A creation time written
 * the usual way (YYYY-MM-DDTHH:MM:SS.sssZ) is two numbers, date YYYYMMDD and time HHMMSSsss, which compare
 * as the text does; the date is -1 for one written another way. The header of the file carries the counts,
 * the people and a CRC-32 of the section, checked by the reader before the listing writes anything.
 */
import * as zlib from 'node:zlib'

export const NONE = 0xffffffff
export const OPEN_RECORD = 40
export const FINISHED_RECORD = 24

export const BROKEN = 0
export const TODO = 1
export const IN_PROGRESS = 2
export const BLOCKED = 3
export const DONE = 4
export const CANCELLED = 5
export const STATUS_TEXT = ['', 'todo', 'in_progress', 'blocked', 'done', 'cancelled'] as const

/** The status code of a stored status ('' for an unreadable card); -1 for one the section has no code for. */
export function statusCodeOf(text: string): number {
  const i = (STATUS_TEXT as readonly string[]).indexOf(text)
  return i
}

/** What the file's header says of the section. */
export interface ListSectionMeta {
  n: number
  open: number
  finished: number
  /** Bytes of offsets, extrasAt, status, shortLen and the padding after them. */
  lineBytes: number
  extrasBytes: number
  people: string[]
  /** CRC-32 of the section (sectionCrc). */
  sum: number
}

export function pad(n: number, to: number): number {
  return Math.ceil(n / to) * to
}

/** Where the parts of a section start, from its meta. */
export function sectionLayout(m: ListSectionMeta): {extras: number; open: number; finished: number; end: number} {
  const extras = m.lineBytes
  const open = pad(extras + m.extrasBytes, 8)
  const finished = open + m.open * OPEN_RECORD
  return {extras, open, finished, end: finished + m.finished * FINISHED_RECORD}
}

export function lineBytesOf(n: number): number {
  return pad(4 * (n + 1) + 4 * n + n + n, 4)
}

function digitsAt(text: string, from: number, to: number): number {
  let v = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 0x30
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v
}

/** A usual creation time as [date, time] (see the module comment); [-1, -1] for one written another way. */
export function createdNumbers(t: string): [number, number] {
  if (t.length !== 24 || t[4] !== '-' || t[7] !== '-' || t[10] !== 'T' || t[13] !== ':' || t[16] !== ':' || t[19] !== '.' || t[23] !== 'Z') return [-1, -1]
  const y = digitsAt(t, 0, 4)
  const mo = digitsAt(t, 5, 7)
  const d = digitsAt(t, 8, 10)
  const h = digitsAt(t, 11, 13)
  const mi = digitsAt(t, 14, 16)
  const s = digitsAt(t, 17, 19)
  const ms = digitsAt(t, 20, 23)
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0 || ms < 0) return [-1, -1]
  return [(y * 100 + mo) * 100 + d, ((h * 100 + mi) * 100 + s) * 1000 + ms]
}

let crcTable: Int32Array | undefined
/** CRC-32 (zlib's) of `data` continuing `crc`: zlib's own where node has it (20.15 and later), else a table. */
export function sectionCrc(data: Uint8Array, crc = 0): number {
  const native = (zlib as {crc32?: (d: Uint8Array, v?: number) => number}).crc32
  return native ? native(data, crc) : tableCrc(data, crc)
}

/** CRC-32 by a table, for a node without zlib.crc32: the same value. */
export function tableCrc(data: Uint8Array, crc = 0): number {
  if (!crcTable) {
    crcTable = new Int32Array(256)
    for (let i = 0; i < 256; i++) {
      let c = i
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      crcTable[i] = c
    }
  }
  let c = ~crc
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}
