// What tool_search tells a model: its description and its prompt section.
import { TOOL_SEARCH_TOOL_NAME, type PromptSection } from '@dsh/core'

/** What tool_search's schema tells a model. */
export const TOOL_SEARCH_DESCRIPTION = [
  'Load deferred tools so they can be called. A deferred tool is known by name only: its schema is not',
  'in the tool list, and calling it fails, until this tool loads it. `select:NAME[,NAME...]` loads tools by',
  'exact name; any other query is keywords matched against tool names, descriptions and search hints',
  '(`+word` must match), and the best matches are loaded. The result names each loaded tool with a',
  'line about what it does; loaded tools stay available for the rest of the session.',
].join(' ')

/** The system-prompt section registered with tool_search. */
export const TOOL_SEARCH_PROMPT_SECTION: PromptSection = {
  id: 'tool-search/tool_search',
  tool: TOOL_SEARCH_TOOL_NAME,
  text: [
    'Some tools are deferred to keep the tool list short: they are named without their schemas. Before',
    'using one, load it with tool_search: `select:NAME` when you know the name (several at once:',
    '`select:A,B`), or a few keywords when you do not, such as the service and the action (`slack send`);',
    'prefix a word with + when every result must match it (`+github issue`). Load what the task needs in',
    'one call rather than one tool at a time.',
  ].join(' '),
}
