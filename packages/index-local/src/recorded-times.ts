// Glob's times from the index: each file's recorded modification time where nothing since the build can have changed it, else read now.
import { lstatSync } from 'node:fs'
import type { FileTime } from '@dsh/core'
import { FilePaths, UNREAD_DIR, type FileTimes, type IndexData } from './format.js'
import type { Changed } from './freshness.js'
import { splitTime } from './key-files.js'
import { pathTable, type PathTable } from './path-table.js'

// A directory's marks: its own entries may have changed (one added, removed or renamed), or anything
// below it may have (a directory new, replaced, unread at the build, or named by an event).
const OWN = 1
const WHOLE = 2
const MAX_NANOS = 999_999_999
const SLASH = 0x2f
const NOTHING = new Uint8Array(0)

/** A tree's directories as a table: each one's number by its path, and its parent's number (-1 for the root). */
interface DirTable {
  table: PathTable
  parent: Int32Array
  number: ReadonlyMap<string, number>
}

const DIR_TABLES = new WeakMap<ReadonlyMap<string, number>, DirTable>()

/** The table of a tree's directories (each one's inode by its path from the root), built once per map. */
function dirTable(dirs: ReadonlyMap<string, number>): DirTable {
  let table = DIR_TABLES.get(dirs)
  if (table === undefined) {
    const paths = [...dirs.keys()]
    const number = new Map(paths.map((rel, k) => [rel, k]))
    const parent = Int32Array.from(paths, (rel) => (rel === '' ? -1 : (number.get(rel.slice(0, Math.max(0, rel.lastIndexOf('/')))) ?? -1)))
    // Never empty: it holds the listed directory, whose inode `times` checked.
    table = { table: pathTable(new FilePaths(paths.join('\0'))), parent, number }
    DIR_TABLES.set(dirs, table)
  }
  return table
}

/** One list of files (the index's, or its update's): their table, their times, and those changed since. */
interface Source {
  table: PathTable
  times: FileTimes
  changed: Set<number>
}

/** What `RecordedTimes` is given: the index found, and the changes since its mark (the update's when there is one). */
export interface RecordedTimesOptions {
  /** The tree's real path. */
  root: string
  /** The listed directory from the root: `''`, or its path with a slash after it. */
  prefix: string
  data: IndexData
  /** The update read beside the index: its files replace the index's. */
  update?: IndexData
  /** Each directory's inode, the update's over the index's. */
  dirs: ReadonlyMap<string, number>
  walked: readonly Changed[]
  /** Entries an event named: each may be a file or a directory. */
  named: Iterable<string>
}

/**
 * The modification times of files below one directory of an indexed tree
 * (docs/design.md#glob-reads-times-from-the-index). A file's recorded time holds when the file is in
 * the index (or its update, whose word replaces the index's) and nothing since the mark can have
 * changed it: it is not an entry that changed, its directory's own entries did not change, and no
 * directory above it is new, replaced, unread or named by an event. Any other file is read now, with
 * `lstat`, as find reads one rg listed.
 */
export class RecordedTimes {
  private readonly sources: Source[] = []
  private readonly dirs: DirTable
  private readonly marks: Uint8Array
  /** Per directory: 1 when it or one above it is marked whole, 0 when not, -1 not yet known. */
  private readonly whole: Int8Array
  private readonly marked: boolean
  private readonly prefix: string
  private readonly dirRel: string
  private readonly base: Buffer

  constructor({ root, prefix, data, update, dirs, walked, named }: RecordedTimesOptions) {
    this.prefix = prefix
    this.dirRel = prefix.slice(0, -1)
    this.base = Buffer.concat([Buffer.from(root), Buffer.from(`/${prefix}`, 'latin1')])
    this.dirs = dirTable(dirs)
    this.marks = new Uint8Array(dirs.size)
    this.whole = new Int8Array(dirs.size).fill(-1)
    // The update first: a file it keyed again is its, whatever the index recorded.
    for (const list of update === undefined ? [data] : [update, data]) {
      this.sources.push({ table: pathTable(list.files), times: list.fileTimes, changed: new Set() })
    }
    const changedEntry = (rel: string): void => {
      const bytes = Buffer.from(rel, 'latin1')
      for (const source of this.sources) {
        const id = source.table.find('', bytes, 0, bytes.length)
        if (id >= 0) source.changed.add(id)
      }
    }
    const mark = (rel: string, how: number): void => {
      const k = this.dirs.number.get(rel)
      if (k !== undefined) this.marks[k]! |= how
    }
    for (const { type, inode, rel } of walked) {
      if (type !== 'd') changedEntry(rel)
      else mark(rel, dirs.get(rel) === inode ? OWN : WHOLE)
    }
    for (const rel of named) {
      changedEntry(rel)
      mark(rel, WHOLE)
    }
    for (const [rel, inode] of dirs) if (inode === UNREAD_DIR) mark(rel, WHOLE)
    this.marked = this.marks.some((m) => m !== 0)
  }

  /**
   * The time of the file at `name[start, end)` (raw bytes, from the listed directory) into `out`:
   * `recorded` from the index, `read` now, or why it could not be read.
   */
  timeOf(name: Uint8Array, start: number, end: number, out: FileTime): 'recorded' | 'read' | { unreadable: string } {
    if (this.marked) {
      let slash = end - 1
      while (slash >= start && name[slash] !== SLASH) slash--
      const k = slash < start ? this.dirs.table.find(this.dirRel, NOTHING, 0, 0) : this.dirs.table.find(this.prefix, name, start, slash)
      if (k < 0 || (this.marks[k]! & OWN) !== 0 || this.wholeAt(k)) return this.read(name, start, end, out)
    }
    for (const { table, times, changed } of this.sources) {
      const id = table.find(this.prefix, name, start, end)
      if (id < 0) continue
      const seconds = times.seconds[id]!
      const nanos = times.nanos[id]!
      // Not read at the build (the file could not be opened), or not a time at all.
      if (changed.has(id) || Number.isNaN(seconds) || nanos > MAX_NANOS) break
      out.seconds = seconds
      out.nanos = nanos
      return 'recorded'
    }
    return this.read(name, start, end, out)
  }

  /** Whether directory `k` or one above it is marked whole. */
  private wholeAt(k: number): boolean {
    let known = this.whole[k]!
    if (known < 0) {
      const parent = this.dirs.parent[k]!
      known = (this.marks[k]! & WHOLE) !== 0 || (parent >= 0 && this.wholeAt(parent)) ? 1 : 0
      this.whole[k] = known
    }
    return known === 1
  }

  /** Reads the file's time now, without following a link, as find does. */
  private read(name: Uint8Array, start: number, end: number, out: FileTime): 'read' | { unreadable: string } {
    try {
      splitTime(lstatSync(Buffer.concat([this.base, name.subarray(start, end)]), { bigint: true }).mtimeNs, out)
      return 'read'
    } catch (error) {
      return { unreadable: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (error as Error).message }
    }
  }
}
