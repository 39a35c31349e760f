import { describe, expect, it } from 'vitest'
import { GlobListingParser, type GlobListing } from '../../../src/engine/glob/listing.js'
import { sortNewestFirst } from '../../../src/engine/glob/order.js'
import { pathBlocks, showPaths } from '../../../src/engine/glob/paths.js'
import { nameDisplay } from '../../../src/engine/display-path.js'
import { statRecords } from '../../fake-bash.js'

/** A listing of `names`, newest first in the order given. */
function listingOf(...names: (string | Buffer)[]): { listing: GlobListing; order: Uint32Array } {
  const parser = new GlobListingParser(1 << 20)
  names.forEach((name, i) => parser.push(Buffer.concat([Buffer.from(`${names.length - i}\t`), Buffer.from(name), Buffer.from('\0')])))
  const listing = parser.finish()
  return { listing, order: sortNewestFirst(listing) }
}

/** The blocks `pathBlocks` yields, each copied as it comes (the generator refills one buffer). */
function written(listing: GlobListing, order: Uint32Array, display: ReturnType<typeof nameDisplay>): { text: string; sizes: number[] } {
  const blocks: Buffer[] = []
  for (const block of pathBlocks(listing, order, display)) blocks.push(Buffer.from(block))
  return { text: Buffer.concat(blocks).toString(), sizes: blocks.map((block) => block.length) }
}

describe('pathBlocks', () => {
  const huge = 'h'.repeat(300_000)
  // Long names among short ones, and a path larger than a block last, so nothing is left for a last block.
  const names = [
    './a.ts',
    'b/../c.ts',
    'e\u001bsc',
    huge,
    ...Array.from({ length: 5000 }, (_, i) => `dir/${i}/${'n'.repeat(i % 200)}`),
    `x/../${huge}`,
  ]

  it.each([
    ['a prefix', '/w', '/w/sub'],
    ['no prefix', '/w', '/w'],
    ['a directory that needs quoting, so no name is plain', '/w', '/w/q\nuoted'],
  ])('writes exactly what joining the shown paths gives, across blocks, with %s', (_label, workdir, dir) => {
    const { listing, order } = listingOf(...names)
    const display = nameDisplay(workdir, dir)
    const shown = showPaths(listing, order, display)
    const { text, sizes } = written(listing, order, display)
    expect(text).toBe(`${Array.from({ length: shown.count }, (_, i) => shown.at(i)).join('\n')}\n`)
    expect(sizes.filter((size) => size > 1 << 18)).toHaveLength(2)
  })
})

describe('pathBlocks of a short listing', () => {
  it('writes it in one block', () => {
    const { listing, order } = listingOf('./b', 'a', 'c/d')
    expect(written(listing, order, nameDisplay('/w', '/w/s'))).toEqual({ text: 's/b\ns/a\ns/c/d\n', sizes: [14] })
  })
})

describe('showPaths', () => {
  it('counts the paths whose names held replaced bytes: not a U+FFFD a name or what it is shown from holds', () => {
    const { listing, order } = listingOf(
      'r\ufffd',
      Buffer.from([0x62, 0xff]),
      'plain',
      'x/../up\ufffd',
      Buffer.from([0x78, 0x2f, 0x2e, 0x2e, 0x2f, 0xfe]),
    )
    expect(showPaths(listing, order, nameDisplay('/w', '/w')).lossy).toBe(2)
    expect(showPaths(listing, order, nameDisplay('/w', '/w/\ufffd')).lossy).toBe(2)
    const clean = listingOf('a', '../y')
    expect(showPaths(clean.listing, clean.order, nameDisplay('/w', '/w')).lossy).toBe(0)
    expect(showPaths(clean.listing, clean.order, nameDisplay('/x\ufffd/w', '/x\ufffd/w')).lossy).toBe(0)
  })

  it('shows each path only when it is asked for', () => {
    const parser = new GlobListingParser(1 << 20)
    parser.push(Buffer.from(statRecords(['2', 'new'], ['1', 'old'])))
    const listing = parser.finish()
    const shown = showPaths(listing, sortNewestFirst(listing), nameDisplay('/w', '/w/s'))
    expect([shown.count, shown.at(0), shown.at(1)]).toEqual([2, 's/new', 's/old'])
  })
})
