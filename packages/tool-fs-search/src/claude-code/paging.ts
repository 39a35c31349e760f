// Paging a complete Grep result by `offset` and `head_limit`, within the page's byte budget, and saying how to go on.
import type { SpillOutcome } from '../engine/spill.js'
import { spillSentence } from '../engine/footers.js'
import { DEFAULT_HEAD_LIMIT } from './args.js'

/** Which entries a call asks for: from `offset`, at most `limit` (unbounded for head_limit 0). */
export interface PageRequest {
  offset: number
  limit: number
}

/** The request a call's `offset` and `head_limit` make. */
export function pageRequest({ offset, head_limit }: { offset?: number | undefined; head_limit?: number | undefined }): PageRequest {
  const limit = head_limit ?? DEFAULT_HEAD_LIMIT
  return { offset: offset ?? 0, limit: limit === 0 ? Number.POSITIVE_INFINITY : limit }
}

/** What one page holds: the text of its entries and how many. */
export interface Page {
  offset: number
  kept: number
  total: number
  text: string
}

/**
 * Takes entries from `entries` (which starts at `request.offset`) until the page holds `limit` of
 * them or the next would pass `maxBytes`; at least one, so a page is never empty while entries remain.
 * Each entry's text carries its own separators, so the page is exactly their concatenation, and a
 * page that continues at `offset + kept` misses and repeats nothing.
 */
export function takePage(entries: Iterable<string>, total: number, request: PageRequest, maxBytes: number): Page {
  const texts: string[] = []
  let bytes = 0
  for (const text of entries) {
    if (texts.length >= request.limit) break
    bytes += Buffer.byteLength(text)
    if (bytes > maxBytes && texts.length > 0) break
    texts.push(text)
  }
  return { offset: request.offset, kept: texts.length, total, text: texts.join('') }
}

/** True when entries remain after the page. */
export function hasMore(page: Page): boolean {
  return page.offset + page.kept < page.total
}

/**
 * The paging footer: "N of M", the offset that continues and where the complete result is, for a page
 * with more after it; the range shown for a later page that ends the result; nothing for a whole one.
 */
export function pagingNote(page: Page, unit: string, spill: SpillOutcome | undefined): string | undefined {
  if (page.kept === page.total) return undefined
  const range = `${unit} ${page.offset + 1}-${page.offset + page.kept} of ${page.total}`
  if (!hasMore(page)) return `(Showing ${range}: the end of the result.)`
  const next = `to see more, call again with offset: ${page.offset + page.kept}`
  return `(Showing ${range}; ${next}.${spill === undefined ? '' : ` ${spillSentence(spill, 'Complete result')}`})`
}

/** What a page past the end says instead: how many entries the result has. */
export function pastEndNote(page: Page, unit: string): string {
  return `(No ${unit} at offset ${page.offset}: the complete result has ${page.total} ${unit}, so use an offset below ${page.total}.)`
}

// Blocks of the complete result as the spill store writes them.
const BLOCK_BYTES = 1 << 18
// Room kept under `maxBytes` for the sentence that says the spill was cut.
const CUT_NOTE_BYTES = 256

/** Texts as blocks of UTF-8 bytes of about `BLOCK_BYTES`, each with the texts it holds: their concatenation. */
export function* textBlocks(texts: Iterable<string>): Generator<{ bytes: Uint8Array; texts: string[] }> {
  let pending: string[] = []
  let length = 0
  for (const text of texts) {
    pending.push(text)
    length += text.length
    if (length >= BLOCK_BYTES) {
      yield { bytes: Buffer.from(pending.join('')), texts: pending }
      pending = []
      length = 0
    }
  }
  if (length > 0) yield { bytes: Buffer.from(pending.join('')), texts: pending }
}

/** What a spill holds and how large it may grow; `cut` is set when it was cut, with how many entries it holds. */
export interface SpillPlan {
  heading: string
  entries: Iterable<string>
  /** What follows the entries: a newline, and the timeout's note. */
  tail: string
  total: number
  unit: string
  /** `spillMaxBytes` (docs/design.md#results-bigger-than-memory). */
  maxBytes: number
  cut?: { saved: number }
}

/**
 * The complete result as the spill keeps it, `heading`, a blank line, the entries and the tail, in
 * blocks of UTF-8 bytes. Past `plan.maxBytes` it keeps the entries that fit and says how many of the
 * total those are.
 */
export function* spillBlocks(plan: SpillPlan): Generator<Uint8Array> {
  const head = Buffer.from(`${plan.heading}\n\n`)
  const tail = Buffer.from(plan.tail)
  yield head
  let room = plan.maxBytes - head.length - tail.length - CUT_NOTE_BYTES
  let saved = 0
  for (const { bytes, texts } of textBlocks(plan.entries)) {
    if (bytes.length <= room) {
      room -= bytes.length
      saved += texts.length
      yield bytes
      continue
    }
    // The block's entries that still fit, one by one.
    const fit: string[] = []
    for (const text of texts) {
      room -= Buffer.byteLength(text)
      if (room < 0) break
      fit.push(text)
    }
    saved += fit.length
    plan.cut = { saved }
    const note = `(This file holds the first ${saved} of ${plan.total} ${plan.unit}: the complete result passes spillMaxBytes, ${plan.maxBytes} bytes.)`
    yield Buffer.from(`${fit.join('')}${saved === 0 ? '' : '\n\n'}${note}`)
    break
  }
  yield tail
}
