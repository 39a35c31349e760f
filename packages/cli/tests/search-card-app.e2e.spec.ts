// The search card as an MCP App, in chromium: the built `dsh mcp` serves the page, ext-apps' own AppBridge
// hosts it in a sandboxed iframe, and a click in the card asks the host to call read on the real server.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Client, type CallToolResult } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, scratchDir, writeTree } from './io.js'

const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const CHROMIUM = '/usr/bin/chromium'
const artifacts = join(repo, 'test-artifacts')
const APP_URI = 'ui://dsh/search-card.html'
const XSS_LINE = '</script><img src=x onerror=alert(1)> // TODO: escape this'

const tree = scratchDir('card-app-tree')
const spill = scratchDir('card-app-spill')
let browser: Browser
let client: Client
/** The host page's script: ext-apps' AppBridge and PostMessageTransport, bundled for the browser. */
let hostScript: string

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`).toBe(true)
  writeTree(tree, {
    'src/cache.ts': 'export class Cache {\n  // TODO: evict by size\n  get(key: string) {}\n}\n',
    'src/render.ts': `const sample = '${XSS_LINE}'\n`,
  })
  mkdirSync(artifacts, { recursive: true })
  const bundled = await build({
    stdin: {
      contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'",
      resolveDir: repo,
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'extApps',
    platform: 'browser',
    logLevel: 'warning',
  })
  hostScript = bundled.outputFiles[0]!.text
  client = new Client({ name: 'card-app-host', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--cwd', tree, '--spill-dir', spill], stderr: 'ignore' }),
  )
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
}, budgetMs(60_000))

afterAll(async () => {
  await browser?.close()
  await client?.close()
})

/**
 * Opens a host page that renders the App page in a sandboxed iframe through AppBridge, sends it the
 * call's arguments and result once it has initialized, and forwards its tool calls to the real server.
 */
async function host(appHtml: string, args: Record<string, unknown>, result: CallToolResult) {
  const page = await browser.newPage({ viewport: { width: 860, height: 560 } })
  page.setDefaultTimeout(budgetMs(30_000))
  const dialogs: string[] = []
  const requests: string[] = []
  const calls: unknown[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('request', (request) => requests.push(request.url()))
  await page.exposeFunction('callServerTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
    calls.push(params)
    return client.callTool(params)
  })
  await page.setContent(`<!doctype html><html><body><script>${hostScript}</script></body></html>`)
  await page.evaluate(
    async ({ appHtml, args, result }) => {
      const { AppBridge, PostMessageTransport } = (
        window as unknown as { extApps: typeof import('@modelcontextprotocol/ext-apps/app-bridge') }
      ).extApps
      const callServerTool = (window as unknown as { callServerTool: (params: unknown) => Promise<CallToolResult> }).callServerTool
      const iframe = document.createElement('iframe')
      iframe.id = 'app'
      // As hosts render a View: scripts, but no access to the host's origin.
      iframe.sandbox.add('allow-scripts')
      iframe.style.cssText = 'width: 820px; height: 520px; border: 0'
      iframe.srcdoc = appHtml
      document.body.append(iframe)
      const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {} })
      bridge.oncalltool = (params) => callServerTool(params)
      bridge.oninitialized = () => {
        void bridge.sendToolInput({ arguments: args })
        void bridge.sendToolResult(result)
      }
      await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!))
    },
    { appHtml, args, result },
  )
  return { page, app: page.frameLocator('#app'), dialogs, requests, calls }
}

describe('the search card as an MCP App, hosted by ext-apps AppBridge in chromium', () => {
  it("grep and glob declare the page, which renders grep's result and reads a clicked line through the host", async () => {
    const { tools } = await client.listTools()
    for (const name of ['grep', 'glob']) {
      expect(tools.find((tool) => tool.name === name)?._meta, name).toEqual({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI })
    }
    expect(tools.find((tool) => tool.name === 'read')).not.toHaveProperty('_meta')
    const { contents } = await client.readResource({ uri: APP_URI })
    expect(contents[0]).toMatchObject({ uri: APP_URI, mimeType: 'text/html;profile=mcp-app' })
    const appHtml = (contents[0] as { text: string }).text

    const args = { pattern: 'TODO' }
    const result = await client.callTool({ name: 'grep', arguments: args })
    const { page, app, dialogs, requests, calls } = await host(appHtml, args, result)
    await app.locator('dsh-search-card .summary').waitFor()
    expect(await app.locator('dsh-search-card .file-header .path').allInnerTexts()).toEqual(['src/cache.ts', 'src/render.ts'])
    expect(await app.locator('dsh-search-card mark').count()).toBe(2)
    expect(await app.locator('dsh-search-card .line .text').nth(1).innerText()).toBe(`const sample = '${XSS_LINE}'`)
    expect(await app.locator('img').count()).toBe(0)

    await app.locator('dsh-search-card .line').first().click()
    await app.locator('pre.read[data-state="text"]').waitFor()
    expect(calls).toMatchObject([{ name: 'read', arguments: { path: 'src/cache.ts', offset: 2 } }])
    expect(calls).toHaveLength(1)
    expect(await app.locator('pre.read').innerText()).toContain('// TODO: evict by size')
    await page.screenshot({ path: join(artifacts, 'search-card-app.png'), fullPage: true })
    expect(dialogs).toEqual([])
    // The page, and nothing it fetched: the App's script is inline.
    expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([])
    await page.close()
  })

  it("renders glob's paths, and a failed search's text in place of the card", async () => {
    const { contents } = await client.readResource({ uri: APP_URI })
    const appHtml = (contents[0] as { text: string }).text
    const globbed = await client.callTool({ name: 'glob', arguments: { pattern: 'src/*.ts' } })
    const listed = await host(appHtml, { pattern: 'src/*.ts' }, globbed)
    await listed.app.locator('dsh-search-card .summary').waitFor()
    expect((await listed.app.locator('dsh-search-card .paths .path').allInnerTexts()).sort()).toEqual(['src/cache.ts', 'src/render.ts'])
    await listed.page.close()

    const failed = await client.callTool({ name: 'grep', arguments: { pattern: 'a(' } })
    expect(failed.isError).toBe(true)
    const shown = await host(appHtml, { pattern: 'a(' }, failed)
    await shown.app.locator('pre.read[data-state="error"]').waitFor()
    expect(await shown.app.locator('pre.read').innerText()).toMatch(/regex parse error/)
    await shown.page.close()
  })
})
