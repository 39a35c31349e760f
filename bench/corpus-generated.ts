import { existsSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** How big a generated tree is. `extras` adds what the npm tree lacks: a .git, ignore files, hidden files, binaries. */
export interface TreeShape {
  name: string
  packages: number
  modulesPerPackage: number
  filesPerModule: number
  linesPerFile: number
  extras: boolean
}

// Bump when the generator's output changes: the version is part of the cached folder's name.
const GENERATOR_VERSION = 1

/** The `--quick` corpus: 2,000 source files, 200k lines of ~125 B (25 MB), plus the extras. */
export const SMALL_TREE: TreeShape = {
  name: 'small',
  packages: 20,
  modulesPerPackage: 10,
  filesPerModule: 10,
  linesPerFile: 100,
  extras: true,
}

/** The per-call fixed-cost corpus: 20 files, one narrow match. */
export const TINY_TREE: TreeShape = { name: 'tiny', packages: 1, modulesPerPackage: 2, filesPerModule: 10, linesPerFile: 20, extras: false }

/**
 * What a generated tree's patterns find in its source lines: narrow on every 29,989th line (7 in the
 * small tree), medium every 67th (~3k), broad every 10th (20k), and `const` on 9 lines in 10, which
 * in grep's line format is ~30 MB: past the 20 MB raw-output cap.
 */
export const GENERATED_PATTERNS = { narrow: 'narrowNeedle', medium: 'mediumNeedle', broad: 'broadNeedle', overflow: 'const' } as const

// No word contains "const" or a needle, so the counts above are exact.
const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'render',
  'parse',
  'value',
  'index',
  'buffer',
  'stream',
  'token',
  'layout',
  'signal',
  'cursor',
  'result',
  'widget',
]
// Fixed mtimes (seconds), one per file in write order, so glob's newest-first order is reproducible.
const MTIME_BASE = 1_700_000_000

/** A small deterministic PRNG (mulberry32): the same seed writes the same bytes on every machine. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Source line number `g` of the whole tree, padded with words to ~125 bytes. */
function sourceLine(g: number, random: () => number): string {
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)]!
  const parts = [g % 10 === 9 ? `  // ${word()}` : `  const v${g} = ${word()}(${Math.floor(random() * 1e6)})`]
  if (g % 29_989 === 17) parts.push(GENERATED_PATTERNS.narrow)
  if (g % 67 === 5) parts.push(GENERATED_PATTERNS.medium)
  if (g % 10 === 3) parts.push(GENERATED_PATTERNS.broad)
  let line = parts.join(' ')
  while (line.length < 120) line += ` ${word()}`
  return line
}

/** Returns the tree's root, generating it once into the cache (written aside, then renamed into place). */
export function ensureGeneratedTree(cacheDir: string, shape: TreeShape): string {
  const root = path.join(cacheDir, `generated-${shape.name}-v${GENERATOR_VERSION}`)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  writeTree(partial, shape)
  renameSync(partial, root)
  return root
}

function writeTree(root: string, shape: TreeShape): void {
  const random = prng(0x5eed)
  let fileIndex = 0
  const write = (relative: string, data: string | Buffer): void => {
    const file = path.join(root, relative)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, data)
    const mtime = MTIME_BASE + fileIndex++
    utimesSync(file, mtime, mtime)
  }
  let g = 0
  for (let p = 0; p < shape.packages; p++) {
    for (let m = 0; m < shape.modulesPerPackage; m++) {
      for (let f = 0; f < shape.filesPerModule; f++) {
        const lines: string[] = []
        for (let l = 0; l < shape.linesPerFile; l++) lines.push(sourceLine(g++, random))
        write(`packages/pkg${pad(p)}/src/mod${pad(m)}/file${pad(f)}.ts`, `${lines.join('\n')}\n`)
      }
    }
  }
  if (shape.extras) writeExtras(write, shape, random)
}

/** Every needle on one line: an ignored or VCS file that leaked into a search would change the counts. */
const ALL_NEEDLES = `const leaked = '${GENERATED_PATTERNS.narrow} ${GENERATED_PATTERNS.medium} ${GENERATED_PATTERNS.broad}'\n`

function writeExtras(write: (relative: string, data: string | Buffer) => void, shape: TreeShape, random: () => number): void {
  // A .git makes rg honour .gitignore (it requires a repository); both tools must skip its contents.
  write('.git/HEAD', 'ref: refs/heads/main\n')
  write('.git/config', '[core]\n\trepositoryformatversion = 0\n')
  for (let i = 0; i < 64; i++) write(`.git/objects/${pad(i)}/${(i * 2_654_435_761).toString(16)}`, ALL_NEEDLES.repeat(50))
  // Ignored trees: grep must not search them; glob (which lists ignored files) must list them.
  write('.gitignore', 'dist/\n*.log\n')
  write('build.log', ALL_NEEDLES.repeat(500))
  for (let i = 0; i < 50; i++) write(`dist/bundle-${pad(i)}.js`, ALL_NEEDLES.repeat(200))
  write('packages/pkg03/.gitignore', 'generated/\n')
  for (let i = 0; i < 20; i++) write(`packages/pkg03/generated/gen-${pad(i)}.ts`, ALL_NEEDLES.repeat(100))
  write('packages/pkg05/.ignore', 'fixtures/\n')
  for (let i = 0; i < 20; i++) write(`packages/pkg05/fixtures/fx-${pad(i)}.txt`, ALL_NEEDLES.repeat(100))
  // Hidden files: grep searches them (one medium match each), baseline rg does not.
  write('.github/workflows/ci.yml', `# ${GENERATED_PATTERNS.medium}\non: push\n`)
  for (let p = 0; p < shape.packages; p++) write(`packages/pkg${pad(p)}/.notes.md`, `${GENERATED_PATTERNS.medium} in a hidden file\n`)
  // Binaries: NUL bytes with needles inside; rg skips a binary file it finds by walking.
  for (let i = 0; i < 5; i++) {
    const bytes = Buffer.alloc(64 * 1024)
    for (let b = 0; b < bytes.length; b++) bytes[b] = random() < 0.1 ? 0 : Math.floor(random() * 256)
    Buffer.from(ALL_NEEDLES).copy(bytes, 1024 * (i + 1))
    write(`assets/blob-${pad(i)}.bin`, bytes)
  }
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
