// The build's keying in chunks: the same index byte for byte whatever the chunks and segments.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'
import { buildIndex, buildIndexWith } from '../src/build.js'
import { resolveIndexOptions } from '../src/config.js'
import { keyTree } from '../src/key-pool.js'
import { treeDir } from '../src/location.js'
import { segmentBytes } from '../src/postings.js'

const base = scratchDir('index-workers')

// Code-like text from a seeded generator: many distinct trigrams, so lists span chunks and segments.
let seed = 7
const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n
const WORDS = ['load', 'Tree', 'save', 'Query', 'index', 'walk', 'Chunk', 'merge', 'Segment', 'postings', 'key', 'file']
function codeLike(lines: number): string {
  let text = ''
  for (let l = 0; l < lines; l++) {
    text += `export function ${WORDS[random(WORDS.length)]}${WORDS[random(WORDS.length)]}${random(5000)}(x${random(90)}) { return ${random(1e6)} }\n`
  }
  return text
}

const FILES = 600
const tree = join(base, 'tree')
const files: Record<string, string | Buffer> = {}
for (let i = 0; i < FILES; i++) files[`d${i % 7}/f${i}.ts`] = codeLike(1 + random(30))
// Read by every search, in chunks of their own: a UTF-16 file, and one past fileMaxBytes.
files['d3/utf16.txt'] = Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62, 0x00, 0x63, 0x00])
files['d5/large.ts'] = codeLike(400)
writeTree(tree, files)

// Chunks of 40 files and segments of 1,500 pairs: 16 chunks, most of them several segments.
const SEAMS = { chunkFiles: 40, segmentPairs: 1500 }

function settings(label: string, extra: Record<string, unknown> = {}) {
  return resolveIndexOptions({ dir: join(base, label), fileMaxBytes: 8000, ...extra })
}

/** The index file with its build time (the header's `builtAtNs`, and so the checksum) left out: every other byte. */
function withoutBuildTime(file: Buffer): { header: Record<string, unknown>; sections: Buffer } {
  const length = file.readUInt32LE(12)
  const { builtAtNs, ...header } = JSON.parse(file.subarray(16, 16 + length).toString()) as Record<string, unknown>
  expect(builtAtNs).toMatch(/^\d+$/)
  return { header, sections: file.subarray(16 + Math.ceil(length / 4) * 4, file.length - 32) }
}

function indexFiles(dir: string): string[] {
  return readdirSync(treeDir(dir, tree))
}

describe('the build keys files in chunks', () => {
  it('writes the same index with small chunks and segments as with the default ones', async () => {
    const small = await buildIndexWith(settings('same-small'), tree, SEAMS)
    // One builder, segments as large as they come, one chunk.
    const whole = await buildIndex(settings('same-default'), tree)
    const [first, other] = [small, whole].map((report) => ({
      report: { ...report, indexPath: '', elapsedMs: 0 },
      ...withoutBuildTime(readFileSync(report.indexPath)),
    }))
    expect(first!.report).toMatchObject({ files: FILES + 2, alwaysRead: 2 })
    expect(first!.header).toMatchObject({ files: FILES + 2 })
    expect(other!.report).toEqual(first!.report)
    expect(other!.header).toEqual(first!.header)
    expect(other!.sections.equals(first!.sections)).toBe(true)
  })

  it('fails past indexMaxBytes summed over every chunk’s segments, and writes nothing', async () => {
    const paths = readdirSync(tree, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => Buffer.from(join(e.parentPath, e.name)))
    const options = { fileMaxBytes: 8000, ...SEAMS }
    const whole = await keyTree(paths, { ...options, indexMaxBytes: 2 ** 32 })
    const total = whole.segments.reduce((n, s) => n + segmentBytes(s), 0)
    expect(await keyTree(paths, { ...options, indexMaxBytes: total })).toEqual(whole)
    // Half of it: each chunk's segments fit, together they do not.
    await expect(keyTree(paths, { ...options, indexMaxBytes: Math.floor(total / 2) })).rejects.toMatchObject({
      code: 'INDEX_TOO_LARGE',
    })
    const s = settings('budget', { indexMaxBytes: Math.floor(total / 2) })
    await expect(buildIndexWith(s, tree, SEAMS)).rejects.toMatchObject({ code: 'INDEX_TOO_LARGE' })
    expect(indexFiles(s.dir)).toEqual([])
  })
})
