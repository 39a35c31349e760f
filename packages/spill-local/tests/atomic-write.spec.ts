import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { writeFileAtomic } from '../src/atomic-write.js'

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

  it('removes its temp file and rethrows when the rename fails', async () => {
    const dir = mkdtempSync(join(scratch, 'blocked-'))
    mkdirSync(join(dir, 'out.txt'))
    await expect(writeFileAtomic(join(dir, 'out.txt'), 'text')).rejects.toMatchObject({ code: 'EISDIR' })
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })
})
