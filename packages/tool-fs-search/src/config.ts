// The search tools' budgets and ripgrep choice, out of the model-facing schemas.
import { z } from 'zod'

const positiveInt = () => z.number().int().positive()

/** The search tools' configuration: budgets stay out of the model-facing schemas. */
export const Config = z.strictObject({
  profile: z
    .enum(['dsh', 'claude-code'])
    .default('dsh')
    .describe(
      "The tool surface: `dsh` registers glob(pattern, path?) and grep(pattern, path?, include?); `claude-code` registers Claude Code's Glob and Grep (output modes, context, case, type, paging). @default dsh",
    ),
  globMaxResults: positiveInt().max(100_000).default(100).describe("Paths shown inline; Claude Code's GlobTool default. @default 100"),
  grepMaxMatches: positiveInt()
    .max(100_000)
    .default(250)
    .describe("Matches shown inline; Claude Code's GrepTool head_limit default. @default 250"),
  grepMaxLineBytes: positiveInt()
    .max(1_000_000)
    .default(2000)
    .describe('Bytes of one matched line kept (rg --max-columns, then a UTF-8-safe cut). @default 2000'),
  grepMaxMatchesPerFile: positiveInt()
    .max(100_000)
    .default(50)
    .describe(
      'When the inline page cannot hold every match, no file shows more than this many, so one generated file cannot take the page; the files cut are named. @default 50',
    ),
  inlineMaxBytes: positiveInt()
    .max(10_000_000)
    .default(20_000)
    .describe(
      "Bytes of result text shown inline, footers excluded; mirrors the 20,000 characters above which Claude Code's GrepTool persists a result. @default 20000",
    ),
  rawOutputMaxBytes: positiveInt()
    // bash-local's ceiling on captured stdout; a larger cap could never be honoured.
    .max(256 * 1024 * 1024)
    .default(20_000_000)
    .describe(
      "Bytes of rg output held in memory (Claude Code's raw buffer). grep, glob and Claude Code's Grep (every output mode) move what passes it to the spill store's scratch file and keep going, so it bounds memory, not the answer. @default 20000000",
    ),
  spillMaxBytes: positiveInt()
    .default(1024 * 1024 * 1024)
    .describe(
      'Bytes of one saved result at most: past it the spill keeps the head of the result and both it and the page say how much of the true total it holds. @default 1073741824',
    ),
  searchMetaMaxBytes: positiveInt()
    .max(64 * 1024 * 1024)
    .default(65_536)
    .describe(
      "Bytes of a result's serialized search card (presentation meta), which a host persists and resends: trailing files or paths past it are dropped and the card says it is truncated. @default 65536",
    ),
  timeoutMs: positiveInt()
    .max(3_600_000)
    .default(30_000)
    .describe('How long a search may run: past it rg is stopped and the result is what it found by then, marked partial. @default 30000'),
  index: z
    .enum(['auto', 'off'])
    .default('auto')
    .describe(
      'Whether grep asks a content index (`dsh index`) which files cannot match: `auto` when one covers the searched tree, `off` never. rg still decides every match, so the answer is the same; files changed since the index was built are always read. @default auto',
    ),
  rememberLinkScans: z
    .boolean()
    .default(true)
    .describe(
      "Keep each searched directory's link scan between calls in this process and check it with one stat per directory, reading again only the directories that changed, instead of walking the tree before every search (docs/design.md#the-link-scan-is-remembered). The first search of a directory walks it. @default true",
    ),
  watchLinkScans: z
    .boolean()
    .default(true)
    .describe(
      "From a directory's second search in this process on, watch its directories (one inotify watch each, on a local file system only) so a later search stats only those an event named, instead of all of them (docs/design.md#a-watched-tree-needs-no-link-stats). Off: stats every time. @default true",
    ),
  linkScanSettleMs: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(5000)
    .describe(
      "A directory whose last change came within this long before a link scan began is read again at the next search even when its stamp looks unchanged: it covers the file system's timestamp granularity (2 s on FAT) and clock skew with a file server. @default 5000",
    ),
  rgPath: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The rg to run. Unset: the packaged @vscode/ripgrep binary, else `rg` on the executor PATH; each is probed in the executor. @default (unset)',
    ),
})

/** Validated search configuration. */
export type SearchConfig = z.output<typeof Config>
