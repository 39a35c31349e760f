// The change walk split into parts: every entry walked by exactly one part, the parts about equal, and the same changes found as by one find.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLocalBash } from '@dsh/bash-local'
import { buildIndex, resolveIndexOptions } from '../src/index.js'
import { openIndexFile } from '../src/format.js'
import { changedSince, CHANGE_WALK_LIMITS, type Changed } from '../src/freshness.js'
import { INDEX_FILE, treeDir } from '../src/location.js'
import { ownFiles, splitWalk, type WalkPart } from '../src/walk-split.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'

const base = scratchDir('walk-split')
const signal = new AbortController().signal
const bash = createLocalBash({})

/** Which units walk each directory: a spine itself, or the nearest whole unit at or above it that no spine between prunes. */
function walkers(own: ReadonlyMap<string, number>, parts: readonly WalkPart[]): Map<string, number> {
  const counts = new Map<string, number>()
  const spines = new Map(parts.flatMap((p) => p.spines.map((s) => [s.rel, new Set(s.pruned)] as const)))
  const wholes = new Set(parts.flatMap((p) => p.whole))
  for (const rel of own.keys()) {
    let n = 0
    // Walk up from rel: the first whole unit or spine met walks it, unless rel's path to it is pruned.
    for (let at = rel, below: string | undefined; ; below = at, at = at.slice(0, Math.max(0, at.lastIndexOf('/')))) {
      if (wholes.has(at)) {
        n++
        break
      }
      const pruned = spines.get(at)
      if (pruned !== undefined) {
        if (below === undefined || !pruned.has(below)) n++
        break
      }
      if (at === '') break
    }
    counts.set(rel, n)
  }
  return counts
}

function tree(spec: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(spec))
}

describe('splitWalk', () => {
  it('walks every directory exactly once, in shares of about equal size', () => {
    const own = tree({ '': 3, big: 0, 'big/a': 400, 'big/b': 400, 'big/c': 400, 'big/c/d': 10, small: 20, 'we ird': 50, 'we ird/x': 5 })
    const parts = splitWalk(own, 2)!
    expect(parts).toHaveLength(2)
    expect([...walkers(own, parts).values()].every((n) => n === 1)).toBe(true)
    // A name that is not plain stays in its parent's walk.
    expect(parts.flatMap((p) => [...p.whole, ...p.spines.map((s) => s.rel)])).not.toContain('we ird')
    const weight = (p: WalkPart) =>
      p.whole.reduce((n, rel) => n + [...own].filter(([r]) => r === rel || r.startsWith(`${rel}/`)).reduce((m, [, f]) => m + f + 1, 0), 0)
    const [a, b] = parts.map(weight)
    expect(Math.abs(a! - b!)).toBeLessThan(500)
  })

  it('does not split one core, an empty tree, a tree without subdirectories, or paths too long for a script', () => {
    expect(splitWalk(tree({ '': 3, a: 100, b: 100 }), 1)).toBeUndefined()
    expect(splitWalk(new Map(), 2)).toBeUndefined()
    expect(splitWalk(tree({ '': 1000 }), 2)).toBeUndefined()
    const long = 'x'.repeat(250)
    const deep = new Map([['', 0], ...Array.from({ length: 200 }, (_, i) => [`${long}${i}`, 10] as [string, number])])
    expect(splitWalk(deep, 2)).toBeUndefined()
  })

  it('peels off the largest subdirectories of a wide one, as many as the units allow, the rest walked with it', () => {
    const wide = new Map([['', 0], ...Array.from({ length: 200 }, (_, i) => [`d${i}`, i] as [string, number])])
    const parts = splitWalk(wide, 2)!
    const units = parts.flatMap((p) => [...p.whole, ...p.spines.map((s) => s.rel)])
    expect(units).toHaveLength(128)
    expect(units).toContain('d199')
    expect(units).not.toContain('d0')
    expect([...walkers(wide, parts).values()].every((n) => n === 1)).toBe(true)
  })

  it('stops when the units run out, a large subtree left whole', () => {
    const own = new Map([
      ['', 0],
      ...Array.from({ length: 127 }, (_, i) => [`d${i}`, 1] as [string, number]),
      ['d0/x', 5000],
      ['d0/y', 5000],
    ])
    const parts = splitWalk(own, 2)!
    expect(parts.flatMap((p) => p.spines.map((s) => s.rel))).toEqual([''])
    expect(parts.flatMap((p) => p.whole)).toContain('d0')
    expect([...walkers(own, parts).values()].every((n) => n === 1)).toBe(true)
  })

  it('stops at the grain: small subtrees stay whole', () => {
    const own = tree({ '': 0, a: 10, 'a/x': 1000, b: 10, 'b/y': 1000 })
    const parts = splitWalk(own, 2)!
    expect(parts.flatMap((p) => p.whole).sort()).toEqual(['a/x', 'b/y'])
    expect(parts.flatMap((p) => p.spines.map((s) => s.rel)).sort()).toEqual(['', 'a', 'b'])
  })
})

