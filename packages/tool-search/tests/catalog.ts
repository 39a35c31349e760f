// A catalog of ~150 tools as a harness meets them: MCP servers' tools (deferred by default) and built-ins.
import { z } from 'zod'
import { defineTool, type ToolDefinition } from '@dsh/core'

/** One tool as data: its name, its description, and the metadata search reads. */
export interface CatalogRow {
  name: string
  description: string
  searchHint?: string
  shouldDefer?: boolean
  alwaysLoad?: boolean
}

/** An MCP server's tools, named `mcp__<server>__<tool>` the way an MCP client prefixes them. */
function server(
  name: string,
  tools: Record<string, string>,
  extra: Record<string, Partial<CatalogRow>> = {},
): (CatalogRow & { isMcp: true })[] {
  return Object.entries(tools).map(([tool, description]) => ({
    name: `mcp__${name}__${tool}`,
    description,
    isMcp: true,
    ...extra[tool],
  }))
}

const slack = server('slack', {
  send_message: 'Send a message to a Slack channel or direct message.',
  list_channels: 'List the public channels in the workspace.',
  get_channel_history: 'Get recent messages from a channel.',
  reply_to_thread: 'Reply to a message thread in a channel.',
  add_reaction: 'Add an emoji reaction to a message.',
  get_thread_replies: 'Get every reply in a message thread.',
  get_users: 'List workspace users with their basic profile.',
  get_user_profile: 'Get the detailed profile of one user.',
  search_messages: 'Search messages across channels with Slack search syntax.',
  create_channel: 'Create a channel.',
  archive_channel: 'Archive a channel so no one can post to it.',
  invite_to_channel: 'Invite users to a channel.',
  upload_file: 'Upload a file and share it in a channel.',
  set_channel_topic: 'Set the topic shown at the top of a channel.',
  schedule_message: 'Schedule a message to be posted later.',
})

const github = server(
  'github',
  {
    create_issue: 'Create an issue in a GitHub repository.',
    get_issue: 'Get an issue of a repository by number.',
    list_issues: 'List the issues of a repository, filtered by state and labels.',
    update_issue: 'Update the title, body, state or labels of an issue.',
    add_issue_comment: 'Add a comment to an issue or pull request.',
    search_issues: 'Search issues and pull requests across GitHub.',
    create_pull_request: 'Open a pull request from a branch.',
    get_pull_request: 'Get a pull request by number.',
    list_pull_requests: 'List the pull requests of a repository.',
    merge_pull_request: 'Merge a pull request.',
    get_pull_request_diff: 'Get the diff of a pull request.',
    create_pull_request_review: 'Review a pull request: approve, comment or request changes.',
    get_file_contents: 'Get the contents of a file or directory in a repository.',
    create_or_update_file: 'Create or update one file in a repository with a commit.',
    push_files: 'Push several files in one commit.',
    search_code: 'Search code across GitHub repositories.',
    search_repositories: 'Search GitHub repositories.',
    create_repository: 'Create a repository in your account.',
    fork_repository: 'Fork a repository to your account or an organization.',
    create_branch: 'Create a branch in a repository.',
    list_commits: 'List the commits of a branch.',
    get_commit: 'Get one commit with its diff.',
    list_workflow_runs: 'List GitHub Actions workflow runs of a repository.',
    get_me: 'Get the authenticated GitHub user.',
    list_notifications: 'List your unread GitHub notifications.',
  },
  { get_me: { alwaysLoad: true } },
)

const linear = server('linear', {
  createIssue: 'Create a Linear issue in a team.',
  getIssue: 'Get a Linear issue by its identifier, such as ENG-123.',
  listIssues: 'List Linear issues filtered by team, state or assignee.',
  updateIssue: 'Update the fields of a Linear issue.',
  searchIssues: 'Search Linear issues by text.',
  createComment: 'Comment on a Linear issue.',
  listTeams: 'List the teams in the Linear workspace.',
  getTeam: 'Get a team with its workflow states.',
  listProjects: 'List Linear projects.',
  createProject: 'Create a Linear project.',
  getProject: 'Get a Linear project with its milestones.',
  listCycles: 'List the cycles of a team.',
  listIssueLabels: 'List the labels issues can carry.',
  assignIssue: 'Assign a Linear issue to a user.',
  getViewer: 'Get the authenticated Linear user.',
})

