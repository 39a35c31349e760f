// The `dsh` executable: everything else lives in runCli, which tests drive directly. Started with
// DSH_DAEMON_SOCKET set (by the thin client, daemon/client.ts spawnServer), it is the warm server instead.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { errorMessage } from '@dsh/core'
import { mayHandBack, runCli } from './cli.js'
import { SERVER_IDLE_ENV, SERVER_SOCKET_ENV } from './daemon/client.js'
import { buildIdentity, dirInfo, distrust, PROBE_CACHE_FILE, socketDir } from './daemon/place.js'
import { serveDaemon } from './daemon/server.js'
import { Config, LinkScanMemory, type ProbeCache } from '@dsh/tool-fs-search'
import { createDshHarness } from './harness.js'
import { createProbeCache } from './probe-cache.js'
import { firstInvalidArgument } from './raw-argv.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

/**
 * The probe cache (docs/design.md#the-probe-cache): in this process's memory, and kept on disk in the
 * user's private socket directory when there is one, so a call in process skips the probe too.
 */
function probeCache(): ProbeCache {
  const uid = process.getuid?.()
  const place = uid === undefined ? undefined : socketDir(process.env, uid)
  return createProbeCache(place === undefined || !('dir' in place) ? {} : { file: path.join(place.dir, PROBE_CACHE_FILE) })
}

/** Ends the process with status 2, an error (EXIT.error), after one line on stderr: a broken environment is no place for a stack trace. */
function fail(what: string, error: unknown): never {
  process.stderr.write(`dsh: ${what}: ${errorMessage(error)}\n`)
  process.exit(2)
}

async function runOnce(): Promise<void> {
  // A reader that closes early (`dsh grep x | head -1`) is not an error: stop quietly, as other tools do.
  // Any other write failure (a full disk, /dev/full) is, and says so in one line.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit()
    fail('cannot write the output', error)
  })

  // Node hands an argument whose bytes are not UTF-8 over with U+FFFD in their place: refuse it, not search for U+FFFD.
  const invalid = firstInvalidArgument(process.argv.length - 2)
  if (invalid !== undefined) {
    process.stderr.write(`dsh: argument ${invalid + 1} is not valid UTF-8 (the shell passed raw bytes); pass text as UTF-8\n`)
    process.exit(2)
  }

  let cwd: string
  try {
    cwd = process.cwd()
  } catch (error) {
    fail('the current directory cannot be read (was it deleted?); cd to another directory', error)
  }
  try {
    process.exitCode = await runCli(process.argv.slice(2), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd,
      version,
      stdio: { stdin: process.stdin, stdout: process.stdout },
      terminal: { isTTY: process.stdout.isTTY === true, env: process.env },
      probeCache: probeCache(),
    })
  } catch (error) {
    // A file as stdout writes synchronously, so its failure arrives here rather than as an event.
    if ((error as NodeJS.ErrnoException).syscall === 'write') fail('cannot write the output', error)
    throw error
  }
}

/** The warm server (docs/design.md#a-warm-server): serves calls at `socket` until idle or replaced, then exits. */
async function runServer(socket: string): Promise<void> {
  const idleMs = Number(process.env[SERVER_IDLE_ENV])
  delete process.env[SERVER_SOCKET_ENV]
  delete process.env[SERVER_IDLE_ENV]
  // Its own check of the directory the client checked: a socket anyone else can reach is never opened.
  const program = path.join(path.dirname(fileURLToPath(import.meta.url)), 'chunks', 'dsh-program.cjs')
  const build = buildIdentity(version, program)
  if (distrust(dirInfo(path.dirname(socket)), process.getuid!()) !== undefined || build === undefined) process.exit(2)
  // Where the call that started it ran: the tree searched next, most likely.
  const startedIn = process.cwd()
  process.chdir(os.tmpdir())
  // SIGTERM (a shutdown, a user's kill) stops it as idleness does: its socket file removed.
  const stop = new AbortController()
  process.once('SIGTERM', () => stop.abort())
  // One for the server's life: a call after the first skips the probe while its programs are unchanged.
  const cache = probeCache()
  // One for the server's life too: a search of a tree searched before checks its link scan with stats.
  const linkScanMemory = new LinkScanMemory(Config.parse({}).linkScanSettleMs)
  await serveDaemon({
    signal: stop.signal,
    socket,
    build,
    version,
    idleMs: Number.isFinite(idleMs) && idleMs > 0 ? idleMs : 300_000,
    run: (argv, io) => runCli(argv, { ...io, probeCache: cache, linkScanMemory }),
    mayDecline: mayHandBack,
    // One grep of a small tree compiles what calls run (as the build's code-cache run does).
    warmUp: async () => {
      const tree = mkdtempSync(path.join(os.tmpdir(), 'dsh-warm-'))
      const quiet = { write: () => true }
      try {
        await runCli(['grep', 'dsh-warm-up', '--cwd', tree, '--spill-dir', tree], {
          stdout: quiet,
          stderr: quiet,
          cwd: tree,
          version,
          stdio: { stdin: process.stdin, stdout: process.stdout },
          signal: new AbortController().signal,
          probeCache: cache,
        })
      } finally {
        rmSync(tree, { recursive: true, force: true })
      }
      // After the warm-up, not in it: a call that comes meanwhile is served and waits for the same load.
      // A failure (a policy that fails to answer, a fault in the code) is one line on the server's stderr,
      // as `fail` writes one, and the calls serve on. spawnServer gives it no stderr (stdio 'ignore'):
      // the line shows where the server is run by hand, with DSH_DAEMON_SOCKET set.
      void prepareIndex(startedIn, stop.signal, { linkScanMemory, probeCache: cache }).catch((error: unknown) =>
        process.stderr.write(`dsh: warm server: preparing the workspace ${startedIn} failed: ${errorMessage(error)}\n`),
      )
    },
  })
  process.exit(0)
}

/**
 * Loads the content index that covers `dir` and starts its watcher, then takes the link scan into the
 * memory the calls share, as the first search there would (docs/design.md#a-warm-process-loads-its-index-first):
 * with the config a call without `--config` has.
 */
async function prepareIndex(
  dir: string,
  signal: AbortSignal,
  shared: { linkScanMemory: LinkScanMemory; probeCache: ProbeCache },
): Promise<void> {
  // The server's probe cache and link memory: its calls' own, so no second probe runs beside the first call.
  const harness = await createDshHarness({ config: {}, warm: true, ...shared })
  await (harness.get('searchWarmUp') ?? harness.get('searchIndex'))?.prepare?.({ dir, signal })
}

const socket = process.env[SERVER_SOCKET_ENV]
await (socket === undefined ? runOnce() : runServer(socket))
