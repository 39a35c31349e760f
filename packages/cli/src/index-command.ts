// `dsh index [PATH] [--index-dir DIR] [--rebuild]`: builds or updates the content index of a tree, which grep then uses by itself.
import { realpath } from 'node:fs/promises'
import path from 'node:path'
import type { Harness } from '@dsh/core'
import { IndexError, updateIndex, type IndexReport, type LocalSearchIndex } from '@dsh/index-local'
import { EXIT, type CliIo, type ServedCall } from './cli-io.js'
import type { CommonOptions } from './command-line.js'
import { UsageError } from './command-line.js'

/** What the command runs with. */
export interface IndexRun {
  harness: Harness
  /** The tree to index, as typed (default the session cwd). */
  target: string | undefined
  /** `--index-dir`, absolute, when given; else the `index-local` config's `dir`. */
  indexDir: string | undefined
  /** Build the index whole even where an update would do. */
  rebuild: boolean
  cwd: string
  /** Ctrl-C, SIGTERM or SIGHUP (or the warm server's client's): stops the build or update, leaving the index as it was. */
  signal: AbortSignal
  /** Set in the warm server: it updates from its watcher, or hands the call back (CliIo.served). */
  served?: ServedCall | undefined
}

const MiB = 1024 * 1024

/**
 * Builds the index of the tree, or updates it with what changed since its build, and says what it
 * covers and cost: a line for a person, or with `--format json` the report. A tree that is not a
 * directory is a usage error; a build that fails (too large, unreadable) is the index's error, exit 2
 * either way. Cancelled, it says so and exits 130. In the warm server, an update of an index it
 * watches is written from the watcher's record, without the walk (docs/design.md#dsh-index-in-the-warm-server);
 * any other call is handed back before it prints, and the client runs it; one the watcher cannot
 * serve after all fails, saying to run it with --no-daemon.
 */
export async function runIndexCommand(run: IndexRun, common: CommonOptions, io: Pick<CliIo, 'stdout' | 'stderr'>): Promise<number> {
  const dir = path.resolve(run.cwd, run.target ?? '.')
  const root = await realpath(dir).catch(() => {
    throw new UsageError(`index: ${dir} does not exist`, { command: 'index' })
  })
  // dsh always loads index-local (DSH_PLUGINS), so the service is its local index.
  const index = run.harness.get('searchIndex') as LocalSearchIndex
  const configured = index.settings
  const settings = run.indexDir === undefined ? configured : { ...configured, dir: run.indexDir }
  let report: IndexReport
  if (run.served !== undefined) {
    // A build, a walk, or an index the server does not watch would cost the server minutes and memory: the client's own.
    if (run.rebuild || settings.dir !== configured.dir || !(await index.watches(root))) {
      run.served.decline(`the warm server updates only an index it watches, from its watcher, and ${root}'s is not one`)
      return EXIT.ok
    }
    run.served.admit()
    const refreshed = await index.refresh(root, { signal: run.signal })
    // Taken, it never walks or builds in the server: the person runs it in process, told why.
    if (refreshed.kind === 'skipped') {
      if (run.signal.aborted) return cancelled(io)
      io.stderr.write(
        `dsh: index: the warm server could not update the index from its watcher (${refreshed.why}); run dsh index --no-daemon\n`,
      )
      return EXIT.error
    }
    const { handedOn: _, ...keyed } = refreshed
    report = { ...keyed, kind: 'update', changesFrom: 'watcher' }
  } else {
    try {
      // Its change walk runs through the executor the searches' does.
      report = await updateIndex(settings, root, run.harness.get('bash')!, { rebuild: run.rebuild, signal: run.signal })
    } catch (error) {
      if (!(error instanceof IndexError && error.code === 'INDEX_CANCELLED')) throw error
      return cancelled(io)
    }
  }
  if (common.format === 'json') {
    io.stdout.write(`${JSON.stringify(report)}\n`)
  } else if (report.kind === 'update') {
    io.stdout.write(
      `updated the index of ${report.root} in ${(report.elapsedMs / 1000).toFixed(1)} s: ${report.changed} files and directories changed since its build` +
        `${report.changesFrom === 'watcher' ? " (from the warm server's watcher, no walk)" : ''}, ` +
        `${report.files} files (${(report.contentBytes / MiB).toFixed(1)} MiB) keyed again into ${(report.indexBytes / MiB).toFixed(1)} MiB at ${report.indexPath}\n`,
    )
  } else {
    const ratio = report.contentBytes === 0 ? 0 : report.indexBytes / report.contentBytes
    io.stdout.write(
      `indexed ${report.files} files (${(report.contentBytes / MiB).toFixed(1)} MiB) under ${report.root} in ${(report.elapsedMs / 1000).toFixed(1)} s: ` +
        `${(report.indexBytes / MiB).toFixed(1)} MiB (${ratio.toFixed(2)}x) at ${report.indexPath}` +
        `${report.alwaysRead > 0 ? `; ${report.alwaysRead} files are read by every search (too large, unreadable or UTF-16)` : ''}` +
        `${report.why === undefined ? '' : `; built whole, not updated: ${report.why}`}\n`,
    )
  }
  return EXIT.ok
}

/** Says the build or update was cancelled (Ctrl-C), and that nothing of it was kept. */
function cancelled(io: Pick<CliIo, 'stderr'>): number {
  io.stderr.write('dsh: index: cancelled; the index is as it was\n')
  return EXIT.interrupted
}
