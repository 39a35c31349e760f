// The search card in a real browser: headless Debian chromium, driven by playwright-core, opens the page
// `dsh grep --format html` printed for a real search, and a person's clicks and keys are played on it.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, scratchDir, writeTree } from './io.js'

const repo = new URL('../../../', import.meta.url).pathname
const bin = join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const CHROMIUM = '/usr/bin/chromium'
/** Where the test leaves its screenshots: a test artifact, not a fixture (docs/search-card.png is a copy). */
const artifacts = join(repo, 'test-artifacts')

const XSS_LINE = '</script><img src=x onerror=alert(1)> // TODO: escape this'
const tree = scratchDir('card-tree')
const work = scratchDir('card-work')
let browser: Browser

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`).toBe(true)
  writeTree(tree, {
    'src/cache.ts': 'export class Cache {\n  // TODO: evict by size, not by count\n  get(key: string) {}\n  // TODO: expire entries\n}\n',
    'src/server/routes.ts': "app.get('/health', ok) // TODO: check the database too\n",
    'src/render.ts': `const sample = '${XSS_LINE}'\n`,
    'docs/notes.md': '# Notes\n\n- TODO: write the upgrade guide\n- TODO: name the flags\n- TODO: say why\n',
  })
  writeFileSync(join(work, 'capped.json'), JSON.stringify({ 'tool-fs-search': { grepMaxMatches: 6 } }))
  mkdirSync(artifacts, { recursive: true })
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
}, budgetMs(60_000))

afterAll(async () => {
  await browser?.close()
})

/** Runs the built `dsh` with `argv` in the tree and saves the page it prints. */
function savePage(name: string, ...argv: string[]): string {
  const html = execFileSync(process.execPath, [bin, ...argv, '--cwd', tree, '--spill-dir', join(work, 'spill'), '--format', 'html'], {
    encoding: 'utf8',
  })
  const file = join(work, name)
  writeFileSync(file, html)
  return file
}

/** Opens a saved page, recording every dialog, every request beyond the page itself, and each dsh-select. */
async function open(file: string, colorScheme: 'light' | 'dark' = 'light') {
  const page = await browser.newPage({ colorScheme, viewport: { width: 860, height: 560 } })
  // Playwright's own default (30 s) is a quiet machine's; a busy one gets as much longer as it is slower.
  page.setDefaultTimeout(budgetMs(30_000))
  const dialogs: string[] = []
  const requests: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  page.on('request', (request) => {
    if (request.url() !== pathToFileURL(file).href) requests.push(request.url())
  })
  await page.goto(pathToFileURL(file).href)
  await page.locator('dsh-search-card .summary').waitFor()
  await page.evaluate(() => {
    const seen: unknown[] = []
    ;(window as unknown as { selected: unknown[] }).selected = seen
    document.addEventListener('dsh-select', (event) => seen.push((event as CustomEvent).detail))
  })
  return { page, dialogs, requests }
}

const selected = (page: Page) => page.evaluate(() => (window as unknown as { selected: unknown[] }).selected)

describe('<dsh-search-card> in chromium, from dsh grep --format html', () => {
  it('renders the groups of a capped search, says how many of how many, and leaves a screenshot', async () => {
    const { page, dialogs, requests } = await open(savePage('grep.html', 'grep', 'TODO', '--config', join(work, 'capped.json')))
    expect(await page.locator('dsh-search-card .file-header .path').allInnerTexts()).toEqual([
      'docs/notes.md',
      'src/cache.ts',
      'src/render.ts',
    ])
    expect(await page.locator('dsh-search-card .line .number').allInnerTexts()).toEqual(['3', '4', '5', '2', '4', '1'])
    expect(await page.locator('dsh-search-card .summary').innerText()).toMatch(/^7 matches\s+showing 6 of 7$/)
    expect(await page.locator('dsh-search-card mark').count()).toBe(6)
    expect(await page.locator('.spill').innerText()).toMatch(/^Complete result: \S+grep-results\.txt$/)
    await page.screenshot({ path: join(artifacts, 'search-card.png'), fullPage: true })
    expect(dialogs).toEqual([])
    expect(requests).toEqual([])
    await page.close()
  })

  it('keeps a line that holds markup inert: shown as text, no element made, no script run', async () => {
    const { page, dialogs } = await open(savePage('xss.html', 'grep', 'TODO', 'src/render.ts'))
    expect(await page.locator('dsh-search-card .line .text').innerText()).toBe(`const sample = '${XSS_LINE}'`)
    expect(await page.locator('img').count()).toBe(0)
    // A moment for an image error handler that would have fired.
    await page.waitForTimeout(budgetMs(300))
    expect(dialogs).toEqual([])
    await page.close()
  })

  it('collapses and expands a group, and fires dsh-select on a click and on Enter', async () => {
    const { page } = await open(savePage('grep.html', 'grep', 'TODO'))
    const toggle = page.locator('dsh-search-card .toggle').first()
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    expect(await page.locator('dsh-search-card .file').first().locator('.line').count()).toBe(0)
    await toggle.press('Enter')
    expect(await page.locator('dsh-search-card .file').first().locator('.line').count()).toBe(3)

    await page.locator('dsh-search-card .line').nth(1).click()
    await page.locator('dsh-search-card .file-header .path').nth(1).focus()
    await page.keyboard.press('Enter')
    expect(await selected(page)).toEqual([{ path: 'docs/notes.md', lineNumber: 4 }, { path: 'src/cache.ts' }])
    await page.close()
  })

  it('is reached by keyboard: Tab walks toggle, path, then each line', async () => {
    const { page } = await open(savePage('grep.html', 'grep', 'TODO'))
    const focused = () => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.className ?? '')
    const seen: string[] = []
    for (let i = 0; i < 5; i += 1) {
      await page.keyboard.press('Tab')
      seen.push(await focused())
    }
    expect(seen).toEqual(['toggle', 'path', 'line', 'line', 'line'])
    await page.keyboard.press('Enter')
    expect(await selected(page)).toEqual([{ path: 'docs/notes.md', lineNumber: 5 }])
    await page.close()
  })

  it('follows the dark colour scheme', async () => {
    const background = async (scheme: 'light' | 'dark') => {
      const { page } = await open(savePage('grep.html', 'grep', 'TODO'), scheme)
      const color = await page.locator('dsh-search-card').evaluate((card) => getComputedStyle(card).backgroundColor)
      if (scheme === 'dark') await page.screenshot({ path: join(artifacts, 'search-card-dark.png'), fullPage: true })
      await page.close()
      return color
    }
    expect(await background('light')).toBe('rgb(255, 255, 255)')
    expect(await background('dark')).toBe('rgb(13, 17, 23)')
  })

  it('renders glob paths as a list whose paths fire dsh-select', async () => {
    const { page } = await open(savePage('glob.html', 'glob', '**/*.ts'))
    expect((await page.locator('dsh-search-card .paths .path').allInnerTexts()).sort()).toEqual([
      'src/cache.ts',
      'src/render.ts',
      'src/server/routes.ts',
    ])
    await page.locator('dsh-search-card .paths .path').first().press('Enter')
    expect(await selected(page)).toHaveLength(1)
    await page.close()
  })
})
