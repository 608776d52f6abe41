/**
 * `tasks branch ID`: claim the card, then create and check out
 * `task/<short id>-<slug>` from HEAD (or check it out when it exists: a
 * second `tasks branch` of one's own card resumes it). The claim comes
 * first, so a refused claim leaves no branch behind.
 */
import {EnvironmentError} from '../core/errors'
import {taskBranchName} from '../core/commit-link'
import {lookup, tablesOf} from '../core/snapshot'
import {shortIdOf} from '../core/ids'
import {claim, type ClaimOutput} from '../app/claim-actions'
import type {Session} from '../app/session'
import {git} from '../refstore/git-process'

export interface BranchOutput extends ClaimOutput {
  branch: string
  /** False when the branch existed and was only checked out. */
  created: boolean
}

export async function branchForTask(session: Session, {id: input, lease: leaseSeconds}: {id: string; lease?: number}): Promise<BranchOutput> {
  const cwd = session.store.repo.cwd
  const top = await git(['rev-parse', '--is-inside-work-tree'], {cwd})
  if (top.code !== 0 || top.stdout.trim() !== 'true') throw new EnvironmentError('not_a_work_tree', '`tasks branch` needs a work tree to check the branch out in', {})
  const loaded = await session.store.load()
  const meta = lookup(loaded.snapshot, input)
  const name = taskBranchName(shortIdOf(tablesOf(loaded.snapshot), meta.id), meta.title)
  const exists = (await git(['rev-parse', '--verify', '-q', `refs/heads/${name}`], {cwd})).code === 0
  const claimed = await claim(session, {id: meta.id, lease: leaseSeconds})
  const r = await git(exists ? ['checkout', '-q', name] : ['checkout', '-q', '-b', name], {cwd})
  if (r.code !== 0) {
    throw new EnvironmentError('git_failed', `claimed ${meta.id}, but \`git checkout${exists ? '' : ' -b'} ${name}\` failed: ${r.stderr.trim().split('\n').pop() ?? ''}. The claim stands; check the branch out by hand or \`tasks release ${meta.id}\``, {
      id: meta.id,
      branch: name,
    })
  }
  return {...claimed, branch: name, created: !exists}
}
