import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { realPath, statPath } from '../src/stat.js'

const scratch = scratchDir('fs-local-stat')

describe('statPath', () => {
  const path = join(scratch, 'five.txt')
  writeFileSync(path, '12345')
  const fifo = join(scratch, 'fifo')
  execFileSync('mkfifo', [fifo])

  it('reports a file with its size and modification time', async () => {
    expect(await statPath(path)).toEqual({ kind: 'file', sizeBytes: 5, mtimeMs: statSync(path).mtimeMs })
  })

  it('follows a symbolic link to what it names', async () => {
    const link = join(scratch, 'link')
    symlinkSync(scratch, link)
    expect(await statPath(link)).toMatchObject({ kind: 'directory' })
  })

  it.each([fifo, '/dev/null'])('reports %s as other', async (other) => {
    expect(await statPath(other)).toMatchObject({ kind: 'other' })
  })

  it.each([
    [join(scratch, 'missing'), 'FS_NOT_FOUND'],
    ['five.txt', 'FS_INVALID_PATH'],
    ['', 'FS_INVALID_PATH'],
    [`${path}\0`, 'FS_INVALID_PATH'],
  ])('fails for %j with %s', async (bad, code) => {
    await expect(statPath(bad)).rejects.toMatchObject({ code })
  })
})

describe('realPath', () => {
  it('follows every symbolic link to the canonical path', async () => {
    const dir = join(scratch, 'real-dir')
    mkdirSync(dir)
    writeFileSync(join(dir, 'f.txt'), 'x')
    symlinkSync(dir, join(scratch, 'dir-link'))
    expect(await realPath(join(scratch, 'dir-link', '..', 'dir-link', 'f.txt'))).toBe(join(realpathSync(scratch), 'real-dir', 'f.txt'))
  })

  it.each([
    [join(tmpdir(), 'fs-local-absent', 'x'), 'FS_NOT_FOUND'],
    ['relative/path', 'FS_INVALID_PATH'],
  ])('reports %s as %s', async (path, code) => {
    await expect(realPath(path)).rejects.toMatchObject({ code })
  })
})
