// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { defineSearchCard, SEARCH_CARD_TAG, SearchCard, type SearchSelectDetail } from '../src/card.js'
import type { SearchResultView } from '../src/view.js'

const grepView: SearchResultView = {
  card: 'search',
  shape: 'matches',
  files: [
    {
      path: 'src/a.ts',
      matches: [
        { lineNumber: 3, line: 'const x = 1 // TODO one' },
        { lineNumber: 9, line: '</script><img src=x onerror="globalThis.pwned = 1"> TODO' },
      ],
    },
    { path: 'docs/b.md', matches: [{ lineNumber: 1, line: 'TODO two' }] },
  ],
  truncated: false,
  total: 3,
  incomplete: false,
}
const globView: SearchResultView = {
  card: 'search',
  shape: 'paths',
  paths: ['new.ts', 'old.ts'],
  truncated: false,
  total: 2,
  incomplete: false,
}

async function mount(view: unknown, pattern?: string): Promise<SearchCard> {
  const card = document.createElement(SEARCH_CARD_TAG)
  card.view = view
  if (pattern !== undefined) card.pattern = pattern
  document.body.append(card)
  await card.updateComplete
  return card
}

const root = (card: SearchCard) => card.shadowRoot!
const all = (card: SearchCard, selector: string) => [...root(card).querySelectorAll<HTMLElement>(selector)]
const text = (card: SearchCard, selector: string) => all(card, selector).map((el) => el.textContent.replace(/\s+/g, ' ').trim())
const selections = () => {
  const seen: SearchSelectDetail[] = []
  // Listened for on the body: the event bubbles out of the shadow root.
  document.body.addEventListener('dsh-select', (event) => seen.push(event.detail))
  return seen
}

afterEach(() => {
  document.body.replaceChildren()
})

