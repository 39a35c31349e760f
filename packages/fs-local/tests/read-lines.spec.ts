import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReadLinesRequest } from '@dsh/core'
import { budgetMs } from '../../../test-support/budget.js'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { readFileLines } from '../src/read-lines.js'
import { statPath } from '../src/stat.js'

const scratch = scratchDir('fs-local-read')

let serial = 0
/** Writes a fresh file in the scratch directory and returns its absolute path. */
function file(content: string | Buffer): string {
  const path = join(scratch, `f${(serial += 1)}.txt`)
  writeFileSync(path, content)
  return path
}

const WINDOW = { offset: 1, limit: 2000, maxLineBytes: 2000, maxBytes: 50_000, binarySniffBytes: 8192 }
const read = (path: string, window: Partial<ReadLinesRequest> = {}, chunkBytes?: number) =>
  readFileLines({ ...WINDOW, path, ...window }, chunkBytes)

/** The descriptors this process holds open on `path`: a read must leave none behind. */
function openDescriptorsOf(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path
    } catch {
      return false
    }
  }).length
}

describe('readFileLines on real files', () => {
  it.each([
    ['CRLF line ends', 'a\r\nb\r\n', { lines: ['a', 'b'], totalLines: 2 }],
    ['a last line without a newline', 'a\nb', { lines: ['a', 'b'], totalLines: 2 }],
    ['an empty file', '', { lines: [], totalLines: 0 }],
    ['a file of one newline', '\n', { lines: [''], totalLines: 1 }],
  ])('reads %s to the end', async (_case, content, expected) => {
    const result = await read(file(content))
    expect(result).toEqual({
      lines: expected.lines.map((text, i) => ({ number: i + 1, text, cut: false })),
      stoppedBy: 'end',
      totalLines: expected.totalLines,
      lossy: false,
    })
  })

  it('says the file ended when the limit is reached exactly at its last line', async () => {
    const path = file('1\n2\n3\n')
    expect(await read(path, { offset: 2, limit: 2 })).toMatchObject({
      lines: [{ number: 2 }, { number: 3 }],
      stoppedBy: 'end',
      totalLines: 3,
    })
    expect(await read(path, { offset: 1, limit: 2 })).toMatchObject({ stoppedBy: 'limit' })
    expect(await read(path, { offset: 1, limit: 2 })).not.toHaveProperty('totalLines')
  })

  it('returns no lines and the line count for an offset past the end', async () => {
    expect(await read(file('1\n2\n3'), { offset: 9 })).toEqual({ lines: [], stoppedBy: 'end', totalLines: 3, lossy: false })
  })

  it('ends the window at maxBytes', async () => {
    expect(await read(file('aaaa\nbbbb\ncc\n'), { maxBytes: 8 })).toMatchObject({
      lines: [{ text: 'aaaa' }, { text: 'bbbb' }],
      stoppedBy: 'bytes',
    })
  })

  it('keeps a multi-byte character across a chunk boundary and cuts a long line on a character boundary', async () => {
    const path = file(`ab😀cd\n${'€'.repeat(10)}\nend\n`)
    // 4-byte chunks put the emoji's bytes in two chunks and the euro signs across four.
    expect(await read(path, { maxLineBytes: 8 }, 4)).toEqual({
      lines: [
        { number: 1, text: 'ab😀cd', cut: false },
        { number: 2, text: '€€', cut: true },
        { number: 3, text: 'end', cut: false },
      ],
      stoppedBy: 'end',
      totalLines: 3,
      lossy: false,
    })
  })

  it('cuts any line to a prefix of at most maxLineBytes whole characters, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map((s) => s.toWellFormed().replace(/[\n\r\0]/g, '.')),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 64 }),
        async (text, maxLineBytes, chunkBytes) => {
          const { lines } = await read(file(`${text}\nnext\n`), { maxLineBytes }, chunkBytes)
          const first = lines[0]!
          expect(text.startsWith(first.text)).toBe(true)
          expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(maxLineBytes)
          expect(first.cut).toBe(Buffer.byteLength(text) > maxLineBytes)
          expect(lines[1]).toEqual({ number: 2, text: 'next'.slice(0, maxLineBytes), cut: maxLineBytes < 4 })
        },
      ),
      { numRuns: 200 },
    )
  })

  it('decodes invalid UTF-8 as U+FFFD and reports the window lossy', async () => {
    const path = file(Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('\nok\n')]))
    expect(await read(path)).toMatchObject({ lines: [{ text: 'caf\ufffd' }, { text: 'ok' }], lossy: true })
    expect(await read(path, { offset: 2 })).toMatchObject({ lines: [{ text: 'ok' }], lossy: false })
  })

  it('follows a symbolic link', async () => {
    const link = join(scratch, 'link.txt')
    symlinkSync(file('through the link\n'), link)
    expect(await read(link)).toMatchObject({ lines: [{ text: 'through the link' }] })
  })
})

