// The thin client's entry (bundled alone into dist/dsh-client.cjs): bin/dsh.js asks it first, and loads
// the program only when it answers undefined. It imports nothing of the program, so a served call costs
// Node's own start, this file and one round trip (docs/design.md#a-warm-server).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { firstInvalidArgument } from '../raw-argv.js'
import { callServer, spawnServerAtExit } from './client.js'
import { buildIdentity, idleMs, socketDir, socketPath } from './place.js'
import { servedCall } from './route.js'

// A live server answers `ok` within milliseconds; one that has not in this long is stuck or stopped.
const ACCEPT_MS = 2000

/**
 * Hands this process's call to the warm server: its exit status once the server has printed its
 * answer here, or undefined when the call is not served (not a served command, turned off, no
 * private socket directory, no server yet, busy, stale, broken), and the caller runs it in process.
 * `dist` is the built package's dist directory, where the program and its bundle sit.
 */
export async function handOver(argv: string[], dist: string): Promise<number | undefined> {
  const uid = process.getuid?.()
  if (uid === undefined || !servedCall(argv, process.env)) return undefined
  // Arguments whose bytes are not UTF-8 are refused in process, which says so.
  if (firstInvalidArgument(argv.length) !== undefined) return undefined
  let cwd: string
  try {
    cwd = process.cwd()
  } catch {
    return undefined // the program says why
  }
  const place = socketDir(process.env, uid)
  if (!('dir' in place)) return undefined
  const socket = socketPath(place.dir, dist)
  const { version } = JSON.parse(readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }
  const build = buildIdentity(version, path.join(dist, 'chunks', 'dsh-program.cjs'))
  if (socket === undefined || build === undefined) return undefined
  const onError = (error: NodeJS.ErrnoException): void => {
    // As in process: a reader that closes early is no error; any other write failure is one.
    if (error.code === 'EPIPE') process.exit()
    process.stderr.write(`dsh: cannot write the output: ${error.message}\n`)
    process.exit(2)
  }
  process.stdout.on('error', onError)
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))
  const status = await callServer(
    { build, argv, cwd, env, isTTY: process.stdout.isTTY === true },
    {
      socket,
      start: () => spawnServerAtExit(path.join(dist, 'dsh.mjs'), socket, idleMs(process.env), process.env),
      stdout: process.stdout,
      stderr: process.stderr,
      acceptMs: ACCEPT_MS,
    },
  )
  if (status === undefined) process.stdout.removeListener('error', onError)
  return status
}
