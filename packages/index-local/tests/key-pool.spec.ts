// The build's keying in worker threads: the same index byte for byte with any number of them, and a worker that fails fails the build.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { waitUntil } from '../../../test-support/processes.js'
import { scratchDir, writeTree } from '../../../test-support/temp-tree.js'
import { buildIndex, buildIndexWith } from '../src/build.js'
import { resolveIndexOptions } from '../src/config.js'
import { keyTree, PathFeed, workerEntry } from '../src/key-pool.js'
import { INDEX_FILE, treeDir } from '../src/location.js'
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

/** OS threads of this process: a worker is one while it runs. */
function threads(): number {
  return readdirSync('/proc/self/task').length
}

/**
 * Whether the threads come back to `before`: a joined thread can still be listed for a moment (the
 * kernel wakes the joiner before the thread has finished exiting), so a leak is a count that stays up.
 */
async function threadsBackTo(before: number): Promise<boolean> {
  return waitUntil(() => threads() === before, 2_000)
}

describe('the build keys files in worker threads', () => {
  it('writes the same index with one, two or three workers, and with the default chunks', async () => {
    const built = []
    for (const workers of [1, 2, 3]) {
      const s = settings(`same-${workers}`, { buildWorkers: workers })
      const report = await buildIndexWith(s, tree, SEAMS)
      built.push({ report, file: readFileSync(report.indexPath) })
    }
    // One builder, segments as large as they come, one chunk: the build as it was before workers.
    const whole = await buildIndex(settings('same-default', { buildWorkers: 1 }), tree)
    built.push({ report: whole, file: readFileSync(whole.indexPath) })
    const [first, ...rest] = built.map(({ report, file }) => ({
      report: { ...report, indexPath: '', elapsedMs: 0 },
      ...withoutBuildTime(file),
    }))
    expect(first!.report).toMatchObject({ files: FILES + 2, alwaysRead: 2 })
    expect(first!.header).toMatchObject({ files: FILES + 2 })
    for (const other of rest) {
      expect(other.report).toEqual(first!.report)
      expect(other.header).toEqual(first!.header)
      expect(other.sections.equals(first!.sections)).toBe(true)
    }
  })

  it('leaves no worker running after a build', async () => {
    const before = threads()
    await buildIndexWith(settings('threads', { buildWorkers: 3 }), tree, SEAMS)
    expect(await threadsBackTo(before)).toBe(true)
  })

  it('keys a tree of one chunk in its own thread, whatever the setting', async () => {
    // A worker entry that cannot load: the build succeeds only if it starts none.
    const missing = pathToFileURL(join(base, 'no-such-worker.mjs'))
    const report = await buildIndexWith(settings('one-chunk', { buildWorkers: 4 }), tree, { chunkFiles: FILES + 2, workerEntry: missing })
    expect(report.files).toBe(FILES + 2)
  })

  it('keys paths as a walk feeds them the same as paths all found, and an empty feed as nothing', async () => {
    const paths = readdirSync(tree, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => Buffer.from(join(e.parentPath, e.name)))
    const options = { fileMaxBytes: 8000, indexMaxBytes: 2 ** 32, ...SEAMS }
    const whole = await keyTree(PathFeed.of(paths), { ...options, workers: 1 })
    for (const workers of [1, 2, 3]) {
      // Fed a few at a time, with a turn of the event loop between, as the walk's reads give.
      const feed = new PathFeed()
      const keyed = keyTree(feed, { ...options, workers })
      for (let i = 0; i < paths.length; i += 7) {
        for (const path of paths.slice(i, i + 7)) feed.push(path)
        await new Promise((resolve) => setImmediate(resolve))
      }
      feed.end()
      expect(await keyed, `${workers} workers`).toEqual(whole)
    }
    expect(await keyTree(PathFeed.of([]), { ...options, workers: 2 })).toEqual({
      flags: new Uint8Array(0),
      times: { seconds: new Float64Array(0), nanos: new Uint32Array(0) },
      contentBytes: 0,
      segments: [],
    })
  })

  it('answers a take as far as the feed goes, once it has that much or ends', async () => {
    const feed = new PathFeed()
    const first = feed.take(0, 2)
    const past = feed.take(3, 2)
    feed.push(Buffer.from('a'))
    feed.push(Buffer.from('b'))
    expect((await first)?.map(String)).toEqual(['a', 'b'])
    feed.push(Buffer.from('c'))
    feed.push(Buffer.from('d'))
    feed.end()
    // Fewer than asked for at the end, and nothing past it.
    expect((await past)?.map(String)).toEqual(['d'])
    expect(await feed.take(4, 2)).toBeUndefined()
  })

  it('fails past indexMaxBytes summed over every worker’s segments, and writes nothing', async () => {
    const paths = readdirSync(tree, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => Buffer.from(join(e.parentPath, e.name)))
    const options = { fileMaxBytes: 8000, workers: 1, ...SEAMS }
    const whole = await keyTree(PathFeed.of(paths), { ...options, indexMaxBytes: 2 ** 32 })
    const total = whole.segments.reduce((n, s) => n + segmentBytes(s), 0)
    expect(await keyTree(PathFeed.of(paths), { ...options, workers: 2, indexMaxBytes: total })).toEqual(whole)
    // Half of it: each chunk's segments fit, together they do not.
    await expect(keyTree(PathFeed.of(paths), { ...options, workers: 2, indexMaxBytes: Math.floor(total / 2) })).rejects.toMatchObject({
      code: 'INDEX_TOO_LARGE',
    })
    const s = settings('budget', { buildWorkers: 2, indexMaxBytes: Math.floor(total / 2) })
    await expect(buildIndexWith(s, tree, SEAMS)).rejects.toMatchObject({ code: 'INDEX_TOO_LARGE' })
    expect(indexFiles(s.dir)).toEqual([])
  })
})

