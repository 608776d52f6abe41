/**
 * Markdown for descriptions and comments, safely: markdown-it with raw HTML
 * off (tags are shown as text), its link check (no javascript:, vbscript:,
 * file: or non-image data: URLs), and links opened without a referrer.
 * Bundled into the board only.
 */
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({html: false, linkify: true, typographer: false})
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow')
  return defaultLinkOpen(tokens, idx, options, env, self)
}

/** HTML for untrusted Markdown text. */
export function renderMarkdown(text: string): string {
  return md.render(text)
}
