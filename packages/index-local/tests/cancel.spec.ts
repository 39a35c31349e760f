// Ctrl-C during `dsh index`: a build or an update stops where it is, leaves no file of its own, and the index is as it was.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BashExecutor } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { waitUntil } from '../../../test-support/processes.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'
import { buildIndex, writeAtomically } from '../src/build.js'
import { resolveIndexOptions } from '../src/config.js'
import { openIndexFile } from '../src/format.js'
import { keyTree, PathFeed } from '../src/key-pool.js'
import { INDEX_FILE, treeDir, UPDATE_FILE } from '../src/location.js'
import { keyChanges, updateIndex } from '../src/update.js'

const base = scratchDir('index-cancel')
const bash = createLocalBash({})
const CANCELLED = { code: 'INDEX_CANCELLED', message: 'cancelled; the index is as it was' }
let count = 0

function fixture(files: Record<string, string> = { 'a.ts': 'alpha\n', 'd/b.ts': 'beta\n' }) {
  const root = join(base, `t${count++}`)
  writeTree(root, files)
  const settings = resolveIndexOptions({ dir: join(base, `index${count}`), buildWorkers: 2 })
  return { root, settings, home: () => treeDir(settings.dir, root) }
}

function aborted(): AbortSignal {
  const controller = new AbortController()
  controller.abort()
  return controller.signal
}

/** OS threads of this process: a worker is one while it runs. */
function threads(): number {
  return readdirSync('/proc/self/task').length
}

describe('a cancelled build', () => {
  it('writes no index and leaves no temporary file', async () => {
    const { root, settings, home } = fixture()
    await expect(buildIndex(settings, root, { signal: aborted() })).rejects.toMatchObject(CANCELLED)
    expect(readdirSync(home())).toEqual([])
  })

  it('stops its workers as soon as it is cancelled, whichever chunk they are on', async () => {
    const controller = new AbortController()
    const before = threads()
    // A feed that is cancelled when the third chunk is asked for: the workers have the first two.
    class CancellingFeed extends PathFeed {
      override take(from: number, count: number): Promise<Buffer[] | undefined> {
        if (from >= 2) controller.abort()
        return super.take(from, count)
      }
    }
    const feed = new CancellingFeed()
    for (let i = 0; i < 5; i++) feed.push(Buffer.from(join(base, `none-${i}`)))
    // Not ended: without the cancel the third take would wait for the walk's next file.
    const keyed = keyTree(feed, { fileMaxBytes: 1000, indexMaxBytes: 1 << 20, workers: 2, chunkFiles: 1, signal: controller.signal })
    await expect(keyed).rejects.toMatchObject(CANCELLED)
    expect(await waitUntil(() => threads() <= before, 5_000)).toBe(true)
    // Cancelled before the workers start: none starts.
    const ended = PathFeed.of([Buffer.from('/a'), Buffer.from('/b')])
    await expect(
      keyTree(ended, { fileMaxBytes: 1000, indexMaxBytes: 1 << 20, workers: 2, chunkFiles: 1, signal: aborted() }),
    ).rejects.toMatchObject(CANCELLED)
  })

  it('removes its temporary file whether cancelled between parts or before the rename', async () => {
    const dir = join(base, `write${count++}`)
    writeTree(dir, { [INDEX_FILE]: 'the old index' })
    const target = join(dir, INDEX_FILE)
    for (const at of [1, 2]) {
      const controller = new AbortController()
      // Two parts; the cancel comes once `at` of them were pulled.
      function* parts(): Generator<Uint8Array> {
        for (let i = 1; i <= 2; i++) {
          yield Buffer.from(`part ${i}`)
          if (i === at) controller.abort()
        }
      }
      await expect(writeAtomically(target, parts(), controller.signal)).rejects.toMatchObject(CANCELLED)
      expect(readdirSync(dir)).toEqual([INDEX_FILE])
      expect(readFileSync(target, 'utf8')).toBe('the old index')
    }
  })
})

describe('a cancelled update', () => {
  it('stopped in its change walk, builds nothing and keeps the index as it was', async () => {
    const { root, settings, home } = fixture()
    await buildIndex(settings, root)
    const file = join(home(), INDEX_FILE)
    const before = { bytes: readFileSync(file), ino: statSync(file).ino }
    writeFileSync(join(root, 'a.ts'), 'alpha changed\n')
    const controller = new AbortController()
    // Ctrl-C as the walk starts: its find is killed, and a walk that did not finish would otherwise build whole.
    const interrupted: BashExecutor = {
      resolve: (request) => bash.resolve(request),
      run: (spec) => {
        controller.abort()
        return bash.run(spec)
      },
    }
    await expect(updateIndex(settings, root, interrupted, { signal: controller.signal })).rejects.toMatchObject(CANCELLED)
    expect(readdirSync(home())).toEqual([INDEX_FILE])
    expect(statSync(file).ino).toBe(before.ino)
    expect(readFileSync(file).equals(before.bytes)).toBe(true)
    // Not cancelled, the same update is written.
    expect((await updateIndex(settings, root, bash, { signal: new AbortController().signal })).kind).toBe('update')
  })

  it('stops before listing the next changed directory', async () => {
    const { root, settings, home } = fixture()
    await buildIndex(settings, root)
    const base = openIndexFile(join(home(), INDEX_FILE))
    try {
      const changed = [{ type: 'd', inode: base.dirs.get('d')!, rel: 'd' }]
      const keyed = keyChanges(settings, { root, base, baseBytes: 0, changed, builtAtNs: 0n, signal: aborted() })
      await expect(keyed).rejects.toMatchObject(CANCELLED)
    } finally {
      base.close()
    }
    expect(readdirSync(home())).not.toContain(UPDATE_FILE)
  })
})
