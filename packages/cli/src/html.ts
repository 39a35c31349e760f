// `--format html`: one self-contained page that renders a result's search card; and the card's MCP App page that `dsh mcp` serves.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ToolResult, ToolResultView } from '@dsh/core'

/** What one page shows: the command that ran, its result, the card view built for it, and the card's code. */
export interface HtmlPage {
  /** The command line as a person would type it, for the title: `dsh grep needle src`. */
  title: string
  /** The search pattern, which the card highlights. */
  pattern: string | undefined
  result: ToolResult
  view: ToolResultView | undefined
  /** The text of `@dsh/search-card`'s `dist/search-card.bundle.js`; read only for a search view. */
  bundle: string | undefined
}

/** The card's bundle, which defines `<dsh-search-card>`. */
export const CARD_BUNDLE = 'search-card.bundle.js'
/** The card as an MCP App view: the card, and the MCP Apps `App` connected to the host window. */
export const CARD_APP_BUNDLE = 'search-card-app.bundle.js'

/**
 * Reads one of the card's bundles: the copy the dsh build puts beside its program (`near`, the
 * module's own URL), so the command needs no @dsh/search-card installed; else, for the library entry,
 * the installed `@dsh/search-card`'s, beside the entry its package exports.
 */
export async function readSearchCardBundle(near: string = import.meta.url, bundle: string = CARD_BUNDLE): Promise<string> {
  try {
    return await readFile(new URL(bundle, near), 'utf8')
  } catch {
    const entry = createRequire(near).resolve('@dsh/search-card')
    return readFile(path.join(path.dirname(entry), bundle), 'utf8')
  }
}

/**
 * The search card's MCP App page (`dsh mcp` serves it as grep's and glob's `ui://` resource): the
 * App bundle inlined, allowed by its hash as the only script, and nothing fetched. The host sends the
 * call's result over postMessage; no data is in the page.
 */
export function renderSearchCardAppPage(bundle: string): string {
  const module = scriptSafe(bundle)
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${createHash('sha256').update(module).digest('base64')}'`,
    "style-src 'unsafe-inline'",
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp.join('; '))}">
<meta name="color-scheme" content="light dark">
<title>dsh search</title>
<style>${APP_STYLE}</style>
</head>
<body>
<script type="module">${module}</script>
</body>
</html>
`
}

/**
 * The page: the card for a search view, else the text as the model read it; then the notes under it.
 * Nothing is fetched: the bundle is inlined, and the page's policy allows no other source. No data is
 * ever parsed as HTML: the result travels as JSON in a data block (with `<`, `>` and `&` escaped, so no
 * value can close it) and the card renders every string as text.
 */
export function renderHtmlPage(page: HtmlPage): string {
  const { result, view, bundle } = page
  const card = view?.card === 'search' && bundle !== undefined
  // The only script the page may run is the card's, by its hash: not an attribute, not another element.
  const module = card ? `${scriptSafe(bundle)}\n${BOOT}` : undefined
  const scriptSource = module === undefined ? "'none'" : `'sha256-${createHash('sha256').update(module).digest('base64')}'`
  const csp = ["default-src 'none'", `script-src ${scriptSource}`, "style-src 'unsafe-inline'"].join('; ')
  const scripts =
    module === undefined
      ? []
      : [
          `<script type="application/json" id="dsh-result">${jsonInHtml({ view, pattern: page.pattern ?? null })}</script>`,
          `<script type="module">${module}</script>`,
        ]
  const body = [
    `<h1>${escapeHtml(page.title)}</h1>`,
    result.isError
      ? `<p class="error">${escapeHtml(result.errorCode)}</p>\n<pre class="text">${escapeHtml(result.content)}</pre>`
      : card
        ? '<dsh-search-card></dsh-search-card>'
        : `<pre class="text">${escapeHtml(result.content)}</pre>`,
    ...(result.isError ? [] : notes(result, card)),
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(page.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
${body.join('\n')}
</main>
${scripts.join('\n')}
</body>
</html>
`
}

/** Under the card: where the complete result is, and the model's text with its footers, folded. */
function notes(result: Exclude<ToolResult, { isError: true }>, card: boolean): string[] {
  const spill = result.spilledTo === undefined ? [] : [`<p class="spill">Complete result: <code>${escapeHtml(result.spilledTo)}</code></p>`]
  const text = card
    ? [`<details><summary>What the model read</summary><pre class="text">${escapeHtml(result.content)}</pre></details>`]
    : []
  return [...spill, ...text]
}

// Reads the data block and hands it to the card the bundle defined.
const BOOT = `{
  const data = JSON.parse(document.getElementById('dsh-result').textContent)
  const card = document.querySelector('dsh-search-card')
  if (data.pattern !== null) card.pattern = data.pattern
  card.view = data.view
}`

const PAGE_STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 1.5rem; background: Canvas; color: CanvasText; }
main { max-width: 60rem; margin: 0 auto; display: grid; gap: 1rem; }
h1 { font-size: 1.1rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 0; overflow-wrap: anywhere; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.5rem 0 0; font-size: 0.85rem; }
.error { color: #cf222e; font-weight: 600; margin: 0; }
.spill, details { font-size: 0.9rem; }
summary { cursor: pointer; }
`

const APP_STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 0.5rem; background: Canvas; color: CanvasText; }
pre.read { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; margin: 0.75rem 0 0; }
pre.read[data-state='error'] { color: #cf222e; }
`

/** Text as HTML text or an attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/**
 * JSON for a data block inside HTML: `<`, `>` and `&` become `\u003c`, `\u003e` and `\u0026` (the same
 * string to JSON.parse), so no value can close the block or open a comment; U+2028 and U+2029 too.
 */
export function jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * Code for an inline script: a `<` that would start `</script`, `<script` or `<!--` (which end the
 * element or change how it is read) becomes `\x3C`. The bundle has these, if ever, only inside strings,
 * templates or regular expressions, where `\x3C` means the same `<`.
 */
export function scriptSafe(code: string): string {
  return code.replace(/<(?=\/?script|!--)/gi, '\\x3C')
}
