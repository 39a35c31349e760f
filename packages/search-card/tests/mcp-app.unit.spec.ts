// @vitest-environment happy-dom
import type { App } from '@modelcontextprotocol/ext-apps'
import { afterEach, describe, expect, it } from 'vitest'
import type { SearchCard } from '../src/card.js'
import { mountSearchCardApp, READ_TOOL, type AppToolResult, type SearchCardAppHost } from '../src/mcp-app.js'
import type { SearchResultView } from '../src/view.js'

// The view is written against ext-apps' own App: this fails to compile if the App stops fitting.
const fits = (app: App): SearchCardAppHost<Parameters<NonNullable<App['ontoolresult']>>[0]> => app
void fits

const view: SearchResultView = {
  card: 'search',
  shape: 'matches',
  files: [{ path: 'src/a.ts', matches: [{ lineNumber: 3, line: 'const a = 1 // TODO' }] }],
  truncated: false,
  total: 1,
  incomplete: false,
}

/** An App as the host drives it: the test sends input and results, and answers the view's tool calls. */
function fakeApp(answer: (args: Record<string, unknown>) => Promise<AppToolResult>) {
  const calls: { name: string; arguments: Record<string, unknown> }[] = []
  const app: SearchCardAppHost = {
    ontoolinput: undefined,
    ontoolresult: undefined,
    callServerTool: (params) => {
      calls.push(params)
      return answer(params.arguments)
    },
  }
  return { app, calls }
}

const parts = () => ({
  card: document.querySelector('dsh-search-card') as SearchCard,
  output: document.querySelector('pre.read') as HTMLPreElement,
})
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

afterEach(() => {
  document.body.replaceChildren()
})

describe('the search card as an MCP App view', () => {
  it("renders the result's structuredContent, highlighting the call's pattern", async () => {
    const { app } = fakeApp(() => Promise.resolve({ content: [] }))
    mountSearchCardApp(app, document.body)
    app.ontoolinput!({ arguments: { pattern: 'TODO' } })
    app.ontoolresult!({ structuredContent: { ...view } })
    const { card, output } = parts()
    await card.updateComplete
    expect(card.shadowRoot!.querySelector('mark')?.textContent).toBe('TODO')
    expect(output.hidden).toBe(true)
    app.ontoolinput!({ arguments: { pattern: 5 } })
    app.ontoolinput!({})
    expect(card.pattern).toBeUndefined()
  })

  it('asks the host to read a clicked line at its number, and a clicked path from its start, showing the text', async () => {
    const { app, calls } = fakeApp((args) =>
      Promise.resolve({ content: [{ type: 'image' }, { type: 'text', text: `text of ${String(args.path)}` }] }),
    )
    mountSearchCardApp(app, document.body)
    app.ontoolresult!({ structuredContent: { ...view } })
    const { card, output } = parts()
    await card.updateComplete
    ;(card.shadowRoot!.querySelector('.line') as HTMLElement).click()
    expect(output.dataset.state).toBe('busy')
    await settle()
    ;(card.shadowRoot!.querySelector('.file-header .path') as HTMLElement).click()
    await settle()
    expect(calls).toEqual([
      { name: READ_TOOL, arguments: { path: 'src/a.ts', offset: 3 } },
      { name: READ_TOOL, arguments: { path: 'src/a.ts' } },
    ])
    expect(output.textContent).toBe('text of src/a.ts')
    expect(output.dataset.state).toBe('text')
  })

  it('shows a failed read, a refused call and a result without text as text, never as markup', async () => {
    const answers: (() => Promise<AppToolResult>)[] = [
      () => Promise.resolve({ isError: true, content: [{ type: 'text', text: '<img src=x> does not exist' }] }),
      () => Promise.reject(new Error('the user declined')),
      () => Promise.reject('no reason'),
      () => Promise.resolve({ content: [null, { type: 'text', text: 5 }] }),
      () => Promise.resolve({}),
    ]
    const { app } = fakeApp(() => answers.shift()!())
    mountSearchCardApp(app, document.body)
    app.ontoolresult!({ structuredContent: { ...view } })
    const { card, output } = parts()
    await card.updateComplete
    const seen: [string | undefined, string | null][] = []
    for (let i = 0; i < 5; i++) {
      ;(card.shadowRoot!.querySelector('.line') as HTMLElement).click()
      await settle()
      seen.push([output.dataset.state, output.textContent])
    }
    expect(seen).toEqual([
      ['error', '<img src=x> does not exist'],
      ['error', 'The host could not read src/a.ts: the user declined'],
      ['error', 'The host could not read src/a.ts: no reason'],
      ['text', 'The result holds no text.'],
      ['text', 'The result holds no text.'],
    ])
    expect(document.querySelector('img')).toBeNull()
  })

  it("shows a failed search's text in place of the card, and the card again for the next result", async () => {
    const { app } = fakeApp(() => Promise.resolve({}))
    mountSearchCardApp(app, document.body)
    app.ontoolresult!({ isError: true, content: [{ type: 'text', text: 'regex parse error' }] })
    const { card, output } = parts()
    expect(card.hidden).toBe(true)
    expect([output.dataset.state, output.textContent]).toEqual(['error', 'regex parse error'])
    app.ontoolresult!({ content: [{ type: 'text', text: 'no view' }] })
    expect(output.textContent).toBe('no view')
    app.ontoolresult!({ content: [{ type: 'text', text: 'a null view' }], structuredContent: null })
    expect(output.textContent).toBe('a null view')
    app.ontoolresult!({ structuredContent: { ...view } })
    expect(card.hidden).toBe(false)
  })
})