describe('binary files', () => {
  it('refuses a file with a NUL byte in its first binarySniffBytes bytes, without quoting its bytes', async () => {
    const path = file(`SECRET ${'a'.repeat(8183)}\0`)
    const failure = read(path)
    await expect(failure).rejects.toMatchObject({ code: 'FS_BINARY', message: `${path} is binary: a NUL byte is in its first 8192 bytes` })
    await expect(failure).rejects.not.toThrow(/SECRET/)
  })

  it('reads a file whose first NUL byte comes after binarySniffBytes, NUL shown as U+0000', async () => {
    const result = await read(file(`${'a\n'.repeat(4096)}\0tail\n`), { offset: 4097 })
    expect(result).toMatchObject({ lines: [{ number: 4097, text: '\0tail' }], stoppedBy: 'end', totalLines: 4097 })
  })

  it('finishes the sniff after the window is settled', async () => {
    const path = file(`first\n${'b'.repeat(100)}\0\n`)
    await expect(read(path, { limit: 1 }, 16)).rejects.toMatchObject({ code: 'FS_BINARY' })
    expect(await read(path, { limit: 1, binarySniffBytes: 0 }, 16)).toMatchObject({ lines: [{ text: 'first' }], stoppedBy: 'limit' })
  })

  it('takes an empty file for text', async () => {
    expect(await read(file(''), { binarySniffBytes: 8192 })).toMatchObject({ lines: [], totalLines: 0 })
  })
})

describe('what readFileLines refuses', () => {
  const dir = join(scratch, 'a-directory')
  const fifo = join(scratch, 'a-fifo')
  mkdirSync(dir)
  execFileSync('mkfifo', [fifo])

  it.each([
    ['a directory', dir, 'FS_IS_DIRECTORY', `${dir} is a directory, not a file`],
    [
      'a FIFO, without opening it (which would wait for a writer)',
      fifo,
      'FS_NOT_A_FILE',
      `${fifo} is not a regular file (it is a FIFO, socket or device)`,
    ],
    ['a device', '/dev/null', 'FS_NOT_A_FILE', '/dev/null is not a regular file (it is a FIFO, socket or device)'],
    ['a missing file', join(scratch, 'missing.txt'), 'FS_NOT_FOUND', `${join(scratch, 'missing.txt')} does not exist`],
    ['a path through a file', join(file('x'), 'below'), 'FS_NOT_FOUND', /does not exist$/],
    ['a relative path', 'relative.txt', 'FS_INVALID_PATH', 'the path "relative.txt" is not absolute'],
    ['a path with a NUL character', '/tmp/a\0b', 'FS_INVALID_PATH', 'the path "/tmp/a\\u0000b" contains a NUL character'],
  ])('%s', async (_case, path, code, message) => {
    const failure = read(path)
    await expect(failure).rejects.toMatchObject({ code })
    await expect(failure).rejects.toThrow(message)
  })

  it('reports a symbolic link loop as FS_READ_FAILED with the system error as cause', async () => {
    const loop = join(scratch, 'loop')
    symlinkSync('loop', loop)
    await expect(read(loop)).rejects.toMatchObject({
      code: 'FS_READ_FAILED',
      message: expect.stringMatching(/^cannot read .*loop: ELOOP/),
      cause: { code: 'ELOOP' },
    })
  })

  it('reports a failed read as FS_READ_FAILED and closes the file', async () => {
    // The kernel answers a read of this process's memory at address 0, which is never mapped, with EIO.
    await expect(read('/proc/self/mem')).rejects.toMatchObject({ code: 'FS_READ_FAILED', cause: { code: 'EIO' } })
    expect(openDescriptorsOf('/proc/self/mem')).toBe(0)
  })

  it.each([
    ['offset', 0],
    ['limit', 1.5],
    ['maxLineBytes', Number.NaN],
    ['maxBytes', -1],
    ['binarySniffBytes', -1],
  ])("treats %s = %s as the caller's bug: a RangeError", async (field, value) => {
    await expect(read(file('x'), { [field]: value })).rejects.toThrow(
      new RangeError(`readLines: ${field} must be an integer ≥ ${field === 'binarySniffBytes' ? 0 : 1}, got ${value}`),
    )
  })
})

