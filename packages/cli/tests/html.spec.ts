import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { runInNewContext } from 'node:vm'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SearchResultView, ToolResult } from '@dsh/core'
import { EXIT } from '@dsh/cli'
import {
  CARD_APP_BUNDLE,
  escapeHtml,
  jsonInHtml,
  readSearchCardBundle,
  renderHtmlPage,
  renderSearchCardAppPage,
  scriptSafe,
} from '../src/html.js'
import { searchCardAppPage } from '../src/mcp-command.js'
import { dsh, scratchDir, writeTree } from './io.js'

const XSS = '</script><img src=x onerror=alert(1)><!--<script>'
const view: SearchResultView = {
  card: 'search',
  shape: 'matches',
  files: [{ path: 'a<b>.ts', matches: [{ lineNumber: 2, line: XSS }] }],
  truncated: true,
  total: 5,
  incomplete: false,
}
const ok: ToolResult = { isError: false, content: `Found 1 of 5 matches\n\na<b>.ts\nLine 2: ${XSS}`, spilledTo: '/spill/<x>.txt' }
const page = (overrides: Partial<Parameters<typeof renderHtmlPage>[0]> = {}) =>
  renderHtmlPage({ title: 'dsh grep <x>', pattern: XSS, result: ok, view, bundle: 'window.loaded = "</script>"', ...overrides })

/** The document's one module script, and its data block parsed. */
function parts(html: string) {
  const module = /<script type="module">([^]*?)<\/script>/.exec(html)?.[1]
  const data = /<script type="application\/json" id="dsh-result">([^]*?)<\/script>/.exec(html)?.[1]
  return { module, data: data === undefined ? undefined : (JSON.parse(data) as unknown) }
}

describe('escaping for HTML', () => {
  it('escapes text and attribute values', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;')
  })

  it('writes JSON no value can break out of, which parses back to the same value', () => {
    const value = { line: `${XSS} & \u2028\u2029` }
    const json = jsonInHtml(value)
    expect(json).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(json)).toEqual(value)
  })

  it('makes code safe inside a script element without changing what it does', () => {
    const code = 'result = ["</script>", "</SCRIPT >", "<script>", "<!--", /<\\/script/i.test("</script>")].join("|")'
    const safe = scriptSafe(code)
    expect(safe).not.toMatch(/<\/?script|<!--/i)
    expect(runInNewContext(`${safe}; result`)).toBe(runInNewContext(`${code}; result`))
  })
})

describe('renderHtmlPage', () => {
  it('inlines the bundle and the view, and allows only that script to run', () => {
    const html = page()
    const { module, data } = parts(html)
    expect(module).toContain('window.loaded = "\\x3C/script>"')
    expect(module).toContain("document.querySelector('dsh-search-card')")
    expect(data).toEqual({ view, pattern: XSS })
    const hash = createHash('sha256').update(module!).digest('base64')
    expect(html).toContain(`content="default-src &#39;none&#39;; script-src &#39;sha256-${hash}&#39;; style-src &#39;unsafe-inline&#39;"`)
    expect(html).toContain('<dsh-search-card></dsh-search-card>')
    expect(html.match(/<script/g)).toHaveLength(2)
    expect(html).not.toContain('<img')
  })

  it('shows the title, where the complete result is, and the model text folded, all as text', () => {
    const html = page()
    expect(html).toContain('<title>dsh grep &#60;x&#62;</title>')
    expect(html).toContain('<h1>dsh grep &#60;x&#62;</h1>')
    expect(html).toContain('<p class="spill">Complete result: <code>/spill/&#60;x&#62;.txt</code></p>')
    expect(html).toContain('<details><summary>What the model read</summary><pre class="text">Found 1 of 5 matches')
  })

  it('carries a null pattern when there is none, and no spill line when nothing was spilled', () => {
    const html = page({ pattern: undefined, result: { isError: false, content: 'a.ts' } })
    expect(parts(html).data).toEqual({ view, pattern: null })
    expect(html).not.toContain('class="spill"')
  })

  it('shows a result without a search card as its text, with no script at all', () => {
    for (const html of [
      page({ view: undefined, bundle: undefined }),
      page({ view: { card: 'generic', isError: false } }),
      // A card whose code could not be given renders as text too.
      page({ bundle: undefined }),
    ]) {
      expect(html).toContain(`<pre class="text">Found 1 of 5 matches`)
      expect(html).not.toContain('<script')
      expect(html).not.toContain('<details>')
      expect(html).toContain('script-src &#39;none&#39;')
    }
  })

  it('shows a failure with its code and message', () => {
    const html = page({ result: { isError: true, errorCode: 'SEARCH_INVALID_PATTERN', content: 'bad <regex>' }, view: undefined })
    expect(html).toContain('<p class="error">SEARCH_INVALID_PATTERN</p>\n<pre class="text">bad &#60;regex&#62;</pre>')
    expect(html).not.toContain('<script')
  })
})

