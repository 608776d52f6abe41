import {Args, Flags} from '@oclif/core'
import {TasksCommand, formatFlag} from './base-command'
import type {SearchOutput} from '../app/search'
import {engine} from './engine-loader'
import type {Terminal} from '../render/terminal'

export default class Search extends TasksCommand<SearchOutput> {
  static override summary = 'Search titles, descriptions, comments and tags; ranked, with snippets.'
  static override description =
    'Every word must match (prefixes and small typos count); when no task has them all, tasks with any of them are shown. An exact title match comes first, then by relevance (title words weigh most). The index is cached under the git directory and updated from the tasks that changed.'
  static override args = {query: Args.string({ignoreStdin: true, required: true, description: 'words to look for'})}
  static override strict = false
  static override flags = {
    ...formatFlag,
    status: Flags.string({char: 's', description: 'Only these states (ready, waiting, …, done, cancelled; open, all). Default: all.', multiple: true, multipleNonGreedy: true}),
    tag: Flags.string({char: 't', description: 'Only items with this tag.', multiple: true, multipleNonGreedy: true}),
    owner: Flags.string({description: 'Only items claimed by this actor (@me: you).'}),
    limit: Flags.integer({char: 'n', description: 'At most N results (default 20).', min: 1}),
  }
  static override examples = ['<%= config.bin %> search "claim race"', '<%= config.bin %> search flaky --status open --json', '<%= config.bin %> search lease --tag backend', '<%= config.bin %> search lease --format compact']

  protected async execute(): Promise<SearchOutput> {
    const {argv, flags} = await this.parse(Search)
    this.flagsForSession = flags
    this.useFormat(flags)
    return engine().search.search(await this.openSession(), {query: (argv as string[]).join(' '), status: flags.status, tags: flags.tag, owner: flags.owner, limit: flags.limit})
  }

  protected override renderCompact(r: SearchOutput): string {
    return engine().compact.compactSearch(r)
  }

  protected render(r: SearchOutput, term: Terminal): string {
    if (r.results.length === 0) return `no task matches "${r.query}"\n`
    const e = engine()
    const lines: string[] = []
    for (const hit of r.results) {
      lines.push(e.render.renderTaskLine(term, hit.task.state, hit.task).trimEnd())
      if (hit.snippet && hit.snippet.field !== 'title') lines.push(`    ${hit.snippet.field}: ${hit.snippet.text}`)
    }
    lines.push(`${r.total} match${r.total === 1 ? '' : 'es'}${r.total > r.results.length ? `, ${r.results.length} shown (--limit)` : ''}`)
    return `${lines.join('\n')}\n`
  }
}
