// The remembered link scan over real find, files and stats: after any change to the tree between two
// calls in one process, the plan equals a cold process's (docs/design.md#the-link-scan-is-remembered).
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { createLocalFileSystem } from '@dsh/fs-local'
import { Config } from '../../src/config.js'
import type { SearchContext } from '../../src/engine/context.js'
import { LinkScanMemory } from '../../src/engine/link-scan-memory.js'
import { planLinks, type LinkPlan } from '../../src/engine/links.js'
import { budgetMs } from '../../../../test-support/budget.js'
import { scratchDirs } from '../real-harness.js'

const scratchDir = scratchDirs()
const fs = createLocalFileSystem()
const bash = bashLocal.createLocalBash()
// Short, so a test can wait past it; far above a local file system's timestamp tick (a few ms).
const SETTLE_MS = 40
// Revalidated by a stat of every directory, or by a watch of them (stats only for what it cannot vouch for).
const MODES = ['stats', 'watched'] as const
type Mode = (typeof MODES)[number]

/** A context over the real executor whose link scans go through `memory` (none: a walk every call). */
function context(memory: LinkScanMemory | undefined): SearchContext {
  return {
    bash,
    rg: 'rg',
    config: Config.parse({}),
    spillStore: () => undefined,
    access: () => undefined,
    fs: () => fs,
    linkScans: () => memory,
  }
}

/** Runs find through bash-local, counting the scans (each is one script). */
function counting(memory: LinkScanMemory): { ctx: SearchContext; scans: () => string[] } {
  const commands: string[] = []
  const ctx = context(memory)
  ctx.bash = { resolve: (request) => bash.resolve(request), run: (spec) => (commands.push(spec.command), bash.run(spec)) }
  return { ctx, scans: () => commands.splice(0) }
}

/** A scan that walks the whole tree from its root, rather than reading one level or a new directory. */
const walksRoot = (command: string) => /^set -- \.( |$)/m.test(command) && !command.includes('-maxdepth 1')

const exec = (cwd: string) =>
  ({ name: 'grep', signal: new AbortController().signal, agent: { session: { header: { id: 's', cwd } } } }) as never

/** The plan a process that never searched here would make: a fresh memory, so its links come sorted as a warm one's. */
const cold = (cwd: string, root = '.'): Promise<LinkPlan> =>
  planLinks(context(new LinkScanMemory(SETTLE_MS)), exec(cwd), root, fs, undefined)

function tree(): string {
  const work = realpathSync(scratchDir('memory'))
  for (const dir of ['a/b/c', 'a/d', 'store/p1/lib', 'store/p2', 'node_modules', '.git/objects'])
    mkdirSync(join(work, dir), { recursive: true })
  writeFileSync(join(work, 'a/b/c/f.txt'), 'x')
  writeFileSync(join(work, 'store/p1/index.js'), 'x')
  symlinkSync('../store/p1', join(work, 'node_modules/p1'))
  symlinkSync('../../store/p2', join(work, 'a/b/p2'))
  symlinkSync('/', join(work, 'a/out'))
  symlinkSync('missing', join(work, 'a/d/broken'))
  symlinkSync('..', join(work, 'store/p2/up'))
  // Names a shell or a record format could misread: a newline, a leading dash, spaces, a record's own fields.
  mkdirSync(join(work, 'we\nird/-x/1 2 3 4 5'), { recursive: true })
  symlinkSync('../../../store', join(work, 'we\nird/-x/1 2 3 4 5/s p'))
  return work
}