// Root reads every file, so as root the read runs with the effective uid of nobody (the real uid stays
// root, which lets the test take root back). Vitest runs each test file in its own process.
const isRoot = process.getuid?.() === 0
async function asUnprivileged<T>(work: () => Promise<T>): Promise<T> {
  if (!isRoot) return work()
  process.seteuid!(65534)
  try {
    return await work()
  } finally {
    process.seteuid!(0)
  }
}

describe('permissions', () => {
  const open = join(scratch, 'open')
  const closed = join(scratch, 'closed')
  mkdirSync(open)
  mkdirSync(closed)
  const locked = join(open, 'locked.txt')
  const inside = join(closed, 'inside.txt')
  writeFileSync(locked, 'secret\n')
  writeFileSync(inside, 'secret\n')
  chmodSync(scratch, 0o755)
  chmodSync(open, 0o755)
  chmodSync(locked, 0o000)
  chmodSync(closed, 0o000)

  it('reports a file it may not open as FS_PERMISSION', async () => {
    const failure = asUnprivileged(() => read(locked))
    await expect(failure).rejects.toMatchObject({
      code: 'FS_PERMISSION',
      message: `permission denied: ${locked}`,
      cause: { code: 'EACCES' },
    })
  })

  it('reports a file in a directory it may not enter as FS_PERMISSION, from stat too', async () => {
    await expect(asUnprivileged(() => read(inside))).rejects.toMatchObject({ code: 'FS_PERMISSION' })
    await expect(asUnprivileged(() => statPath(inside))).rejects.toMatchObject({ code: 'FS_PERMISSION' })
  })
})

describe('cancellation', () => {
  it('does not open the file when the signal is already aborted', async () => {
    const path = file('x\n')
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(read(path, { signal: controller.signal })).rejects.toMatchObject({
      code: 'FS_ABORTED',
      message: `reading ${path} was cancelled`,
      cause: new Error('stop'),
    })
  })

  it('stops a read in progress and closes the file', async () => {
    // 64 MiB of one line, read 4 KiB at a time: thousands of reads, so the abort lands mid-way.
    const path = file(Buffer.alloc(64 * 1024 * 1024, 'x'))
    const controller = new AbortController()
    const pending = read(path, { offset: 2 }, 4096)
    setTimeout(() => controller.abort(), 5)
    await expect(readFileLines({ ...WINDOW, path, offset: 2, signal: controller.signal }, 4096)).rejects.toMatchObject({
      code: 'FS_ABORTED',
    })
    expect(await pending).toMatchObject({ lines: [], totalLines: 1 })
    expect(openDescriptorsOf(path)).toBe(0)
  })
})

