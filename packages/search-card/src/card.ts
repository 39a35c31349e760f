// <dsh-search-card>: a search result as collapsible per-file matches or a path list; every value rendered as text.
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit'
import { highlightSegments, patternRegExp } from './highlight.js'
import { cardStyles } from './styles.js'
import { shownCount, toSearchView, type SearchMatchesResultView, type SearchPathsResultView, type SearchResultView } from './view.js'

/** The element's tag. */
export const SEARCH_CARD_TAG = 'dsh-search-card'

/** What a `dsh-select` event carries: the path chosen, and the line when a matched line was. */
export interface SearchSelectDetail {
  path: string
  lineNumber?: number
}

/**
 * Renders a `SearchResultView` set as `view` (or the object `dsh … --format json` prints). Clicking or
 * pressing Enter on a path or a line fires `dsh-select` (bubbling, composed) with a
 * `SearchSelectDetail`. A truncated view says "showing N of M", an incomplete one that more may
 * exist. Set `pattern` to highlight what matched, and `theme="light"` or `"dark"` to override the
 * reader's colour scheme.
 */
export class SearchCard extends LitElement {
  static override styles = cardStyles
  static override properties = {
    view: { attribute: false },
    pattern: { type: String },
    theme: { type: String, reflect: true },
    collapsed: { state: true },
  }

  /** The result to render: a `SearchResultView`, or `dsh --format json`'s object holding one as `view`. */
  declare view: unknown
  /** The search's pattern; matched text is highlighted where JavaScript can read it as a regular expression. */
  declare pattern: string | undefined
  /** `light` or `dark`; unset follows `prefers-color-scheme`. */
  declare theme: string | undefined
  /** The indexes of the file groups the reader collapsed. */
  declare private collapsed: ReadonlySet<number>

  constructor() {
    super()
    // Assigned here, not as class fields: a field would hide the reactive accessor Lit defines.
    this.view = undefined
    this.pattern = undefined
    this.theme = undefined
    this.collapsed = new Set()
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another result's groups start expanded.
    if (changed.has('view')) this.collapsed = new Set()
  }

  protected override render(): TemplateResult {
    const view = toSearchView(this.view)
    if (view === undefined) return html`<p class="empty">No search result to show.</p>`
    return html`${summary(view)}${view.shape === 'matches' ? this.renderMatches(view) : this.renderPaths(view)}`
  }

  private renderMatches(view: SearchMatchesResultView): TemplateResult | typeof nothing {
    if (view.files.length === 0) return nothing
    const regex = patternRegExp(this.pattern)
    return html`<ul class="files">
      ${view.files.map((file, index) => {
        const collapsed = this.collapsed.has(index)
        return html`<li class="file" ?data-collapsed=${collapsed}>
          <div class="file-header">
            <button
              class="toggle"
              aria-expanded=${collapsed ? 'false' : 'true'}
              aria-label=${`${collapsed ? 'Expand' : 'Collapse'} ${file.path}`}
              @click=${() => this.toggle(index)}
            ></button>
            <button class="path" @click=${() => this.select({ path: file.path })}>${file.path}</button>
            <span class="badge">${file.matches.length}</span>
          </div>
          ${
            collapsed
              ? nothing
              : html`<ul class="lines">
                  ${file.matches.map(
                    (match) =>
                      html`<li>
                        <button class="line" @click=${() => this.select({ path: file.path, lineNumber: match.lineNumber })}>
                          <span class="number">${match.lineNumber}</span
                          ><span class="text"
                            >${highlightSegments(match.line, regex).map((segment) =>
                              segment.hit ? html`<mark>${segment.text}</mark>` : segment.text,
                            )}</span
                          >
                        </button>
                      </li>`,
                  )}
                </ul>`
          }
        </li>`
      })}
    </ul>`
  }

  private renderPaths(view: SearchPathsResultView): TemplateResult | typeof nothing {
    if (view.paths.length === 0) return nothing
    return html`<ul class="paths">
      ${view.paths.map((path) => html`<li><button class="path" @click=${() => this.select({ path })}>${path}</button></li>`)}
    </ul>`
  }

  private toggle(index: number): void {
    const next = new Set(this.collapsed)
    if (!next.delete(index)) next.add(index)
    this.collapsed = next
  }

  private select(detail: SearchSelectDetail): void {
    this.dispatchEvent(new CustomEvent<SearchSelectDetail>('dsh-select', { detail, bubbles: true, composed: true }))
  }
}

/**
 * The line above the results: how many, when the card holds fewer than the search found how many of
 * how many, and when the search did not read everything that more may exist.
 */
function summary(view: SearchResultView): TemplateResult {
  const noun = view.shape === 'matches' ? ['match', 'matches'] : ['file', 'files']
  const incomplete = view.incomplete ? html`<span class="incomplete">incomplete: more may exist</span>` : nothing
  const index = view.index === undefined ? nothing : html` <span class="index">${indexWords(view.index, view.shape)}</span>`
  if (view.total === 0) {
    return html`<p class="summary empty">${view.shape === 'matches' ? 'No matches' : 'No files'} ${incomplete}${index}</p>`
  }
  const total = `${view.total} ${view.total === 1 ? noun[0] : noun[1]}`
  const where = view.shape === 'matches' ? ` in ${view.files.length} ${view.files.length === 1 ? 'file' : 'files'}` : ''
  return html`<p class="summary">
    <span class="count">${view.truncated ? total : `${total}${where}`}</span>
    ${view.truncated ? html`<span class="truncated">showing ${shownCount(view)} of ${view.total}</span>` : nothing} ${incomplete}${index}
  </p>`
}

/**
 * The index's part in a few words: the answer is the same either way, so this only says what was read.
 * For grep, which files could match; for glob, whose modification times it gave.
 */
function indexWords(use: NonNullable<SearchResultView['index']>, shape: SearchResultView['shape']): string {
  if (!use.used) return `read every ${shape === 'matches' ? 'file' : "file's time"} (${use.reason})`
  const changed = use.changed > 0 ? `, ${use.changed} changed since it was built` : ''
  if (shape === 'paths') return `index: times of ${use.candidates} of ${use.indexedFiles} files recorded${changed}`
  const named = use.named === undefined ? '' : `, ${use.named} read by name`
  return `index: ${use.candidates} of ${use.indexedFiles} files could match${named}${changed}`
}

/** Defines `<dsh-search-card>` in `registry` unless something already did. */
export function defineSearchCard(registry: CustomElementRegistry = customElements): void {
  if (registry.get(SEARCH_CARD_TAG) === undefined) registry.define(SEARCH_CARD_TAG, SearchCard)
}

defineSearchCard()

declare global {
  interface HTMLElementTagNameMap {
    'dsh-search-card': SearchCard
  }
  interface HTMLElementEventMap {
    'dsh-select': CustomEvent<SearchSelectDetail>
  }
}
