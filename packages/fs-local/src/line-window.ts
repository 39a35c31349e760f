// LineWindow: splits a file's bytes into lines chunk by chunk and keeps only the requested window.
import { isUtf8 } from 'node:buffer'
import type { FileLine, ReadLinesRequest, ReadLinesResult } from '@dsh/core'
import { utf8CutIndex } from './utf8.js'

/** The limits of a window, as `readLines` was asked for them. */
export type WindowLimits = Pick<ReadLinesRequest, 'offset' | 'limit' | 'maxLineBytes' | 'maxBytes'>

const LF = 0x0a
const CR = 0x0d

/**
 * The line splitter `readLines` feeds one chunk at a time. It holds at most one line's kept bytes
 * (`maxLineBytes + 1`): lines before the window are only counted, and the rest of a cut line is only
 * scanned for its end, so a huge line or a huge file costs the window, not the file.
 */
export class LineWindow {
  readonly #limits: WindowLimits
  /** The number of the line being scanned. */
  #line = 1
  /** True once a byte of the current line has been seen: at the end of the file it is a line without LF. */
  #lineOpen = false
  /** The current line's bytes so far, copied out of the reused chunk buffer; one more than `maxLineBytes` at most. */
  #parts: Buffer[] = []
  #partBytes = 0
  /** The current line was cut and taken before its end; the rest of it is skipped. */
  #skipRest = false
  readonly #lines: FileLine[] = []
  #keptBytes = 0
  #lossy = false
  #stoppedBy: 'limit' | 'bytes' | undefined

  constructor(limits: WindowLimits) {
    this.#limits = limits
  }

  /** Feeds the next bytes of the file; returns true once the window is settled and needs no more. */
  push(chunk: Buffer): boolean {
    let start = 0
    while (start < chunk.length) {
      // A byte after the last taken line's LF: the window is full and the file goes on.
      if (this.#lines.length === this.#limits.limit) return this.#stop('limit')
      const lf = chunk.indexOf(LF, start)
      const end = lf === -1 ? chunk.length : lf
      if (this.#line >= this.#limits.offset && !this.#skipRest && this.#collect(chunk.subarray(start, end), lf !== -1)) return true
      if (lf === -1) {
        this.#lineOpen = true
        return false
      }
      start = lf + 1
      this.#nextLine()
    }
    return false
  }

  /** Ends the file: a last line without LF still counts, and the window knows the file's line count. */
  end(): ReadLinesResult {
    if (this.#stoppedBy !== undefined) return this.result()
    if (this.#lineOpen && this.#line >= this.#limits.offset && !this.#skipRest && this.#take(Buffer.concat(this.#parts))) {
      return this.result()
    }
    const totalLines = this.#lineOpen ? this.#line : this.#line - 1
    return { lines: this.#lines, stoppedBy: 'end', totalLines, lossy: this.#lossy }
  }

  /** The window after `push` returned true. */
  result(): ReadLinesResult {
    return { lines: this.#lines, stoppedBy: this.#stoppedBy!, lossy: this.#lossy }
  }

  /**
   * Keeps a piece of a line inside the window. A line within one chunk is taken straight from it;
   * one spanning chunks is copied up to `maxLineBytes + 1` bytes, enough to tell a cut line from one
   * of exactly `maxLineBytes` bytes followed by CR LF.
   */
  #collect(piece: Buffer, complete: boolean): boolean {
    if (complete && this.#partBytes === 0) return this.#take(withoutCr(piece))
    const room = this.#limits.maxLineBytes + 1 - this.#partBytes
    if (piece.length > room) {
      this.#parts.push(Buffer.from(piece.subarray(0, room)))
      this.#skipRest = true
      return this.#take(Buffer.concat(this.#parts))
    }
    this.#parts.push(Buffer.from(piece))
    this.#partBytes += piece.length
    return complete && this.#take(withoutCr(Buffer.concat(this.#parts)))
  }

  /**
   * Adds a line to the window, cut if it must be; returns true when that settles the window: the line
   * does not fit the byte budget, or it is a cut line that fills the window. The end of a cut line
   * may be a gigabyte away, so the read does not look past it for more lines: 'limit', even when
   * none follow, whichever chunk the line's end falls in.
   */
  #take(bytes: Buffer): boolean {
    const cut = bytes.length > this.#limits.maxLineBytes
    const kept = cut ? bytes.subarray(0, utf8CutIndex(bytes, this.#limits.maxLineBytes)) : bytes
    if (this.#lines.length > 0 && this.#keptBytes + kept.length > this.#limits.maxBytes) return this.#stop('bytes')
    this.#lines.push({ number: this.#line, text: kept.toString('utf8'), cut })
    this.#keptBytes += kept.length
    if (!isUtf8(kept)) this.#lossy = true
    return cut && this.#lines.length === this.#limits.limit && this.#stop('limit')
  }

  #nextLine(): void {
    this.#line += 1
    this.#lineOpen = false
    this.#parts = []
    this.#partBytes = 0
    this.#skipRest = false
  }

  #stop(reason: 'limit' | 'bytes'): true {
    this.#stoppedBy = reason
    return true
  }
}

/** A line's text without its terminator: the LF is already gone, and a CR right before it goes too. */
function withoutCr(bytes: Buffer): Buffer {
  return bytes.at(-1) === CR ? bytes.subarray(0, -1) : bytes
}