describe('<dsh-search-card>', () => {
  it('is defined once, however often it is asked to be', () => {
    expect(customElements.get('dsh-search-card')).toBe(SearchCard)
    defineSearchCard()
    expect(customElements.get('dsh-search-card')).toBe(SearchCard)
  })

  it('renders matches as per-file groups with line numbers, in the view order', async () => {
    const card = await mount(grepView)
    expect(text(card, '.summary')).toEqual(['3 matches in 2 files'])
    expect(text(card, '.file-header .path')).toEqual(['src/a.ts', 'docs/b.md'])
    expect(text(card, '.badge')).toEqual(['2', '1'])
    expect(text(card, '.line .number')).toEqual(['3', '9', '1'])
    expect(text(card, '.line .text')[0]).toBe('const x = 1 // TODO one')
  })

  it('highlights what the pattern matches, and nothing without one', async () => {
    const card = await mount(grepView, 'TODO')
    expect(text(card, 'mark')).toEqual(['TODO', 'TODO', 'TODO'])
    const plain = await mount(grepView)
    expect(all(plain, 'mark')).toEqual([])
  })

  it('renders a line holding markup as text: no element is made from it', async () => {
    const card = await mount(grepView, 'TODO')
    expect(text(card, '.line .text')[1]).toBe('</script><img src=x onerror="globalThis.pwned = 1"> TODO')
    expect(all(card, 'img')).toEqual([])
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined()
  })

  it('collapses and expands a file group from its toggle, which says its state', async () => {
    const card = await mount(grepView)
    const toggle = all(card, '.toggle')[0]!
    expect(toggle.getAttribute('aria-expanded')).toBe('true')
    expect(toggle.getAttribute('aria-label')).toBe('Collapse src/a.ts')
    toggle.click()
    await card.updateComplete
    expect(all(card, '.toggle')[0]!.getAttribute('aria-expanded')).toBe('false')
    expect(all(card, '.toggle')[0]!.getAttribute('aria-label')).toBe('Expand src/a.ts')
    expect(all(card, '.file')[0]!.hasAttribute('data-collapsed')).toBe(true)
    expect(text(card, '.line .number')).toEqual(['1'])
    all(card, '.toggle')[0]!.click()
    await card.updateComplete
    expect(text(card, '.line .number')).toEqual(['3', '9', '1'])
  })

  it('expands every group again for another view', async () => {
    const card = await mount(grepView)
    all(card, '.toggle')[1]!.click()
    await card.updateComplete
    expect(text(card, '.line .number')).toEqual(['3', '9'])
    card.view = { ...grepView }
    await card.updateComplete
    expect(text(card, '.line .number')).toEqual(['3', '9', '1'])
  })

  it('fires dsh-select with the path and line for a line, and the path alone for a file', async () => {
    const card = await mount(grepView)
    const seen = selections()
    all(card, '.line')[1]!.click()
    all(card, '.file-header .path')[1]!.click()
    expect(seen).toEqual([{ path: 'src/a.ts', lineNumber: 9 }, { path: 'docs/b.md' }])
  })

  it('makes every path and line a button, so each is reached by keyboard and Enter presses it', async () => {
    const card = await mount(grepView)
    expect(all(card, '.path, .line, .toggle').every((el) => el.tagName === 'BUTTON')).toBe(true)
  })

  it('renders paths as a list, each selectable', async () => {
    const card = await mount(globView)
    const seen = selections()
    expect(text(card, '.summary')).toEqual(['2 files'])
    expect(text(card, '.paths .path')).toEqual(['new.ts', 'old.ts'])
    all(card, '.paths .path')[1]!.click()
    expect(seen).toEqual([{ path: 'old.ts' }])
  })

  it('says "showing N of M" for a truncated card and never claims the count shown is all', async () => {
    const grep = await mount({ ...grepView, truncated: true, total: 340, incomplete: false })
    expect(text(grep, '.summary')).toEqual(['340 matches showing 3 of 340'])
    expect(text(grep, '.truncated')).toEqual(['showing 3 of 340'])
    const glob = await mount({ ...globView, truncated: true, total: 100, incomplete: false })
    expect(text(glob, '.truncated')).toEqual(['showing 2 of 100'])
  })

  it('says a card is incomplete when the search did not read everything, with or without results', async () => {
    const grep = await mount({ ...grepView, incomplete: true })
    expect(text(grep, '.summary')).toEqual(['3 matches in 2 files incomplete: more may exist'])
    expect(text(grep, '.incomplete')).toEqual(['incomplete: more may exist'])
    const capped = await mount({ ...globView, truncated: true, total: 100, incomplete: true })
    expect(text(capped, '.summary')).toEqual(['100 files showing 2 of 100 incomplete: more may exist'])
    const none = await mount({ card: 'search', shape: 'matches', files: [], truncated: false, total: 0, incomplete: true })
    expect(text(none, '.summary')).toEqual(['No matches incomplete: more may exist'])
    expect(text(await mount(grepView), '.incomplete')).toEqual([])
  })

  it('says what the index read, or why the search read every file, and nothing without an index', async () => {
    const used = await mount({ ...grepView, index: { used: true, indexedFiles: 1000, candidates: 4, changed: 2 } })
    expect(text(used, '.index')).toEqual(['index: 4 of 1000 files could match, 2 changed since it was built'])
    const fresh = await mount({ ...grepView, index: { used: true, indexedFiles: 1000, candidates: 4, changed: 0 } })
    expect(text(fresh, '.index')).toEqual(['index: 4 of 1000 files could match'])
    const named = await mount({ ...grepView, index: { used: true, indexedFiles: 1000, candidates: 4, changed: 2, named: 3 } })
    expect(text(named, '.index')).toEqual(['index: 4 of 1000 files could match, 3 read by name, 2 changed since it was built'])
    const none = await mount({
      card: 'search',
      shape: 'matches',
      files: [],
      truncated: false,
      total: 0,
      incomplete: false,
      index: { used: false, reason: 'unreducible', detail: 'd' },
    })
    expect(text(none, '.summary')).toEqual(['No matches read every file (unreducible)'])
    expect(text(await mount(grepView), '.index')).toEqual([])
  })

  it("says how many of glob's times the index gave, or why glob read every file's time", async () => {
    const used = await mount({ ...globView, index: { used: true, indexedFiles: 1000, candidates: 998, changed: 2 } })
    expect(text(used, '.index')).toEqual(['index: times of 998 of 1000 files recorded, 2 changed since it was built'])
    const fresh = await mount({ ...globView, index: { used: true, indexedFiles: 1000, candidates: 1000, changed: 0 } })
    expect(text(fresh, '.index')).toEqual(['index: times of 1000 of 1000 files recorded'])
    const read = await mount({ ...globView, index: { used: false, reason: 'freshness', detail: 'no watcher' } })
    expect(text(read, '.index')).toEqual(["read every file's time (freshness)"])
  })

  it('counts one result in the singular', async () => {
    const grep = await mount({ ...grepView, files: [grepView.shape === 'matches' ? grepView.files[1]! : undefined], total: 1 })
    expect(text(grep, '.summary')).toEqual(['1 match in 1 file'])
    const glob = await mount({ ...globView, paths: ['a'], total: 1 })
    expect(text(glob, '.summary')).toEqual(['1 file'])
  })

  it('says "No matches" and "No files" for zero results', async () => {
    const grep = await mount({ card: 'search', shape: 'matches', files: [], truncated: false, total: 0, incomplete: false })
    expect(text(grep, '.summary')).toEqual(['No matches'])
    expect(all(grep, 'ul')).toEqual([])
    const glob = await mount({ card: 'search', shape: 'paths', paths: [], truncated: false, total: 0, incomplete: false })
    expect(text(glob, '.summary')).toEqual(['No files'])
    expect(all(glob, 'ul')).toEqual([])
  })

  it('takes the object dsh --format json prints', async () => {
    const card = await mount({ isError: false, content: 'new.ts\nold.ts', meta: {}, view: globView })
    expect(text(card, '.paths .path')).toEqual(['new.ts', 'old.ts'])
  })

  it('says it has nothing to show for no view or a malformed one', async () => {
    expect(text(await mount(undefined), '.empty')).toEqual(['No search result to show.'])
    expect(text(await mount({ card: 'search', shape: 'tree' }), '.empty')).toEqual(['No search result to show.'])
  })

  it('reflects a chosen theme as an attribute the styles read', async () => {
    const card = await mount(globView)
    card.theme = 'dark'
    await card.updateComplete
    expect(card.getAttribute('theme')).toBe('dark')
  })
})
