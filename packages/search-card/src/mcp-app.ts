// The search card as an MCP App view: renders the grep or glob result a host sends, and asks the host to read what is clicked.
import { SEARCH_CARD_TAG } from './card.js'

/** What a tool call's result holds, as far as the view reads it. */
export interface AppToolResult {
  content?: readonly unknown[] | undefined
  structuredContent?: unknown
  isError?: boolean | undefined
}

/**
 * The part of the MCP Apps `App` (`@modelcontextprotocol/ext-apps`) the view uses: the tool's arguments
 * and result as the host sends them, and tool calls the host runs on the server for the view. `R` is
 * the App's own result type (MCP's `CallToolResult`), so the App fits without this package naming it.
 */
export interface SearchCardAppHost<R extends AppToolResult = AppToolResult> {
  ontoolinput: ((params: { arguments?: Record<string, unknown> }) => void) | undefined
  ontoolresult: ((params: R) => void) | undefined
  callServerTool(params: { name: string; arguments: Record<string, unknown> }): Promise<R>
}

/** The server tool a click asks the host to run: dsh's `read(path, offset?)`. */
export const READ_TOOL = 'read'

/**
 * Mounts a `<dsh-search-card>` and an output area in `root` and wires them to `app`, before it
 * connects: the tool's `pattern` argument highlights, its `structuredContent` is the card's view (a
 * failed call shows its text), and a click on a path or a line asks the host to call `read` on the
 * server at that line, whose text is shown under the card. Every value is set as text, never parsed
 * as HTML.
 */
export function mountSearchCardApp<R extends AppToolResult>(app: SearchCardAppHost<R>, root: HTMLElement): void {
  const doc = root.ownerDocument
  const card = doc.createElement(SEARCH_CARD_TAG)
  const output = doc.createElement('pre')
  output.className = 'read'
  output.hidden = true
  root.append(card, output)
  const show = (text: string, state: 'text' | 'error' | 'busy'): void => {
    output.hidden = false
    output.dataset.state = state
    output.textContent = text
  }
  app.ontoolinput = ({ arguments: args }) => {
    const pattern = args?.pattern
    card.pattern = typeof pattern === 'string' ? pattern : undefined
  }
  app.ontoolresult = (result) => {
    if (result.isError === true || result.structuredContent === undefined || result.structuredContent === null) {
      card.hidden = true
      show(firstText(result), 'error')
      return
    }
    card.hidden = false
    card.view = result.structuredContent
  }
  card.addEventListener('dsh-select', (event) => {
    const { path, lineNumber } = event.detail
    const args = lineNumber === undefined ? { path } : { path, offset: lineNumber }
    show(`Reading ${path}${lineNumber === undefined ? '' : `:${lineNumber}`}…`, 'busy')
    app.callServerTool({ name: READ_TOOL, arguments: args }).then(
      (result) => show(firstText(result), result.isError === true ? 'error' : 'text'),
      (error: unknown) => show(`The host could not read ${path}: ${error instanceof Error ? error.message : String(error)}`, 'error'),
    )
  })
}

/** The first text block of a result, or a note that it had none. */
function firstText(result: AppToolResult): string {
  for (const block of result.content ?? []) {
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text
      if (typeof text === 'string') return text
    }
  }
  return 'The result holds no text.'
}
