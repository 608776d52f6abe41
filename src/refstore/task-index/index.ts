/**
 * The task index: every task of a list at one commit, derived from the tree
 * and cached under the git directory (`<common-dir>/git-tasks/index-<list>`),
 * keyed by the commit it describes and brought forward incrementally. No
 * daemon, no database: a file written by rename, last writer wins, and every
 * version is correct for the commit it names. docs/architecture.md describes
 * the file; the modules of this folder:
 *
 *   format.ts               version, separators, where the file lives, the damaged-file error
 *   entry.ts                one task (IndexedTask) and its line, the index's header and shape, snapshotOf
 *   index-file.ts           the reader of the cache file, searched in place (IndexFile)
 *   open-rows.ts            the open rows line as binary columns (encodeOpenRows, ColumnOpenRows)
 *   list-section-writer.ts  the list section of a file being written (../list-section.ts has the format)
 *   list-section-reader.ts  the list section read back as rows and records, for the streamed listing
 *   writer.ts               the writer of the cache file (writeCachedIndex)
 *   delta.ts                the cache read with its delta file; the delta file written
 *   cards.ts                cards read from git: shards, one card, many cards in a window
 *   catch-up.ts             the index brought up to a commit (updateIndex, writeDeltaAfterCommit)
 *
 * This file is what the rest of src/ imports.
 */
export {bulkReads, entriesAfterWrite, type IndexProgress, inWindow, readCardIn} from './cards'
export {updateIndex, writeDeltaAfterCommit} from './catch-up'
export {deltaPath, readCachedIndex, writeIndexDelta} from './delta'
export {type IndexHeader, IndexedTask, type Stray, type TaskBase, type TaskIndex, snapshotOf} from './entry'
export {cachePath} from './format'
export {IndexFile} from './index-file'
export {ColumnOpenRows, type EncodedOpenRows, encodeOpenRows} from './open-rows'
export {writeCachedIndex} from './writer'
export {F_DEPS, F_ID, F_PARENT, F_SUBITEMS, LINE_FIELDS, type LineBatch, ListSectionReader, findTabs, finishedKey, splitArray, viewOf} from './list-section-reader'