const jira = server('jira', {
  'create-issue': 'Create a Jira issue in a project.',
  'get-issue': 'Get a Jira issue by key, such as PROJ-42.',
  'search-issues': 'Search Jira issues with JQL.',
  'update-issue': 'Update the fields of a Jira issue.',
  'transition-issue': 'Move a Jira issue to another status.',
  'get-transitions': 'List the statuses a Jira issue can move to.',
  'add-comment': 'Comment on a Jira issue.',
  'list-projects': 'List the Jira projects you can see.',
  'get-project': 'Get a Jira project.',
  'create-sprint': 'Create a sprint on a board.',
  'get-sprint-issues': 'List the issues in a sprint.',
  'link-issues': 'Link two Jira issues, e.g. "blocks".',
  'assign-issue': 'Assign a Jira issue to a user.',
  'add-worklog': 'Log time spent on a Jira issue.',
  'get-board': 'Get a Scrum or Kanban board.',
})

const jupyter = server(
  'jupyter',
  {
    read_notebook: 'Read a notebook: its cells and their outputs.',
    create_notebook: 'Create an empty notebook.',
    insert_cell: 'Insert a code or markdown cell into a notebook.',
    edit_cell: 'Replace the source of a notebook cell.',
    delete_cell: 'Delete a cell from a notebook.',
    execute_cell: 'Run one cell on the kernel and return its output.',
    run_all_cells: 'Run every cell of a notebook in order.',
    get_cell_output: 'Get the stored output of a cell.',
    list_kernels: 'List the running kernels.',
    restart_kernel: 'Restart the kernel, clearing its state.',
  },
  { read_notebook: { searchHint: 'ipynb' } },
)

const playwright = server('playwright', {
  browser_navigate: 'Navigate the browser to a URL.',
  browser_navigate_back: 'Go back to the previous page.',
  browser_click: 'Click an element on the page.',
  browser_type: 'Type text into an editable element.',
  browser_hover: 'Hover over an element.',
  browser_drag: 'Drag an element onto another.',
  browser_press_key: 'Press a key on the keyboard.',
  browser_fill_form: 'Fill several form fields at once.',
  browser_select_option: 'Select an option in a dropdown.',
  browser_file_upload: 'Upload files through a file chooser.',
  browser_snapshot: 'Capture an accessibility snapshot of the page, better than a screenshot for acting on it.',
  browser_take_screenshot: 'Take a screenshot of the page or an element.',
  browser_evaluate: 'Evaluate a JavaScript expression on the page.',
  browser_console_messages: 'Return the console messages of the page.',
  browser_network_requests: 'List the network requests since the page loaded.',
  browser_wait_for: 'Wait for text to appear or disappear, or for a time to pass.',
  browser_handle_dialog: 'Accept or dismiss a dialog.',
  browser_tabs: 'List, open, close or select browser tabs.',
  browser_resize: 'Resize the browser window.',
  browser_close: 'Close the page.',
})

const puppeteer = server('puppeteer', {
  puppeteer_navigate: 'Navigate to a URL in headless Chrome.',
  puppeteer_screenshot: 'Take a screenshot of the current page.',
  puppeteer_click: 'Click an element by CSS selector.',
  puppeteer_fill: 'Fill an input field.',
  puppeteer_evaluate: 'Execute JavaScript in the browser console.',
})

