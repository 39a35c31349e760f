// Where the warm server listens, and who it is: a socket in a directory only this user can enter, and
// the identity of the build it runs. Node builtins only: the thin client imports this.
import { lstatSync, mkdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** What the directory check sees of a directory: lstat's answer, or undefined when there is none. */
export interface DirInfo {
  isDirectory: boolean
  isSymbolicLink: boolean
  uid: number
  mode: number
}

/**
 * Why a socket directory cannot be trusted, or undefined when it can: it must be a real directory (not
 * a link to one), owned by this uid, that no one else may enter or list (docs/design.md#a-warm-server).
 * Node cannot read a Unix socket's peer credentials, so this directory is what keeps other users out:
 * only its owner can reach the socket inside it.
 */
export function distrust(info: DirInfo | undefined, uid: number): string | undefined {
  if (info === undefined) return 'it does not exist'
  if (info.isSymbolicLink || !info.isDirectory) return 'it is not a directory'
  if (info.uid !== uid) return `it is owned by uid ${info.uid}, not ${uid}`
  if ((info.mode & 0o077) !== 0) return `its mode is ${(info.mode & 0o777).toString(8)}, not 700`
  return undefined
}

/** lstat's answer as the check reads it. */
export function dirInfo(dir: string): DirInfo | undefined {
  try {
    const info = lstatSync(dir)
    return { isDirectory: info.isDirectory(), isSymbolicLink: info.isSymbolicLink(), uid: info.uid, mode: info.mode }
  } catch {
    return undefined
  }
}

// A Unix socket's path must fit sockaddr_un's sun_path: 108 bytes on Linux, 104 on macOS and the BSDs.
const SOCKET_PATH_MAX = 103

/**
 * The socket directory: `$XDG_RUNTIME_DIR/dsh` (a per-user tmpfs the login manager makes 0700), or
 * `dsh-UID` in the temp directory; made 0700 when missing. Undefined, with the reason, when it is not
 * this user's alone; the caller then runs in process.
 */
export function socketDir(env: Readonly<Record<string, string | undefined>>, uid: number): { dir: string } | { refused: string } {
  const runtime = env.XDG_RUNTIME_DIR
  const dir = runtime !== undefined && path.isAbsolute(runtime) ? path.join(runtime, 'dsh') : path.join(os.tmpdir(), `dsh-${uid}`)
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch {
    // Already there (checked below), or cannot be made (then the check says it does not exist).
  }
  const why = distrust(dirInfo(dir), uid)
  return why === undefined ? { dir } : { refused: `${dir}: ${why}` }
}

/** The probe cache's file in the socket directory (docs/design.md#the-probe-cache). */
export const PROBE_CACHE_FILE = 'probe-cache.json'

/**
 * The socket one installed dsh listens on: named by a hash of its program's directory, so two installs
 * (a global one, a project's) each have their own server, and the same install always finds its own.
 */
export function socketPath(dir: string, programDir: string): string | undefined {
  const file = path.join(dir, `${fnv1a(programDir)}.sock`)
  return Buffer.byteLength(file) <= SOCKET_PATH_MAX ? file : undefined
}

/** A 32-bit FNV-1a hash in hex: names a socket, guards nothing (the build identity does that). */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash.toString(16).padStart(8, '0')
}

/**
 * The identity of the code a server runs: the dsh version, the Node that runs it, and the program
 * file's inode, size and mtime, so a rebuild or an upgrade in place is a different build. A client
 * whose identity differs never uses the server: it is replaced.
 */
export function buildIdentity(version: string, program: string, node = process.version): string | undefined {
  try {
    const info = statSync(program)
    return [version, node, info.dev, info.ino, info.size, info.mtimeMs].join(':')
  } catch {
    return undefined
  }
}

/** DSH_DAEMON_IDLE_SECONDS: how long a server started now waits for its next call. */
export const IDLE_ENV = 'DSH_DAEMON_IDLE_SECONDS'
/** A few minutes: long enough to keep a working session warm, short enough to give memory back soon. */
export const DEFAULT_IDLE_SECONDS = 300

/** The idle timeout a new server gets (ms), from DSH_DAEMON_IDLE_SECONDS (a positive number) or the default. */
export function idleMs(env: Readonly<Record<string, string | undefined>>): number {
  const seconds = Number(env[IDLE_ENV])
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_IDLE_SECONDS) * 1000
}
