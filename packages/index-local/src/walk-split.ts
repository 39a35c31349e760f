// Splits the change walk into parts of about equal size, from the directories the index knows, so finds stat them on every core at once.
import { availableParallelism } from 'node:os'
import type { IndexData } from './format.js'

/** Finds a walk runs at once: one a core, at most four (more unmeasured). */
export const WALK_PARTS = Math.min(availableParallelism(), 4)

/**
 * One find's share of a walk, paths from the walked directory (`''` itself): subtrees walked whole,
 * and directories walked with some subdirectories left out (those another part walks).
 */
export interface WalkPart {
  whole: string[]
  spines: Array<{ rel: string; pruned: string[] }>
}

// A directory becomes a part of its own only with a name find's -path matches as plain text in any
// locale, and the shell takes as one quoted word: other names stay in their parent's walk.
const PLAIN = /^[\w.+@%=,~-]+$/

// Parts of a walk at most, and the bytes of their paths: each is a start point or a -path test in
// the script, which stays one argument of sh (Linux takes at most 128 KiB).
const MAX_UNITS = 128
const MAX_PATH_BYTES = 32 * 1024

/**
 * Each directory of the index under `prefix` (`''`, or a directory's path with a slash after it),
 * from there (the directory itself `''`), with the number of files directly in it: what `splitWalk`
 * weighs.
 */
export function ownFiles(index: IndexData, prefix: string): Map<string, number> {
  const dirRel = prefix.slice(0, -1)
  const local = (rel: string) => (rel === dirRel ? '' : rel.startsWith(prefix) ? rel.slice(prefix.length) : undefined)
  const own = new Map<string, number>()
  for (const rel of index.dirs.keys()) {
    const at = local(rel)
    if (at !== undefined) own.set(at, 0)
  }
  for (let id = 0; id < index.files.length; id++) {
    const rel = index.files.at(id)
    const at = local(rel.slice(0, Math.max(0, rel.lastIndexOf('/'))))
    // The build lists each directory before its files, so a file's directory is in the map.
    if (at !== undefined) own.set(at, own.get(at)! + 1)
  }
  return own
}

/**
 * Splits a walk of the tree whose directories `own` names (each with the files directly in it, `''`
 * the walked directory) into at most `parts` shares of about equal size. It splits the largest
 * subtree into its own walk and its largest subdirectories (as many as the units left allow; the
 * rest stay in its walk), until none holds more than an eighth of a share or the units run out, then
 * hands the units out largest first, each to the share with the least. Undefined when no split is
 * possible or worth it: one find walks it all.
 *
 * What the index does not know is walked anyway: a spine's find descends into every subdirectory
 * but those another part walks whole, so a directory made since the build is walked where it lies.
 */
export function splitWalk(own: ReadonlyMap<string, number>, parts: number): WalkPart[] | undefined {
  const size = new Map<string, number>()
  const children = new Map<string, string[]>()
  for (const [rel, files] of own) {
    // The directory's own entry counts too: a tree of empty directories is still walked.
    for (let at = rel; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/')))) {
      size.set(at, (size.get(at) ?? 0) + files + 1)
      if (at === '') break
    }
    if (rel === '') continue
    const slash = rel.lastIndexOf('/')
    if (!PLAIN.test(rel.slice(slash + 1))) continue
    const parent = slash < 0 ? '' : rel.slice(0, slash)
    const list = children.get(parent)
    if (list === undefined) children.set(parent, [rel])
    else list.push(rel)
  }
  const total = size.get('') ?? 0
  if (parts < 2 || total === 0) return undefined
  const grain = total / (parts * 8)
  const whole = new Set([''])
  const spines: Array<{ rel: string; pruned: string[]; weight: number }> = []
  for (;;) {
    let largest: string | undefined
    for (const rel of whole) if (children.has(rel) && (largest === undefined || size.get(rel)! > size.get(largest)!)) largest = rel
    if (largest === undefined || size.get(largest)! <= grain) break
    const room = MAX_UNITS - whole.size - spines.length
    if (room < 1) break
    const split = [...children.get(largest)!].sort((a, b) => size.get(b)! - size.get(a)!).slice(0, room)
    whole.delete(largest)
    const weight = size.get(largest)! - split.reduce((n, c) => n + size.get(c)!, 0)
    spines.push({ rel: largest, pruned: split, weight })
    for (const c of split) whole.add(c)
  }
  const pathBytes = [...whole, ...spines.flatMap((s) => s.pruned)].reduce((n, rel) => n + rel.length, 0)
  if (spines.length === 0 || pathBytes > MAX_PATH_BYTES) return undefined
  const shares = Array.from({ length: parts }, (): WalkPart & { weight: number } => ({ whole: [], spines: [], weight: 0 }))
  const units = [
    ...[...whole].map((rel) => ({ weight: size.get(rel)!, add: (s: WalkPart) => s.whole.push(rel) })),
    ...spines.map(({ rel, pruned, weight }) => ({ weight, add: (s: WalkPart) => s.spines.push({ rel, pruned }) })),
  ].sort((a, b) => b.weight - a.weight)
  for (const unit of units) {
    const least = shares.reduce((a, b) => (b.weight < a.weight ? b : a))
    unit.add(least)
    least.weight += unit.weight
  }
  return shares.filter((s) => s.weight > 0).map(({ whole: w, spines: s }) => ({ whole: w, spines: s }))
}
