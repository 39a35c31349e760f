// What the client and the warm server say over the socket: one JSON value a line, each way.
// Node builtins only: the thin client imports this.

/** One call, as the client sends it: everything runCli reads from its process, the client's own. */
export interface CallRequest {
  /** The client's build identity (place.ts buildIdentity): a server of another build answers `stale`. */
  build: string
  argv: string[]
  cwd: string
  /** The client's environment, whole: the tools read it (PATH, XDG_STATE_HOME, the rg it runs). */
  env: Record<string, string>
  /** Whether the client's stdout is a terminal: `--color=auto` asks this of the client, never of the server. */
  isTTY: boolean
}

/** What the client sends after its request: Ctrl-C (or SIGTERM, SIGHUP) reached it. */
export const CANCEL = { cancel: true } as const

/**
 * A server's reply line. `ok`: the call runs; `o`/`e`: text for stdout/stderr, in order; `x`: the exit
 * status, last. `busy`, `stale` or `refused` instead of `ok`: the call did not run, and the client runs it
 * in process (after starting a new server, for `stale`).
 */
export type Reply = ['ok'] | ['o', string] | ['e', string] | ['x', number] | ['busy'] | ['stale'] | ['refused', string]

/** One message as its line. */
export function frame(message: CallRequest | typeof CANCEL | Reply): string {
  return `${JSON.stringify(message)}\n`
}

/**
 * Splits a byte stream into lines, each handed on whole; refuses (throws) a line longer than `max`
 * bytes, so a peer cannot make the other side buffer without end.
 */
export class LineReader {
  private parts: Buffer[] = []
  private size = 0

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly max: number,
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.parts.push(chunk.subarray(start, end))
      const line = Buffer.concat(this.parts).toString('utf8')
      this.parts = []
      this.size = 0
      start = end + 1
      this.onLine(line)
    }
    if (start < chunk.length) {
      this.size += chunk.length - start
      if (this.size > this.max) throw new Error(`a line longer than ${this.max} bytes`)
      this.parts.push(chunk.subarray(start))
    }
  }
}

/** A request line read, or undefined when it is not one: the server answers nothing it cannot read. */
export function readRequest(line: string): CallRequest | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { build, argv, cwd, env, isTTY } = value as Record<string, unknown>
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string')
  if (typeof build !== 'string' || !strings(argv) || typeof cwd !== 'string' || typeof isTTY !== 'boolean') return undefined
  if (typeof env !== 'object' || env === null || Array.isArray(env) || !strings(Object.values(env))) return undefined
  // A NUL cannot be in a path, a process argument or an environment value: a request with one is forged.
  const variables = env as Record<string, string>
  const texts: string[] = [cwd, ...argv, ...Object.keys(variables), ...Object.values(variables)]
  if (texts.some((text) => text.includes('\0')) || !cwd.startsWith('/')) return undefined
  return { build, argv, cwd, env: variables, isTTY }
}

/** A reply line read, or undefined when it is not one: the client then trusts nothing more from it. */
export function readReply(line: string): Reply | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!Array.isArray(value)) return undefined
  const [kind, data] = value as unknown[]
  switch (kind) {
    case 'ok':
    case 'busy':
    case 'stale':
      return value.length === 1 ? [kind] : undefined
    case 'o':
    case 'e':
    case 'refused':
      return value.length === 2 && typeof data === 'string' ? [kind, data] : undefined
    case 'x':
      return value.length === 2 && Number.isInteger(data) && (data as number) >= 0 && (data as number) < 256
        ? ['x', data as number]
        : undefined
    default:
      return undefined
  }
}