describe('a worker that fails fails the build, and nothing is written', () => {
  const entries = {
    throws: "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => { throw new Error('keying broke') })\n",
    exits: "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => process.exit(0))\n",
  }
  it.each([
    ['throws on its first chunk', 'throws', /a build worker failed: keying broke/],
    ['exits before it answers', 'exits', /a build worker exited with code 0/],
    ['cannot be loaded', 'missing', /a build worker failed: .*no-such-worker/],
  ] as const)('one that %s', async (_, name, message) => {
    const entry = join(base, name === 'missing' ? 'no-such-worker.mjs' : `${name}-worker.mjs`)
    if (name !== 'missing') writeFileSync(entry, entries[name])
    const s = settings(`fails-${name}`, { buildWorkers: 3 })
    const before = threads()
    await expect(buildIndexWith(s, tree, { ...SEAMS, workerEntry: pathToFileURL(entry) })).rejects.toMatchObject({
      code: 'INDEX_BUILD_FAILED',
      message: expect.stringMatching(message) as unknown,
    })
    expect(await threadsBackTo(before)).toBe(true)
    // Neither an index nor a temporary file: the build failed before it wrote.
    expect(indexFiles(s.dir).filter((n) => n.startsWith(INDEX_FILE))).toEqual([])
  })
})

describe('a worker that cannot start', () => {
  it('fails the build with a build error, not a raw one', async () => {
    const s = settings('fails-start', { buildWorkers: 2 })
    await expect(buildIndexWith(s, tree, { ...SEAMS, workerEntry: new URL('http://example.invalid/key-worker.js') })).rejects.toMatchObject(
      {
        code: 'INDEX_BUILD_FAILED',
        message: expect.stringMatching(/a build worker could not start: .*scheme/) as unknown,
      },
    )
    expect(indexFiles(s.dir).filter((n) => n.startsWith(INDEX_FILE))).toEqual([])
  })
})

describe('the worker entry', () => {
  it('is the built key-worker.js beside the module, or from TypeScript source the bootstrap through tsx', () => {
    expect(workerEntry('file:///p/dist/key-pool.js').href).toBe('file:///p/dist/key-worker.js')
    // In the CLI's bundle the module is the program's script, with the worker bundled beside it.
    expect(workerEntry('file:///p/dist/chunks/dsh-program.cjs').href).toBe('file:///p/dist/chunks/key-worker.js')
    expect(workerEntry('file:///p/src/key-pool.ts').href).toBe('file:///p/src/key-worker-source.mjs')
  })
})
