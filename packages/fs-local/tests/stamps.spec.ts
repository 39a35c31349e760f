// stampMany against real files: kinds with and without following, identities, and failures per path.
import { execFileSync } from 'node:child_process'
import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { createLocalFileSystem } from '../src/file-system.js'
import { stampMany } from '../src/stamps.js'

const scratch = scratchDir('fs-local-stamps')
const dir = join(scratch, 'dir')
const file = join(scratch, 'file')
const fifo = join(scratch, 'fifo')
const toDir = join(scratch, 'to-dir')
const dangling = join(scratch, 'dangling')
const loop = join(scratch, 'loop')
mkdirSync(dir)
writeFileSync(file, 'x')
execFileSync('mkfifo', [fifo])
symlinkSync('dir', toDir)
symlinkSync('missing', dangling)
symlinkSync('loop', loop)

describe('stampMany', () => {
  it('reports each path, in order, without following a final link', async () => {
    const stamps = await stampMany([dir, file, fifo, toDir, dangling, loop, join(scratch, 'missing')], { follow: false })
    expect(stamps.map((stamp) => stamp.kind)).toEqual(['directory', 'file', 'other', 'link', 'link', 'link', 'missing'])
    const own = lstatSync(dir, { bigint: true })
    expect(stamps[0]).toEqual({
      kind: 'directory',
      dev: String(own.dev),
      ino: String(own.ino),
      mtimeNs: String(own.mtimeNs),
      ctimeNs: String(own.ctimeNs),
    })
  })

  it('follows links when asked: a loop and a missing target are kinds of their own', async () => {
    const stamps = await stampMany([toDir, dangling, loop], { follow: true })
    expect(stamps.map((stamp) => stamp.kind)).toEqual(['directory', 'missing', 'loop'])
    expect(stamps[0]!.ino).toBe(String(lstatSync(dir, { bigint: true }).ino))
  })

  it.each(['relative', `${file}\0`])('reports %j as unknown, and a path below a file too', async (bad) => {
    expect(await stampMany([bad, join(file, 'below')], { follow: false })).toEqual([{ kind: 'unknown' }, { kind: 'unknown' }])
  })

  it('answers thousands of paths across turns of the event loop, in order', async () => {
    const paths = Array.from({ length: 1500 }, (_, i) => (i % 2 === 0 ? dir : join(scratch, `none-${i}`)))
    const stamps = await stampMany(paths, { follow: false })
    expect(stamps.map((stamp) => stamp.kind)).toEqual(paths.map((_, i) => (i % 2 === 0 ? 'directory' : 'missing')))
  })

  it("is the local file system's", async () => {
    expect(await createLocalFileSystem().stampMany!([dir], { follow: false })).toEqual(await stampMany([dir], { follow: false }))
  })
})
