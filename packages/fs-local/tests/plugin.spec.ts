import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { asPlugin, loadHarness } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const scratch = scratchDir('fs-local-plugin')

describe('the fs-local plugin', () => {
  it('is a namespace plugin: name, inject, Config, apply and no default export', () => {
    expect(asPlugin(fsLocal)).toBe(fsLocal)
    expect(fsLocal.name).toBe('fs-local')
    expect(fsLocal.inject).toEqual([])
    expect('default' in fsLocal).toBe(false)
  })

  it('provides a working fs service through the real loader', async () => {
    const path = join(scratch, 'a.txt')
    writeFileSync(path, 'one\ntwo\n')
    const fs = (await loadHarness({ plugins: [fsLocal] })).get('fs')!
    expect(await fs.stat(path)).toMatchObject({ kind: 'file', sizeBytes: 8 })
    expect(await fs.readLines({ path, offset: 2, limit: 10, maxLineBytes: 100, maxBytes: 1000, binarySniffBytes: 8192 })).toEqual({
      lines: [{ number: 2, text: 'two', cut: false }],
      stoppedBy: 'end',
      totalLines: 2,
      lossy: false,
    })
  })

  it('takes no options: an unknown field fails the load', async () => {
    await expect(loadHarness({ plugins: [fsLocal], config: { 'fs-local': { chunkBytes: 1 } } })).rejects.toThrow(
      /plugin fs-local: invalid config: \(root\): Unrecognized key: "chunkBytes"/,
    )
  })

  it('is the same file system when wired by hand', async () => {
    await expect(fsLocal.createLocalFileSystem().stat(scratch)).resolves.toMatchObject({ kind: 'directory' })
  })
})