describe('the remembered link scan, over real files', () => {
  it('walks once, then stats: a second call with no change runs no scan at all', async () => {
    const work = tree()
    await sleep(SETTLE_MS * 2)
    const memory = new LinkScanMemory(SETTLE_MS)
    const { ctx, scans } = counting(memory)
    const first = await planLinks(ctx, exec(work), '.', fs, undefined)
    expect(scans().filter(walksRoot)).toHaveLength(1)
    expect(first).toEqual(await cold(work))
    expect(first.skipped.map((link) => link.path).sort()).toEqual([
      'a/b/p2/up',
      'a/d/broken',
      'a/out',
      'store/p2/up',
      'we\nird/-x/1 2 3 4 5/s p/p2/up',
    ])
    const second = await planLinks(ctx, exec(work), '.', fs, undefined)
    expect(scans()).toEqual([])
    expect(second).toEqual(first)
    expect(memory.size.roots).toBe(1)
  })

  it.each(MODES)(
    'sees a link added, removed or retargeted, a directory made, removed or replaced by a link, and a target that moves (%s)',
    async (mode) => {
      const work = tree()
      await sleep(SETTLE_MS * 2)
      const memory = new LinkScanMemory(SETTLE_MS, Date.now, mode === 'watched')
      const { ctx, scans } = counting(memory)
      const plan = () => planLinks(ctx, exec(work), '.', fs, undefined)
      await warmUp(memory, plan, mode)
      scans()
      const steps: Array<() => void> = [
        () => symlinkSync('../../store/p1', join(work, 'a/b/c/new')),
        () => rmSync(join(work, 'a/b/p2')),
        () => {
          rmSync(join(work, 'node_modules/p1'))
          symlinkSync('/etc', join(work, 'node_modules/p1'))
        },
        () => mkdirSync(join(work, 'a/b/c/deep/er'), { recursive: true }),
        () => symlinkSync('../../../../store', join(work, 'a/b/c/deep/er/s')),
        () => rmSync(join(work, 'a/b/c/deep'), { recursive: true }),
        () => {
          rmSync(join(work, 'a/d'), { recursive: true })
          symlinkSync('store', join(work, 'a/d'))
        },
        () => {
          rmSync(join(work, 'a/d'))
          mkdirSync(join(work, 'a/d'))
          symlinkSync('.', join(work, 'a/d/self'))
        },
        // Neither link's parent changes: only where each leads.
        () => writeFileSync(join(work, 'missing'), 'now it exists'),
        () => renameSync(join(work, 'store/p2'), join(work, 'store/p3')),
        () => renameSync(join(work, 'a/b'), join(work, 'a/moved')),
        () => symlinkSync('/', join(work, 'we\nird/-x/-out')),
        () => rmSync(join(work, 'we\nird/-x/1 2 3 4 5'), { recursive: true }),
      ]
      for (const [i, step] of steps.entries()) {
        step()
        // Half the steps are judged at once, while their changes are too recent to trust; half after.
        if (i % 2 === 1) await sleep(SETTLE_MS * 2)
        expect(await plan(), `after step ${i}`).toEqual(await cold(work))
        // Only what changed is read: no scan walks the tree from its root again.
        const run = scans()
        expect(run.length, `after step ${i}`).toBeGreaterThan(0)
        expect(run.filter(walksRoot), `after step ${i}`).toEqual([])
      }
    },
  )

  it('with a watch in place, stats only the root while nothing changed, and sees a change at once', async () => {
    const work = tree()
    await sleep(SETTLE_MS * 2)
    const memory = new LinkScanMemory(SETTLE_MS)
    const statted: number[] = []
    const watchedFs = {
      ...fs,
      stampMany: (paths: readonly string[], options: { follow: boolean }) => (
        options.follow || statted.push(paths.length),
        fs.stampMany!(paths, options)
      ),
    }
    const { ctx, scans } = counting(memory)
    const plan = () => planLinks(ctx, exec(work), '.', watchedFs, undefined)
    await warmUp(memory, plan, 'watched')
    statted.length = 0
    scans()
    expect(await plan()).toEqual(await cold(work))
    expect(statted).toEqual([1])
    expect(scans()).toEqual([])
    // No wait past the settle time: the event, not a timestamp, says what changed.
    symlinkSync('/', join(work, 'a/b/c/out'))
    const after = await plan()
    expect(after.skipped.map((link) => link.path)).toContain('a/b/c/out')
    expect(after).toEqual(await cold(work))
    expect(statted).toEqual([1, 1])
  })

  it('walks again when the root is replaced, and keeps apart the roots and sessions searched', async () => {
    const base = realpathSync(scratchDir('memory-root'))
    const one = join(base, 'one')
    const two = join(base, 'two')
    mkdirSync(join(one, 'x'), { recursive: true })
    mkdirSync(join(two, 'y'), { recursive: true })
    symlinkSync('..', join(one, 'x/up'))
    symlinkSync('/', join(two, 'y/out'))
    symlinkSync('one', join(base, 'root'))
    await sleep(SETTLE_MS * 2)
    const memory = new LinkScanMemory(SETTLE_MS)
    const { ctx } = counting(memory)
    expect((await planLinks(ctx, exec(base), 'root', fs, undefined)).skipped).toEqual([{ path: 'x/up', why: 'loop' }])
    rmSync(join(base, 'root'))
    symlinkSync('two', join(base, 'root'))
    expect((await planLinks(ctx, exec(base), 'root', fs, undefined)).skipped).toEqual([{ path: 'y/out', why: 'outside' }])
    expect(await planLinks(ctx, exec(one), '.', fs, undefined)).toEqual(await cold(one))
    expect(memory.size.roots).toBe(2)
  })

  it.each(MODES)(
    'equals a cold scan after any sequence of random changes (%s)',
    async (mode) => {
      const names = ['a', 'b', 'c']
      const place = fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'))
      const change = fc.oneof(
        fc.record({ op: fc.constant('mkdir' as const), at: place }),
        fc.record({ op: fc.constant('rm' as const), at: place }),
        fc.record({ op: fc.constant('link' as const), at: place, to: fc.constantFrom('.', '..', 'a', '../b', '/', 'gone', 'c/a') }),
        fc.record({ op: fc.constant('file' as const), at: place }),
        // A directory or link moved within the tree, over an empty directory or into a new name.
        fc.record({ op: fc.constant('mv' as const), at: place, to: place }),
      )
      const step = fc.record({ changes: fc.array(change, { minLength: 1, maxLength: 4 }), wait: fc.boolean() })
      let run = 0
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
          const work = realpathSync(scratchDir(`memory-random-${run++}`))
          mkdirSync(join(work, 'a/b'), { recursive: true })
          symlinkSync('../a', join(work, 'a/b/c'))
          const memory = new LinkScanMemory(SETTLE_MS, Date.now, mode === 'watched')
          const ctx = context(memory)
          await warmUp(memory, () => planLinks(ctx, exec(work), '.', fs, undefined), mode)
          for (const { changes, wait } of steps) {
            for (const { op, at, ...rest } of changes) apply(work, at, op, 'to' in rest ? rest.to : '')
            if (wait) await sleep(SETTLE_MS * 2)
            const warm = await planLinks(ctx, exec(work), '.', fs, undefined)
            expect(warm).toEqual(await cold(work))
          }
        }),
        { numRuns: 25 },
      )
    },
    budgetMs(60_000),
  )
})