describe('a split walk', () => {
  it('finds what one find does: changes at every depth, a part gone, a directory made since, odd names and VCS directories', async () => {
    const root = join(base, 'tree')
    const files: Record<string, string> = { 'top.txt': 'x', 'odd name/f.txt': 'x', '.git/config': 'x' }
    for (const a of ['p0', 'p1', 'p2', 'p3'])
      for (const b of ['m0', 'm1', 'm2']) for (const c of ['f0', 'f1', 'f2', 'f3']) files[`${a}/${b}/${c}.txt`] = c
    writeTree(root, files)
    const settings = resolveIndexOptions({ dir: join(base, 'index') })
    await buildIndex(settings, root)
    const index = openIndexFile(join(treeDir(settings.dir, root), INDEX_FILE))
    const mark = BigInt(index.header.builtAtNs)
    const parts = splitWalk(ownFiles(index, ''), 2)!
    expect(parts.length).toBe(2)
    expect(parts.flatMap((p) => p.spines).length).toBeGreaterThan(0)
    writeFileSync(join(root, 'top.txt'), 'y')
    writeFileSync(join(root, 'p0/m1/f2.txt'), 'y')
    writeFileSync(join(root, 'odd name/f.txt'), 'y')
    writeFileSync(join(root, '.git/config'), 'y')
    rmSync(join(root, 'p1/m0'), { recursive: true })
    renameSync(join(root, 'p2/m2'), join(root, 'p3/moved'))
    mkdirSync(join(root, 'p3/m0/new/deeper'), { recursive: true })
    writeFileSync(join(root, 'p3/m0/new/deeper/n.txt'), 'y')
    // Made since the build right under a directory split into parts: its walk descends into it.
    mkdirSync(join(root, 'p2/fresh/deeper'), { recursive: true })
    writeFileSync(join(root, 'p2/fresh/deeper/z.txt'), 'y')
    const sorted = (c: Changed[]) => c.map((e) => `${e.type} ${e.inode} ${e.rel}`).sort()
    const one = await changedSince(bash, root, mark, CHANGE_WALK_LIMITS, signal)
    const split = await changedSince(bash, root, mark, CHANGE_WALK_LIMITS, signal, parts)
    if (!one.ok || !split.ok) throw new Error('a walk failed')
    expect(sorted(split.changed)).toEqual(sorted(one.changed))
    expect(parts.flatMap((p) => p.spines.map((s) => s.rel))).toContain('p2')
    expect(one.changed.map((c) => c.rel)).toEqual(
      expect.arrayContaining(['top.txt', 'p0/m1/f2.txt', 'p3/m0/new/deeper/n.txt', 'p3/moved', 'p2/fresh/deeper/z.txt']),
    )
    // A search of a subdirectory splits its own walk.
    const sub = ownFiles(index, 'p3/')
    expect([...sub.keys()].sort()).toEqual(['', 'm0', 'm1', 'm2'])
    expect(sub.get('m0')).toBe(4)
    index.close()
  })
})
