import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { createLocalSpillStore } from '../src/store.js'

const scratch = scratchDir('spill-local-scratch')

/** The scratch file's path as /proc names it: what lies behind the store's open descriptors. */
function openScratchFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd))
      return target.includes('.scratch-') ? [target] : []
    } catch {
      return []
    }
  })
}

describe('the local store scratch file', () => {
  it('appends and reads back in any order, under a root it creates 0700, with no name left in it', () => {
    const root = join(scratch, 'new-root')
    const file = createLocalSpillStore({ root }).openScratch!()
    // Nothing is made until the first append: most searches never need a scratch file.
    expect(existsSync(root)).toBe(false)
    expect(file.append(Buffer.from('hello '))).toBe(0)
    expect(file.append(Buffer.from('wörld'))).toBe(6)
    expect(file.size).toBe(12)
    expect(Buffer.from(file.read(6, 6)).toString()).toBe('wörld')
    expect(Buffer.from(file.read(0, 5)).toString()).toBe('hello')
    // Into a buffer the reader refills, when it is large enough.
    const into = Buffer.alloc(8)
    expect(file.read(0, 5, into).buffer).toBe(into.buffer)
    expect(into.subarray(0, 5).toString()).toBe('hello')
    expect(file.read(0, 12, into).buffer).not.toBe(into.buffer)
    expect(statSync(root).mode & 0o777).toBe(0o700)
    expect(readdirSync(root)).toEqual([])
    // Unlinked as it was opened: the open file is all that is left of it.
    expect(openScratchFiles().some((target) => target.endsWith('(deleted)'))).toBe(true)
    file.close()
    file.close()
    expect(openScratchFiles()).toEqual([])
  })

  it('refuses a read past its end and any use once closed', () => {
    const file = createLocalSpillStore({ root: join(scratch, 'closed') }).openScratch!()
    file.append(Buffer.from('abc'))
    expect(() => file.read(1, 5)).toThrow(/ends before byte 6/)
    file.close()
    expect(() => file.append(Buffer.from('x'))).toThrow(/closed/)
    expect(() => file.read(0, 1)).toThrow(/closed/)
  })

  it('takes a block larger than one write takes', () => {
    const file = createLocalSpillStore({ root: join(scratch, 'large') }).openScratch!()
    const block = Buffer.alloc(8 * 1024 * 1024, 0x61)
    block[block.length - 1] = 0x62
    file.append(block)
    expect(Buffer.from(file.read(block.length - 2, 2)).toString()).toBe('ab')
    file.close()
  })
})
