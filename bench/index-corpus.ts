// The index bench's generated tree: deterministic code-like text, generated once into the bench cache.
// Run alone to generate it ahead of a bench: npx tsx bench/index-corpus.ts FILES
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** A deterministic code-like tree: identifiers drawn from a Zipf-like vocabulary, ~3 KB a file. */
export function ensureIndexTree(cache: string, files: number): string {
  const root = path.join(cache, `index-code-${files}-v2`)
  if (existsSync(root)) return root
  const partial = `${root}.partial-${process.pid}`
  let seed = 42
  const random = () => {
    // Math.imul keeps the LCG exact: a plain product passes 2^53 and loses the low bits.
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed / 2 ** 32
  }
  const syllables = [
    'get',
    'set',
    'load',
    'save',
    'user',
    'item',
    'list',
    'map',
    'node',
    'tree',
    'value',
    'key',
    'file',
    'path',
    'read',
    'write',
    'parse',
    'emit',
    'cache',
    'state',
    'index',
    'query',
    'token',
    'count',
  ]
  const vocabulary = Array.from({ length: 8000 }, (_, i) => {
    const a = syllables[i % syllables.length]!
    const b = syllables[Math.floor(i / syllables.length) % syllables.length]!
    const c = i >= 576 ? String(i) : ''
    return `${a}${b[0]!.toUpperCase()}${b.slice(1)}${c}`
  })
  // Zipf-like: the rank of a word is drawn as 8000^u, so a few words are everywhere and most are rare.
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.pow(vocabulary.length, random())) - 1)]!
  for (let i = 0; i < files; i++) {
    const dir = path.join(partial, `pkg${i % 100}`, `mod${Math.floor(i / 100) % 50}`)
    if (i < 5000) mkdirSync(dir, { recursive: true })
    const lines: string[] = []
    for (let l = 0; l < 60; l++) {
      const r = random()
      if (r < 0.2) lines.push(`import { ${word()} } from './${word()}'`)
      else if (r < 0.5) lines.push(`export function ${word()}(${word()}, ${word()}) {`)
      else if (r < 0.8) lines.push(`  const ${word()} = ${word()}.${word()}(${word()})`)
      else lines.push(`  return ${word()} // ${word()} ${word()}`)
    }
    writeFileSync(path.join(dir, `f${i}.ts`), `${lines.join('\n')}\n`)
  }
  renameSync(partial, root)
  return root
}

if (process.argv[1]?.endsWith('index-corpus.ts')) {
  const files = Number(process.argv[2] ?? 500_000)
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'dsh-bench')
  const started = Date.now()
  console.log(`${ensureIndexTree(cache, files)} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
}