describe('the search card MCP App page', () => {
  it('inlines the App bundle as the only script its policy allows, by hash, safe inside the element', async () => {
    const bundle = await readSearchCardBundle(undefined, CARD_APP_BUNDLE)
    expect(bundle).toContain('dsh-search-card')
    expect(bundle).not.toMatch(/^import |\bimport\s*\(/m)
    const page = renderSearchCardAppPage('const s = "</script><!--"')
    const module = /<script type="module">([^]*)<\/script>/.exec(page)![1]!
    expect(module).toBe('const s = "\\x3C/script>\\x3C!--"')
    const hash = createHash('sha256').update(module).digest('base64')
    expect(page).toContain(`script-src &#39;sha256-${hash}&#39;`)
    expect(page).toContain('default-src &#39;none&#39;')
  })

  it('is served without the App, saying so on stderr, when the bundle cannot be found', async () => {
    const lines: string[] = []
    const logger = { warn: (line: string) => void lines.push(line), info: () => undefined }
    const nowhere = pathToFileURL(join(scratchDir('no-card'), 'x.js')).href
    expect(await searchCardAppPage(logger, nowhere)).toBeUndefined()
    expect(lines).toEqual([expect.stringMatching(/^mcp: the search card's MCP App is not served: /)])
    expect(await searchCardAppPage(logger)).toContain('<script type="module">')
  })
})

describe('dsh --format html', () => {
  const tree = scratchDir('html')
  beforeAll(() => writeTree(tree, { 'a.ts': `const a = 1 // TODO\n${XSS} TODO\n`, 'sub/b.md': 'TODO two\n' }))

  it('reads the card bundle @dsh/search-card ships, which defines the element', async () => {
    const bundle = await readSearchCardBundle()
    expect(bundle).toContain('dsh-search-card')
    expect(bundle).not.toMatch(/^import |\bimport\s*\(/m)
  })

  it('reads the copy beside the program first, as the bundled command does with no @dsh/search-card installed', async () => {
    const dist = scratchDir('html-dist')
    const program = join(dist, 'chunks', 'dsh-program.cjs')
    writeTree(dist, { 'chunks/search-card.bundle.js': 'the copy' })
    expect(await readSearchCardBundle(pathToFileURL(program).href)).toBe('the copy')
  })

  it('grep prints one page with the card, its data and the bundle inlined', async () => {
    const result = await dsh(['grep', 'TODO', '--include', '*.ts', '--format', 'html'], tree)
    expect(result).toMatchObject({ code: EXIT.ok, stderr: '' })
    const { module, data } = parts(result.stdout)
    expect(module).toContain(scriptSafe(await readSearchCardBundle()))
    expect(data).toEqual({
      view: {
        card: 'search',
        shape: 'matches',
        files: [
          {
            path: 'a.ts',
            matches: [
              { lineNumber: 1, line: 'const a = 1 // TODO' },
              { lineNumber: 2, line: `${XSS} TODO` },
            ],
          },
        ],
        truncated: false,
        total: 2,
        incomplete: false,
      },
      pattern: 'TODO',
    })
    expect(result.stdout).toContain('<title>dsh grep TODO --include=*.ts</title>')
    expect(result.stdout).not.toMatch(/https?:\/\//)
  })

  it('glob prints its paths card', async () => {
    const result = await dsh(['glob', '**/*.md', '--format', 'html'], tree)
    expect(parts(result.stdout).data).toEqual({
      view: { card: 'search', shape: 'paths', paths: ['sub/b.md'], truncated: false, total: 1, incomplete: false },
      pattern: '**/*.md',
    })
  })

  it('read, which has no card, prints its text', async () => {
    const result = await dsh(['read', 'sub/b.md', '--format', 'html'], tree)
    expect(result.code).toBe(EXIT.ok)
    expect(result.stdout).toContain('<title>dsh read sub/b.md</title>')
    expect(result.stdout).toContain('<pre class="text">')
    expect(result.stdout).not.toContain('<script')
  })
})
