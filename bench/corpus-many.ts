import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

// Bump when the generator's output changes: the version is part of the cached folders' names.
const GENERATOR_VERSION = 1

/**
 * A search whose cost is its matches: a pattern, what it finds (measured with rg 15), and the tree.
 * The many-match tree holds 20,000 files of 40 short lines; the short-lines tree 1,000 files of
 * 1,400 one-character lines.
 */
export interface ManyMatchCase {
  name: string
  pattern: string
  tree: 'many' | 'short'
}

/** 114,286 matches (6.1 MB of grep's raw output), 411,428 (13.4 MB), and 1.4M one-character lines (18.5 MB). */
export const MANY_MATCH_CASES: readonly ManyMatchCase[] = [
  { name: 'grep 115k', pattern: 'handler\\(', tree: 'many' },
  { name: 'grep 420k', pattern: 'return', tree: 'many' },
  { name: 'grep 1.4M short', pattern: 'x', tree: 'short' },
]

/** Returns a tree's root, generating it once into the cache (written aside, then renamed into place). */
export function ensureManyMatchTree(cacheDir: string, tree: ManyMatchCase['tree']): string {
  const root = path.join(cacheDir, `generated-${tree}-v${GENERATOR_VERSION}`)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  if (tree === 'many') writeManyTree(partial)
  else writeShortTree(partial)
  renameSync(partial, root)
  return root
}

/**
 * 20 packages of 100 modules of 10 files, 40 lines each: every 7th line of the tree calls `handler(`,
 * and about half the others `return`. Short paths (`p00/m00/f0.ts`) keep the raw output under the cap.
 */
function writeManyTree(root: string): void {
  let g = 0
  for (let p = 0; p < 20; p += 1) {
    for (let m = 0; m < 100; m += 1) {
      const dir = path.join(root, `p${pad(p)}`, `m${pad(m)}`)
      mkdirSync(dir, { recursive: true })
      for (let f = 0; f < 10; f += 1) {
        const lines: string[] = []
        for (let l = 0; l < 40; l += 1, g += 1) {
          if (g % 7 === 3) lines.push(`  await handler(event${g % 1000}, context)`)
          else if (l % 2 === 0 || l % 5 === 1) lines.push(`  return v${g % 1000}`)
          else lines.push(`  const v${g % 1000} = ${g % 97}`)
        }
        writeFileSync(path.join(dir, `f${f}.ts`), `${lines.join('\n')}\n`)
      }
    }
  }
}

/** 1,000 files of 1,400 lines of `x`: the most matches the 20 MB raw cap admits. */
function writeShortTree(root: string): void {
  mkdirSync(root, { recursive: true })
  for (let f = 0; f < 1000; f += 1) writeFileSync(path.join(root, `f${String(f).padStart(3, '0')}`), 'x\n'.repeat(1400))
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