describe('a 1 GiB file', () => {
  const MiB = 1024 * 1024
  const huge = join(scratch, 'huge.txt')
  const head = Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join('')
  beforeAll(() => {
    // 100 short lines, one line of 1 GiB of "x" (no NUL, so not binary), then one more line.
    const fd = openSync(huge, 'w')
    writeSync(fd, head)
    const block = Buffer.alloc(MiB, 'x')
    for (let i = 0; i < 1024; i += 1) writeSync(fd, block)
    writeSync(fd, '\nafter\n')
    closeSync(fd)
  })
  afterAll(() => rmSync(huge, { force: true }))

  it('reads lines 1-100 at once and says the file continues', async () => {
    const started = performance.now()
    const result = await read(huge, { limit: 100 })
    expect(performance.now() - started).toBeLessThan(budgetMs(1000))
    expect(result).toMatchObject({ stoppedBy: 'limit', lossy: false })
    expect(result.lines.map((l) => l.text)).toEqual(head.trimEnd().split('\n'))
  })

  it('returns a window on the gigabyte line at once, cut, without looking for its end', async () => {
    const started = performance.now()
    const result = await read(huge, { offset: 100, limit: 2 })
    expect(performance.now() - started).toBeLessThan(budgetMs(1000))
    expect(result).toEqual({
      lines: [
        { number: 100, text: 'line 100', cut: false },
        { number: 101, text: 'x'.repeat(2000), cut: true },
      ],
      stoppedBy: 'limit',
      lossy: false,
    })
  })

  it('stops scanning the gigabyte line when aborted, and closes the file', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const started = performance.now()
    await expect(read(huge, { offset: 102, signal: controller.signal })).rejects.toMatchObject({ code: 'FS_ABORTED' })
    expect(performance.now() - started).toBeLessThan(budgetMs(1000))
    expect(openDescriptorsOf(huge)).toBe(0)
  })

  it(
    'holds its memory flat in a fresh process, at the start of the file and past the gigabyte line',
    async () => {
      // A child node runs the provider bundled from src, so its peak RSS is the read's and not the test runner's.
      const bundle = join(scratch, 'fs-local.mjs')
      await build({
        entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
        outfile: bundle,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        alias: { '@dsh/core': fileURLToPath(new URL('../../core/src/index.ts', import.meta.url)) },
        logLevel: 'warning',
      })
      const child = join(scratch, 'measure.mjs')
      writeFileSync(
        child,
        [
          `import { createLocalFileSystem } from ${JSON.stringify(bundle)}`,
          'const [path, offset, limit] = process.argv.slice(2)',
          'const started = performance.now()',
          'const result = await createLocalFileSystem().readLines({ path, offset: Number(offset), limit: Number(limit), maxLineBytes: 2000, maxBytes: 50000, binarySniffBytes: 8192 })',
          'const ms = performance.now() - started',
          'console.log(JSON.stringify({ ms, peakRssBytes: process.resourceUsage().maxRSS * 1024, lines: result.lines.map((l) => l.text.slice(0, 10)), stoppedBy: result.stoppedBy }))',
        ].join('\n'),
      )
      const measure = (offset: number, limit: number) =>
        JSON.parse(execFileSync(process.execPath, [child, huge, String(offset), String(limit)], { encoding: 'utf8' })) as {
          ms: number
          peakRssBytes: number
          lines: string[]
          stoppedBy: string
        }

      const start = measure(1, 100)
      expect(start).toMatchObject({ lines: head.trimEnd().split('\n'), stoppedBy: 'limit' })
      expect(start.ms).toBeLessThan(budgetMs(1000))
      expect(start.peakRssBytes).toBeLessThan(100 * MiB)

      const past = measure(102, 10)
      expect(past).toMatchObject({ lines: ['after'], stoppedBy: 'end' })
      expect(past.peakRssBytes).toBeLessThan(100 * MiB)
    },
    budgetMs(60_000),
  )
})
