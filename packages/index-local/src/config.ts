// index-local's options: where indexes live, how large they may grow, and when a search skips them.
import { availableParallelism, homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { describeIssues } from '@dsh/core'
import { z } from 'zod'
import { IndexError } from './errors.js'

const MiB = 1024 * 1024

/** The index's options: the plugin's `Config`, also accepted by `createLocalSearchIndex`. */
export const Config = z.strictObject({
  dir: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Directory that holds one private subdirectory (0700, files 0600) per indexed tree, named by a hash of the tree\'s real path; outside every tree, so an index is never searched or committed. @default "$XDG_CACHE_HOME/dsh/index", else "~/.cache/dsh/index"',
    ),
  indexMaxBytes: z
    .number()
    .int()
    .positive()
    .default(4096 * MiB)
    .describe(
      'An index file larger than this is not written: `dsh index` fails and searches read the whole tree as before. Trigram postings with their positions take about a third of the bytes they index in a tree of real code (0.30x the npm tree), up to about as many in one of small files (0.88x a generated tree). @default 4294967296',
    ),
  fileMaxBytes: z
    .number()
    .int()
    .positive()
    .default(64 * MiB)
    .describe('A file larger than this is not keyed: every search reads it, as without an index. @default 67108864'),
  buildWorkers: z
    .number()
    .int()
    .positive()
    .max(64)
    .optional()
    .describe(
      'Threads that read and key files while `dsh index` builds, each with its own 96 MB trigram table (a file and a positions mask for each key) and 96 MB of pair buffers; 1 builds in the calling thread. The index is the same byte for byte whatever the number. @default the available parallelism, at most 4',
    ),
  changedMaxEntries: z
    .number()
    .int()
    .positive()
    .default(20_000)
    .describe(
      'When more files and directories than this changed since the index was built, a search reads the whole tree (the index is too old to save much), and `dsh index` builds the index whole instead of updating it. @default 20000',
    ),
  watch: z
    .boolean()
    .default(false)
    .describe(
      'Keep an inotify watch on every directory of each index this process uses, so a search learns what changed since the build from events instead of walking the tree. For long-lived processes (dsh sets it in `dsh mcp` and its warm server); a watcher costs one watch per directory (`fs.inotify.max_user_watches`), and a search falls back to the walk whenever the watcher cannot vouch for every change. @default false',
    ),
  refreshAfter: z
    .number()
    .int()
    .nonnegative()
    .default(200)
    .describe(
      'With `watch`, once a search learns from the watcher that this many files and directories changed since the index (or its update) was built, the process updates the index from the watcher in the background, as `dsh index` would but without its walk, and the watcher goes on from the update: searches stay narrow through a long session (on a 500,000-file tree a narrow search took 71 ms with no change carried, 117 ms with 200, 316 ms with 1,000; a refresh of 100 files 0.23 s). 0 never. @default 200',
    ),
  broadFraction: z
    .number()
    .positive()
    .max(1)
    .default(0.3)
    .describe(
      'When the index leaves more than this share of the files under the search path as candidates, rg reads the whole tree instead: measured on a 500,000-file tree, rg with the candidates cost 0.53x a full pass at 15% of the files, 0.82x at 27%, and a full pass or more from about a third. @default 0.3',
    ),
})

/** Options for `createLocalSearchIndex`, as a host writes them. */
export type LocalIndexOptions = z.input<typeof Config>

/** Options after defaults, with the directory and the build's workers decided. */
export type LocalIndexSettings = Omit<z.output<typeof Config>, 'dir' | 'buildWorkers'> & { dir: string; buildWorkers: number }

// Each worker holds ~200 MB while the build runs: more cores raise that past 800 MB only when asked.
const MAX_DEFAULT_WORKERS = 4

/** Validates options with `Config` and decides the directory, throwing `INDEX_INVALID_CONFIG` for a bad field. */
export function resolveIndexOptions(options: LocalIndexOptions): LocalIndexSettings {
  const parsed = Config.safeParse(options)
  if (!parsed.success) {
    throw new IndexError('INDEX_INVALID_CONFIG', `index-local: invalid options: ${describeIssues(parsed.error)}`, { cause: parsed.error })
  }
  return {
    ...parsed.data,
    dir: resolve(parsed.data.dir ?? defaultDir()),
    buildWorkers: parsed.data.buildWorkers ?? Math.min(availableParallelism(), MAX_DEFAULT_WORKERS),
  }
}

/** `$XDG_CACHE_HOME/dsh/index`; the XDG spec ignores a relative XDG_CACHE_HOME and defaults it to ~/.cache. */
function defaultDir(): string {
  const cacheHome = process.env.XDG_CACHE_HOME
  const base = cacheHome !== undefined && isAbsolute(cacheHome) ? cacheHome : join(homedir(), '.cache')
  return join(base, 'dsh', 'index')
}
