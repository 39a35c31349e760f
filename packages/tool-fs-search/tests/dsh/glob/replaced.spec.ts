// Glob's note on names that are not valid UTF-8, over real rg and real files: a name whose bytes were
// replaced counts, a name or a directory that holds U+FFFD itself never does
// (docs/design.md#replaced-bytes-are-told-from-a-literal-ufffd).
import { utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { callClaude, loadClaudeHarness } from '../../claude-code/real.js'
import { callTool, loadRealHarness, readSpill, scratchDirs, setMtime, spillLocator, writeTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
const tree = scratchDir('glob-fffd')
const NOTE = (n: number) => `(${n} ${n === 1 ? 'path contains' : 'paths contain'} U+FFFD: bytes that are not valid UTF-8, shown replaced.)`

let dsh: Harness
let claude: Harness
beforeAll(async () => {
  writeTree(tree, {
    'lit\ufffd.txt': 'needle\n',
    'dir\ufffd/inner\ufffd.txt': 'needle\n',
    'dir\ufffd/plain.txt': 'needle\n',
  })
  // Names with bytes that are not valid UTF-8: one alone, one beside a U+FFFD of its own, one in the directory.
  const raw = (...parts: (string | number[] | Buffer)[]) => Buffer.concat(parts.map((part) => Buffer.from(part)))
  writeFileSync(raw(join(tree, 'bad'), [0xff], '.txt'), 'needle\n')
  writeFileSync(raw(join(tree, 'both\ufffd'), [0xfe], '.txt'), 'needle\n')
  writeFileSync(raw(join(tree, 'dir\ufffd', 'cut'), [0xe2, 0x82], '.txt'), 'needle\n')
  for (const [i, name] of ['lit\ufffd.txt', 'dir\ufffd/inner\ufffd.txt', 'dir\ufffd/plain.txt'].entries())
    setMtime(join(tree, name), 1_700_000_000 + i)
  for (const [i, name] of [
    raw('bad', [0xff], '.txt'),
    raw('both\ufffd', [0xfe], '.txt'),
    raw('dir\ufffd/cut', [0xe2, 0x82], '.txt'),
  ].entries()) {
    utimesSync(raw(tree, '/', name), 1_600_000_000 + i, 1_600_000_000 + i)
  }
  dsh = await loadRealHarness({ spillRoot })
  claude = await loadClaudeHarness(spillRoot)
})

describe('glob counts only names whose bytes were replaced', () => {
  it('in a listing holding both kinds, in glob and Glob alike', async () => {
    const want = [
      'dir\ufffd/plain.txt',
      'dir\ufffd/inner\ufffd.txt',
      'lit\ufffd.txt',
      'dir\ufffd/cut\ufffd.txt',
      'both\ufffd\ufffd.txt',
      'bad\ufffd.txt',
      '',
      NOTE(3),
    ].join('\n')
    expect((await callTool(dsh, 'glob', { pattern: '**/*.txt' }, tree)).content).toBe(want)
    expect((await callClaude(claude, 'Glob', { pattern: '**/*.txt' }, tree)).content).toBe(want)
  })

  it('says nothing of names that hold U+FFFD themselves', async () => {
    expect((await callTool(dsh, 'glob', { pattern: '**/*\ufffd.txt' }, tree)).content).toBe('dir\ufffd/inner\ufffd.txt\nlit\ufffd.txt')
  })

  it('says nothing of a directory whose name holds U+FFFD, listed by path or from inside it', async () => {
    const byPath = await callTool(dsh, 'glob', { pattern: 'p*', path: 'dir\ufffd' }, tree)
    expect(byPath.content).toBe('dir\ufffd/plain.txt')
    const inside = await callClaude(claude, 'Glob', { pattern: '*' }, join(tree, 'dir\ufffd'))
    expect(inside.content).toBe(['plain.txt', 'inner\ufffd.txt', 'cut\ufffd.txt', '', NOTE(1)].join('\n'))
    const outside = await callTool(dsh, 'glob', { pattern: '*', path: 'dir\ufffd' }, tree)
    expect(outside.content).toBe(['dir\ufffd/plain.txt', 'dir\ufffd/inner\ufffd.txt', 'dir\ufffd/cut\ufffd.txt', '', NOTE(1)].join('\n'))
  })

  it('counts every replaced name of a listing that spills, not only those on the page', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { globMaxResults: 1 } })
    const result = await callTool(capped, 'glob', { pattern: '**/*.txt' }, tree)
    expect(result.content).toMatch(/^dir\ufffd\/plain\.txt\n\n\(Showing 1 of 6 paths/)
    expect(result.content.endsWith(`\n\n${NOTE(3)}`)).toBe(true)
    expect(readSpill(spillLocator(result.content)!)).toContain('both\ufffd\ufffd.txt\n')
  })
})

describe('Grep files_with_matches counts as glob does', () => {
  it('from the root, by path, and from inside the directory', async () => {
    const all = await callClaude(claude, 'Grep', { pattern: 'needle' }, tree)
    expect(all.content).toMatch(/^Found 6 files, newest modified first\n/)
    expect(all.content.endsWith(`\n\n${NOTE(3)}`)).toBe(true)
    const literal = await callClaude(claude, 'Grep', { pattern: 'needle', glob: '*\ufffd.txt' }, tree)
    expect(literal.content).not.toContain('U+FFFD')
    for (const [args, cwd] of [
      [{ path: 'dir\ufffd' }, tree],
      [{}, join(tree, 'dir\ufffd')],
    ] as const) {
      const result = await callClaude(claude, 'Grep', { pattern: 'needle', ...args }, cwd)
      expect(result.content, JSON.stringify(args)).toMatch(/^Found 3 files, newest modified first\n/)
      expect(result.content.endsWith(`\n\n${NOTE(1)}`)).toBe(true)
    }
  })
})
