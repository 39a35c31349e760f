// An upstream's stderr on dsh's: line by line, each prefixed with the server's name, cleaned and capped.
import type { Readable } from 'node:stream'
import { cleanUntrustedText, escapeHiddenCharacters } from '@dsh/core'

/** The longest line relayed, in characters; the rest of a longer one is cut and marked. */
export const UPSTREAM_STDERR_LINE_MAX_CHARS = 2000

/**
 * How much of one upstream connection's stderr is relayed, in bytes: a server's start-up banner and its
 * warnings fit many times over, and one that logs every request cannot fill the host's log.
 */
export const UPSTREAM_STDERR_MAX_BYTES = 1024 * 1024

/**
 * Relays `stream` to `write` a line at a time as `[server] line\n`. Each line is cleaned as upstream
 * text is (docs/design.md#upstream-text-is-cleaned): a server's colours are removed, and nothing it
 * writes can drive the terminal or forge another server's line. Past `maxBytes` one line says the rest
 * is dropped; a line with no end is cut at `UPSTREAM_STDERR_LINE_MAX_CHARS`.
 */
export function relayUpstreamStderr(
  stream: Readable,
  server: string,
  write: (text: string) => void,
  maxBytes = UPSTREAM_STDERR_MAX_BYTES,
): void {
  const prefix = `[${escapeHiddenCharacters(server)}] `
  const decoder = new TextDecoder('utf-8')
  let pending = ''
  let relayed = 0
  let dropped = false
  const emit = (line: string): void => {
    if (dropped) return
    const cleaned = cleanUntrustedText(line.replace(/\r$/, ''))
    const chars = [...cleaned]
    const text =
      chars.length <= UPSTREAM_STDERR_LINE_MAX_CHARS ? cleaned : `${chars.slice(0, UPSTREAM_STDERR_LINE_MAX_CHARS).join('')}… (line cut)`
    relayed += Buffer.byteLength(text)
    if (relayed > maxBytes) {
      dropped = true
      write(`${prefix}stderr past ${maxBytes} bytes is dropped\n`)
      return
    }
    write(`${prefix}${text}\n`)
  }
  stream.on('data', (chunk: Buffer) => {
    pending += decoder.decode(chunk, { stream: true })
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines) emit(line)
    // A line that never ends is relayed in parts rather than held without bound.
    while (pending.length > UPSTREAM_STDERR_LINE_MAX_CHARS) {
      emit(pending.slice(0, UPSTREAM_STDERR_LINE_MAX_CHARS))
      pending = pending.slice(UPSTREAM_STDERR_LINE_MAX_CHARS)
    }
  })
  stream.on('end', () => {
    pending += decoder.decode()
    if (pending !== '') emit(pending)
    pending = ''
  })
}
