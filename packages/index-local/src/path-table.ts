// Finds an index's file or directory by its path's bytes: a hash table over the paths, built once per decoded list.
import type { FilePaths } from './format.js'

// FNV-1a, 32 bits: a few operations a byte, and paths that differ in one byte land apart.
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** The hash of `prefix` (latin1: one byte a character) followed by `bytes[start, end)`. */
function hashOf(prefix: string, bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET
  for (let i = 0; i < prefix.length; i++) hash = Math.imul(hash ^ prefix.charCodeAt(i), FNV_PRIME)
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME)
  return hash >>> 0
}

/**
 * Each path of a list by its bytes, in open addressing: a slot holds an id plus one (0: empty) and the
 * path's hash beside it, at least twice as many slots as paths, so a probe rarely goes past a second
 * slot and compares a path only when the hashes agree (each path read is a cache miss in a large
 * list). The paths are raw bytes kept as latin1 strings (format.ts), so a path's characters are its
 * bytes.
 */
export class PathTable {
  /** Two entries a slot: the id plus one, and the hash. */
  private readonly slots: Int32Array
  private readonly mask: number

  constructor(private readonly paths: FilePaths) {
    let size = 2
    while (size < paths.length * 2) size *= 2
    this.slots = new Int32Array(2 * size)
    this.mask = size - 1
    const { text } = paths
    for (let id = 0; id < paths.length; id++) {
      let hash = FNV_OFFSET
      for (let i = paths.start(id), end = paths.end(id); i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME)
      let slot = (hash >>> 0) & this.mask
      while (this.slots[2 * slot] !== 0) slot = (slot + 1) & this.mask
      this.slots[2 * slot] = id + 1
      this.slots[2 * slot + 1] = hash
    }
  }

  /** The id of the path `prefix` + `bytes[start, end)`, or -1 when the list has none. */
  find(prefix: string, bytes: Uint8Array, start: number, end: number): number {
    const { text } = this.paths
    const length = prefix.length + end - start
    const hash = hashOf(prefix, bytes, start, end)
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.slots[2 * slot]! - 1
      if (id < 0) return -1
      if (this.slots[2 * slot + 1] !== (hash | 0)) continue
      const from = this.paths.start(id)
      if (this.paths.end(id) - from !== length) continue
      let i = 0
      while (i < prefix.length && text.charCodeAt(from + i) === prefix.charCodeAt(i)) i++
      if (i < prefix.length) continue
      let j = start
      while (j < end && text.charCodeAt(from + i) === bytes[j]) {
        i++
        j++
      }
      if (j === end) return id
    }
  }
}

const TABLES = new WeakMap<FilePaths, PathTable>()

/** The table of a path list, built the first time it is asked for and kept as long as the list is. */
export function pathTable(paths: FilePaths): PathTable {
  let table = TABLES.get(paths)
  if (table === undefined) TABLES.set(paths, (table = new PathTable(paths)))
  return table
}
