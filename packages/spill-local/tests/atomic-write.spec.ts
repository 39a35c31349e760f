import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { budgetMs } from '../../../test-support/budget.js'
import { scratchDir } from '../../../test-support/temp-tree.js'
import type { FileHandle } from 'node:fs/promises'
import { writeBlocks, writeFileAtomic } from '../src/atomic-write.js'

const scratch = scratchDir('spill-local-write')

describe('writeFileAtomic', () => {
  it('writes the whole text with mode 0600 and leaves no temp file', async () => {
    const dir = mkdtempSync(join(scratch, 'ok-'))
    await writeFileAtomic(join(dir, 'out.txt'), 'héllo\n')
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('héllo\n')
    expect(statSync(join(dir, 'out.txt')).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })

  it('writes blocks in order though their producer refills one buffer, and returns the bytes written', async () => {
    const dir = mkdtempSync(join(scratch, 'blocks-'))
    function* blocks(): Generator<Uint8Array> {
      const buffer = Buffer.alloc(4)
      for (const part of ['hé', 'llo ', 'wor', 'ld\n']) {
        const length = buffer.write(part)
        yield buffer.subarray(0, length)
        buffer.fill(0)
      }
    }
    expect(await writeFileAtomic(join(dir, 'out.txt'), blocks())).toBe(13)
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('héllo world\n')
  })

  it('gathers small blocks into large writes and writes a large one whole, in order', async () => {
    const dir = mkdtempSync(join(scratch, 'gathered-'))
    // Sizes about a write's worth of gathering: many small blocks, ones that cross it, and ones larger.
    const sizes = [1, 300_000, 300_000, 300_000, 300_000, 5, (1 << 20) + 3, 7, 1 << 20, 1, (1 << 20) - 1, 2, 900_000]
    const buffer = Buffer.alloc(Math.max(...sizes))
    function* blocks(): Generator<Uint8Array> {
      for (const [index, size] of sizes.entries()) {
        // One buffer refilled for every block, as the search tools' producers do.
        buffer.fill(0x61 + index, 0, size)
        yield buffer.subarray(0, size)
      }
    }
    const want = Buffer.concat(sizes.map((size, index) => Buffer.alloc(size, 0x61 + index)))
    expect(await writeFileAtomic(join(dir, 'out.txt'), blocks())).toBe(want.length)
    expect(readFileSync(join(dir, 'out.txt')).equals(want)).toBe(true)
    // Ending on a large block leaves nothing gathered; no block at all writes an empty file.
    const large = Buffer.alloc((1 << 20) + 1, 0x7a)
    expect(await writeFileAtomic(join(dir, 'large.txt'), [Buffer.from('a'), large])).toBe(large.length + 1)
    expect(readFileSync(join(dir, 'large.txt')).equals(Buffer.concat([Buffer.from('a'), large]))).toBe(true)
    expect(await writeFileAtomic(join(dir, 'empty.txt'), [])).toBe(0)
    expect(readFileSync(join(dir, 'empty.txt')).length).toBe(0)
  })

  it('takes blocks from an async producer, and writes nothing at the target when it throws', async () => {
    const dir = mkdtempSync(join(scratch, 'async-'))
    async function* good(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('a')
      yield Buffer.from('b')
    }
    expect(await writeFileAtomic(join(dir, 'good.txt'), good())).toBe(2)
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('partial')
      throw new Error('the formatter failed')
    }
    await expect(writeFileAtomic(join(dir, 'bad.txt'), failing())).rejects.toThrow('the formatter failed')
    expect(readdirSync(dir)).toEqual(['good.txt'])
  })

  it('makes the next blocks while the last megabyte is written, one write at a time and in order', async () => {
    // A handle whose writes finish only when the test says: the producer must get past a full
    // megabyte while its write is in flight, and no second write may start before the first ends.
    const written: string[] = []
    const pending: (() => void)[] = []
    let inFlight = 0
    const handle = {
      write: (bytes: Uint8Array, offset: number, length: number) => {
        inFlight += 1
        expect(inFlight).toBe(1)
        const text = Buffer.from(bytes.subarray(offset, offset + length)).toString('latin1')
        return new Promise((resolve) => pending.push(() => ((inFlight -= 1), written.push(text), resolve({ bytesWritten: length }))))
      },
    } as unknown as FileHandle
    const asked: number[] = []
    function* blocks(): Generator<Uint8Array> {
      for (const [index, letter] of ['a', 'b', 'c'].entries()) {
        asked.push(index)
        yield Buffer.alloc(700_000, letter)
      }
    }
    const done = writeBlocks(handle, blocks())
    // The first block's megabyte cannot hold the second: its write starts, and the third is asked for meanwhile.
    // Only promises settle between the steps: a budget for a loaded machine, not a measure of speed.
    const within = { timeout: budgetMs(1000) }
    await vi.waitFor(() => expect([pending.length, asked]).toEqual([1, [0, 1, 2]]), within)
    pending.shift()!()
    await vi.waitFor(() => expect(pending.length).toBe(1), within)
    pending.shift()!()
    await vi.waitFor(() => expect(pending.length).toBe(1), within)
    pending.shift()!()
    expect(await done).toBe(2_100_000)
    expect(written.map((text) => [text[0], text.length])).toEqual([
      ['a', 700_000],
      ['b', 700_000],
      ['c', 700_000],
    ])
  })

  it('reports a write that fails while the producer works, once that write is waited for', async () => {
    const handle = {
      write: () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })),
    } as unknown as FileHandle
    const blocks = [Buffer.alloc(700_000), Buffer.alloc(700_000), Buffer.alloc(700_000)]
    await expect(writeBlocks(handle, blocks)).rejects.toMatchObject({ code: 'ENOSPC' })
  })

  it('waits for the write in flight before it reports a producer that throws', async () => {
    let finished = false
    const handle = {
      write: (_bytes: Uint8Array, _offset: number, length: number) =>
        new Promise((resolve) => setTimeout(() => ((finished = true), resolve({ bytesWritten: length })), 20)),
    } as unknown as FileHandle
    function* blocks(): Generator<Uint8Array> {
      yield Buffer.alloc(700_000)
      yield Buffer.alloc(700_000)
      throw new Error('the formatter failed')
    }
    await expect(writeBlocks(handle, blocks())).rejects.toThrow('the formatter failed')
    // The handle is closed only after this returns: no write may still be running on it.
    expect(finished).toBe(true)
    // The producer's error is the one reported when the write in flight fails too.
    const failing = { write: () => Promise.reject(new Error('no space left on device')) } as unknown as FileHandle
    await expect(writeBlocks(failing, blocks())).rejects.toThrow('the formatter failed')
  })

  it('removes its temp file and rethrows when the rename fails', async () => {
    const dir = mkdtempSync(join(scratch, 'blocked-'))
    mkdirSync(join(dir, 'out.txt'))
    await expect(writeFileAtomic(join(dir, 'out.txt'), 'text')).rejects.toMatchObject({ code: 'EISDIR' })
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })
})