const others = [
  ...server('postgres', {
    query: 'Run a read-only SQL query.',
    list_tables: 'List the tables of the database.',
    describe_table: 'Describe the columns of a table.',
  }),
  ...server('sentry', {
    get_issue_details: 'Get a Sentry issue with its latest event and stack trace.',
    search_events: 'Search error events in Sentry.',
    list_projects: 'List Sentry projects.',
    resolve_issue: 'Mark a Sentry issue resolved.',
    get_trace: 'Get a performance trace.',
  }),
  ...server('notion', {
    search: 'Search pages and databases in Notion.',
    create_page: 'Create a Notion page.',
    update_page: 'Update the properties of a Notion page.',
    query_database: 'Query a Notion database with filters and sorts.',
    append_blocks: 'Append blocks to a page.',
  }),
  ...server('gdrive', { search_files: 'Search files in Google Drive.', read_file: 'Read a Google Drive file as text.' }),
  ...server('context7', {
    'resolve-library-id': 'Resolve a package name to a library id for documentation lookups.',
    'get-library-docs': 'Fetch up-to-date documentation of a library.',
  }),
  ...server('memory', {
    create_entities: 'Create entities in the knowledge graph.',
    create_relations: 'Relate entities in the knowledge graph.',
    search_nodes: 'Search the knowledge graph.',
    open_nodes: 'Open nodes of the knowledge graph by name.',
  }),
  ...server('time', { get_current_time: 'Get the current time in a time zone.', convert_time: 'Convert a time between zones.' }),
  ...server('fetch', { fetch: 'Fetch a URL and return its content as markdown.' }),
]

/** Built-in tools: most are deferred by `shouldDefer`; the file tools are always listed. */
const builtins: CatalogRow[] = [
  {
    name: 'NotebookEdit',
    description: 'Replace, insert or delete a cell in a Jupyter notebook.',
    searchHint: 'jupyter ipynb',
    shouldDefer: true,
  },
  { name: 'WebFetch', description: 'Fetch a web page and answer a question about it.', searchHint: 'http url download', shouldDefer: true },
  {
    name: 'WebSearch',
    description: 'Search the web and return result titles and links.',
    searchHint: 'internet google',
    shouldDefer: true,
  },
  { name: 'LSP', description: 'Code intelligence for TypeScript, Python, Go and C++: definitions, references, hover.', shouldDefer: true },
  { name: 'TodoWrite', description: 'Write the task list for this session.', searchHint: 'plan checklist', shouldDefer: true },
  { name: 'ExitPlanMode', description: 'Leave plan mode once the plan is ready for review.', shouldDefer: true },
  { name: 'EnterWorktree', description: 'Create a git worktree and work inside it.', shouldDefer: true },
  { name: 'KillShell', description: 'Stop a background shell.', shouldDefer: true },
  { name: 'BashOutput', description: 'Read new output of a background shell.', shouldDefer: true },
  { name: 'ListMcpResources', description: 'List the resources MCP servers offer.', shouldDefer: true },
  { name: 'ReadMcpResource', description: 'Read one MCP resource by URI.', shouldDefer: true },
  { name: 'CronCreate', description: 'Schedule a prompt to run on a cron schedule.', searchHint: 'recurring timer', shouldDefer: true },
  { name: 'CronDelete', description: 'Delete a scheduled prompt.', shouldDefer: true },
  { name: 'AskUserQuestion', description: 'Ask the user a multiple-choice question.', shouldDefer: true },
  { name: 'HTTPRequest', description: 'Send an HTTP request and return the response.', searchHint: 'api rest', shouldDefer: true },
  { name: 'Bash', description: 'Run a shell command.' },
  { name: 'Edit', description: 'Replace text in a file.' },
  { name: 'Write', description: 'Write a file.' },
  { name: 'glob', description: 'Find files by name.' },
  { name: 'grep', description: 'Search file contents with a regular expression.' },
  { name: 'read', description: "Read a file's lines." },
]

/** Every row of the catalog, MCP servers first. */
export const CATALOG_ROWS: readonly (CatalogRow & { isMcp?: boolean })[] = [
  ...slack,
  ...github,
  ...linear,
  ...jira,
  ...jupyter,
  ...playwright,
  ...puppeteer,
  ...others,
  ...builtins,
]

/** The catalog as tool definitions; each tool echoes its name when called. */
export function catalogTools(rows: readonly (CatalogRow & { isMcp?: boolean })[] = CATALOG_ROWS): ToolDefinition[] {
  return rows.map((row) =>
    defineTool({
      ...row,
      parameters: z.strictObject({ note: z.string().optional() }),
      execute: async () => ({ content: `${row.name} ran` }),
    }),
  )
}
