import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { relayUpstreamStderr, UPSTREAM_STDERR_LINE_MAX_CHARS } from '../src/upstream/stderr.js'

/** Relays what `write` does to a stream, and returns the lines relayed once it ended. */
async function relay(chunks: (string | Buffer)[], maxBytes?: number): Promise<string[]> {
  const stream = new PassThrough()
  const lines: string[] = []
  relayUpstreamStderr(stream, 'srv\u202e', (text) => void lines.push(text), maxBytes)
  const ended = new Promise((resolve) => stream.on('end', resolve))
  for (const chunk of chunks) stream.write(chunk)
  stream.end()
  await ended
  return lines
}

describe('relayUpstreamStderr', () => {
  it('joins a line split across chunks and a character split across them, and relays an unended last line', async () => {
    const e = Buffer.from('é')
    expect(await relay(['one\ntw', 'o\r\nca', e.subarray(0, 1), Buffer.concat([e.subarray(1), Buffer.from('fe')])])).toEqual([
      '[srv\\u202e] one\n',
      '[srv\\u202e] two\n',
      '[srv\\u202e] caéfe\n',
    ])
  })

  it('removes escape sequences and shows hidden characters, so a line cannot drive the terminal', async () => {
    expect(await relay(['\u001b[2J\u001b[31mred\u001b[0m \u200bzero\n'])).toEqual(['[srv\\u202e] red \\u200bzero\n'])
  })

  it('shows bytes that are not UTF-8 as U+FFFD and a NUL escaped, never raw', async () => {
    expect(await relay([Buffer.from([0xff, 0x41, 0x00, 0x42, 0x0a])])).toEqual(['[srv\\u202e] \ufffdA\\u0000B\n'])
  })

  it('cuts a long line in one chunk, and relays a line that never ends in parts', async () => {
    const long = 'a'.repeat(UPSTREAM_STDERR_LINE_MAX_CHARS + 5)
    const [cut] = await relay([`${long}\n`])
    expect(cut).toBe(`[srv\\u202e] ${'a'.repeat(UPSTREAM_STDERR_LINE_MAX_CHARS)}… (line cut)\n`)
    const parts = await relay(['b'.repeat(UPSTREAM_STDERR_LINE_MAX_CHARS * 2 + 3)])
    expect(parts.map((part) => part.length)).toEqual([UPSTREAM_STDERR_LINE_MAX_CHARS + 13, UPSTREAM_STDERR_LINE_MAX_CHARS + 13, 3 + 13])
  })

  it('relays at most the bytes given, then says once that the rest is dropped', async () => {
    expect(await relay(['12345\n', '67890\n', 'more\n', 'and more\n'], 8)).toEqual([
      '[srv\\u202e] 12345\n',
      '[srv\\u202e] stderr past 8 bytes is dropped\n',
    ])
  })
})
