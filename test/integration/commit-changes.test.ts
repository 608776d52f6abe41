// What `tasks undo` reads from git (src/refstore/commit-changes.ts), on real commits.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commitFileChanges, laterCommitsTouching} from '../../src/refstore/commit-changes'
import {ListStore} from '../../src/refstore/list-store'
import {gitSync, makeRepo} from '../helpers/cli'

function commitFiles(dir: string, files: Record<string, string | null>, message: string): string {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) gitSync(dir, ['rm', '-q', '--', path])
    else {
      const full = join(dir, path)
      mkdirSync(join(full, '..'), {recursive: true})
      writeFileSync(full, content)
      gitSync(dir, ['add', '--', path])
    }
  }
  gitSync(dir, ['commit', '-q', '-m', message])
  return gitSync(dir, ['rev-parse', 'HEAD']).trim()
}

describe('the commits and files undo reads', () => {
  it('gives a commit’s files on both sides by their ids, and the later commits touching paths (many, or with a line break in a name)', async () => {
    const dir = makeRepo()
    const c0 = commitFiles(dir, {'a/x.md': 'x0\n', 'keep.md': 'k\n'}, 'c0')
    const c1 = commitFiles(dir, {'a/x.md': 'x1\n', 'a/y.md': 'y1\n', 'keep.md': null, 'odd\nname.md': 'odd\n'}, 'c1')
    const c2 = commitFiles(dir, {'a/x.md': 'x2\n'}, 'c2')
    const c3 = commitFiles(dir, {'b/z.md': 'z\n'}, 'c3')
    const c4 = commitFiles(dir, {'odd\nname.md': 'odd again\n'}, 'c4')
    const store = await ListStore.open(dir, 'main')
    try {
      expect(await commitFileChanges(store, c1, c0)).toEqual([
        {path: 'a/x.md', before: 'x0\n', after: 'x1\n'},
        {path: 'a/y.md', before: null, after: 'y1\n'},
        {path: 'keep.md', before: 'k\n', after: null},
        {path: 'odd\nname.md', before: null, after: 'odd\n'},
      ])
    } finally {
      store.close()
    }
    const later = async (paths: string[]) => (await laterCommitsTouching(dir, c1, [c4], paths)).map((c) => c.subject)
    expect(await later(['a'])).toEqual(['c2'])
    expect(await later(['b/z.md', 'a/y.md'])).toEqual(['c3'])
    // Many paths go to git on its standard input; a name with a line break on the command line.
    // (3 MB of paths: more than one process's arguments may hold, as an import's 100,000 card directories were.)
    expect(await later([...Array.from({length: 120_000}, (_, i) => `tasks/00/tsk-${String(i).padStart(10, '0')}`), 'a/x.md'])).toEqual(['c2'])
    expect(await later(['odd\nname.md', 'b'])).toEqual(['c4', 'c3'])
    expect(await later(['none'])).toEqual([])
  })
})