/**
 * The searches that bring a memory to `mode`: one walk; with a watch, a second search that starts it,
 * and a third once it is in place, which proves each directory current (docs/design.md#a-watched-tree-needs-no-link-stats).
 */
async function warmUp(memory: LinkScanMemory, plan: () => Promise<unknown>, mode: Mode): Promise<void> {
  await plan()
  if (mode === 'stats') return
  await plan()
  await memory.watchesStarted()
  await plan()
  // The watch is in use (a temp dir on a file system without events would leave it to stats).
  expect(memory.watchedRoots).toBe(1)
}

/** One change to the tree at `at` (`to`: a link's text, or where a move goes); one that cannot be made (a parent missing, say) is no change. */
function apply(work: string, at: string, op: 'mkdir' | 'rm' | 'link' | 'file' | 'mv', to: string): void {
  const path = join(work, at)
  try {
    if (op === 'mkdir') mkdirSync(path, { recursive: true })
    else if (op === 'rm') rmSync(path, { recursive: true, force: true })
    else if (op === 'link') symlinkSync(to, path)
    else if (op === 'mv') renameSync(path, join(work, to))
    else writeFileSync(path, 'x')
  } catch {
    // EEXIST, ENOENT, ENOTDIR, ENOTEMPTY, EINVAL (a directory into itself): the tree stays as it was.
  }
}
