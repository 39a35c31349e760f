// The public surface of @dsh/search-card. Any new export here becomes public API.
// Importing it defines <dsh-search-card>.
export { SearchCard, SEARCH_CARD_TAG, defineSearchCard, type SearchSelectDetail } from './card.js'
export {
  toSearchView,
  type SearchResultView,
  type SearchMatchesResultView,
  type SearchPathsResultView,
  type SearchFileMatches,
  type SearchLineMatch,
} from './view.js'
