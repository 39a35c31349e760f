// A long line's window against the real rg: the page shows the part around the first match, in both profiles.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { callTool, loadRealHarness, scratchDirs } from '../../real-harness.js'
import { callClaude, loadClaudeHarness } from '../../claude-code/real.js'

const scratchDir = scratchDirs()
const tree = scratchDir('windows')
let dsh: Harness
let claude: Harness

/** A line of `length` bytes of `fill` with `needle` at byte `at` (0-based). */
function longLine(length: number, at: number, needle = 'NEEDLE', fill = 'a'): string {
  return fill.repeat(at) + needle + fill.repeat(length - at - needle.length)
}

/** The row of `line` on a page: its label and text. */
function rowOf(content: string, line: number): string {
  return content.split('\n').find((row) => row.startsWith(`Line ${line} `) || row.startsWith(`Line ${line}:`))!
}

beforeAll(async () => {
  writeFileSync(join(tree, 'min.js'), `${longLine(100_000, 40_000)}\n`)
  writeFileSync(join(tree, 'ends.js'), `${longLine(100_000, 0)}\n${longLine(100_000, 100_000 - 6)}\n`)
  writeFileSync(join(tree, 'many.js'), [10_000, 20_000, 30_000].map((at) => longLine(50_000, at, `NEEDLE${at}`)).join('\n'))
  // A euro sign (3 bytes) whose second byte is where the window starts, 500 bytes before the match;
  // two-byte é from an odd offset, so the window's 2000 bytes end inside one.
  writeFileSync(join(tree, 'utf8.js'), `${'b'.repeat(39_499)}€${'b'.repeat(498)}NEEDLEb${'é'.repeat(5000)}\n`)
  writeFileSync(join(tree, 'crlf.js'), `${longLine(5000, 3000)}\r\nnext\r\n`)
  writeFileSync(join(tree, 'ctrl.js'), `${'c'.repeat(3000)}\u001b[2J\u0007NEEDLE${'c'.repeat(3000)}\n`)
  // rg prints the long line, then stops at the NUL far after it.
  writeFileSync(join(tree, 'bin.dat'), `${longLine(10_000, 5000)}\n${'filler line\n'.repeat(30_000)}\u0000\u0001NEEDLE\n`)
  // Short lines of the file's own that end in the words rg appends to a preview.
  writeFileSync(join(tree, 'marker.txt'), 'MARKER [... omitted end of long line]\nMARKER [... 2 more matches]\r\n')
  dsh = await loadRealHarness({ spillRoot: scratchDir('spill') })
  claude = await loadClaudeHarness(scratchDir('spill-cc'))
})

describe('a long line shows its first match (dsh grep)', () => {
  it('shows a match at byte 40,000 of a 100 KB minified line, in a window the row names', async () => {
    const result = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'min.js' }, tree)
    const row = rowOf(result.content, 1)
    expect(row).toBe(`Line 1 (cut; columns 39501-41500): ${longLine(2000, 500)}`)
    expect(result.value).toMatchObject({ matches: [{ path: 'min.js', lineNumber: 1, lineCut: true, lineFrom: 39_501 }] })
  })

  it('keeps the head for a match at the start, and ends the window at the line end for a match at the end', async () => {
    const { content } = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'ends.js' }, tree)
    expect(rowOf(content, 1)).toBe(`Line 1 (cut): ${longLine(2000, 0)}`)
    expect(rowOf(content, 2)).toBe(`Line 2 (cut; columns 99495-100000): ${'a'.repeat(500)}NEEDLE`)
  })

  it('windows several long lines of one file, each around its own match', async () => {
    const { content } = await callTool(dsh, 'grep', { pattern: 'NEEDLE\\d+', include: 'many.js' }, tree)
    expect(rowOf(content, 1)).toContain('(cut; columns 9501-11500): ')
    expect(rowOf(content, 2)).toContain(`(cut; columns 19501-21500): ${'a'.repeat(500)}NEEDLE20000a`)
    expect(rowOf(content, 3)).toContain(`(cut; columns 29501-31500): ${'a'.repeat(500)}NEEDLE30000a`)
  })

  it('never splits a character at either edge of the window', async () => {
    const { content } = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'utf8.js' }, tree)
    const row = rowOf(content, 1)
    // The window would start inside the euro sign: it starts after it; its end drops a split é.
    expect(row).toMatch(/^Line 1 \(cut; columns 39503-41499\): b{498}NEEDLEbé+$/)
    expect(Buffer.byteLength(row.slice(row.indexOf(': ') + 2))).toBe(41_499 - 39_503 + 1)
    expect(content).not.toContain('\ufffd')
  })

  it('drops the CR before the newline, escapes control characters, and says so', async () => {
    const crlf = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'crlf.js' }, tree)
    expect(rowOf(crlf.content, 1)).toBe(`Line 1 (cut; columns 2501-4500): ${longLine(2000, 500)}`)
    const ctrl = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'ctrl.js' }, tree)
    expect(rowOf(ctrl.content, 1)).toBe(`Line 1 (cut; columns 2506-4505): ${'c'.repeat(495)}\\u001b[2J\\u0007NEEDLE${'c'.repeat(1494)}`)
    expect(ctrl.content).toContain('(1 matched line contains control or invisible characters')
  })

  it('windows a long line in a file rg stops reading at a NUL', async () => {
    const { content } = await callTool(dsh, 'grep', { pattern: 'NEEDLE', include: 'bin.dat' }, tree)
    expect(rowOf(content, 1)).toBe(`Line 1 (cut; columns 4501-6500): ${longLine(2000, 500)}`)
    expect(content).toContain('(rg stopped at binary content in bin.dat')
  })

  it('keeps the spill consistent with the page', async () => {
    const small = await loadRealHarness({ spillRoot: scratchDir('spill-small'), search: { grepMaxMatches: 1 } })
    const { content } = await callTool(small, 'grep', { pattern: 'NEEDLE\\d+', include: 'many.js' }, tree)
    const spilled = /stored at: (\S+)\. Use read/.exec(content)![1]!
    const { readFileSync } = await import('node:fs')
    const full = readFileSync(spilled, 'utf8')
    expect(full).toContain(rowOf(content, 1))
    expect(rowOf(full, 2)).toMatch(/^Line 2 \(cut\): a{2000}$/)
  })
})

describe('a long line shows its first match (claude-code Grep)', () => {
  it('shows the window in content mode, numbered or not', async () => {
    const numbered = await callClaude(claude, 'Grep', { pattern: 'needle', path: 'min.js', output_mode: 'content', '-i': true }, tree)
    expect(rowOf(numbered.content, 1)).toBe(`Line 1 (cut; columns 39501-41500): ${longLine(2000, 500)}`)
    const plain = await callClaude(claude, 'Grep', { pattern: 'NEEDLE', path: 'min.js', output_mode: 'content', '-n': false }, tree)
    expect(plain.content).toContain(`\n(cut; columns 39501-41500): ${longLine(2000, 500)}`)
  })

  it('keeps the head of a line a multiline match only continues onto', async () => {
    writeFileSync(join(tree, 'multi.txt'), `${'x'.repeat(3000)}START\n${'y'.repeat(3000)}END\n`)
    const { content } = await callClaude(
      claude,
      'Grep',
      { pattern: 'START.*END', path: 'multi.txt', output_mode: 'content', multiline: true },
      tree,
    )
    expect(rowOf(content, 1)).toBe(`Line 1 (cut; columns 2501-3005): ${'x'.repeat(500)}START`)
    expect(rowOf(content, 2)).toBe(`Line 2 (cut): ${'y'.repeat(2000)}`)
  })
})

describe("the window script runs no program of the tree's", () => {
  it('looks grep and od up by absolute path, so a "." PATH entry cannot run the tree\'s own', async () => {
    const trapped = scratchDir('windows-trap')
    writeFileSync(join(trapped, 'min.js'), `${longLine(100_000, 40_000)}\n`)
    for (const name of ['grep', 'od'])
      writeFileSync(join(trapped, name), `#!/bin/sh\ntouch '${join(trapped, `ran-${name}`)}'\n`, { mode: 0o755 })
    const harness = await loadRealHarness({ spillRoot: scratchDir('spill-trap'), bash: { envSet: { PATH: `.:${process.env.PATH}` } } })
    const result = await callTool(harness, 'grep', { pattern: 'NEEDLE' }, trapped)
    expect(rowOf(result.content, 1)).toMatch(/^Line 1 \(cut; columns \d+-\d+\): a+NEEDLEa+$/)
    expect(existsSync(join(trapped, 'ran-grep'))).toBe(false)
    expect(existsSync(join(trapped, 'ran-od'))).toBe(false)
  })
})

describe("a line that ends like rg's preview is whole", () => {
  it('is shown whole, with no cut label, by grep and by Grep', async () => {
    const page = 'marker.txt\nLine 1: MARKER [... omitted end of long line]\nLine 2: MARKER [... 2 more matches]'
    const result = await callTool(dsh, 'grep', { pattern: 'MARKER', include: 'marker.txt' }, tree)
    expect(result.content).toBe(`Found 2 matches\n\n${page}`)
    expect(result.value).toMatchObject({ matches: [{ lineCut: false }, { lineCut: false }] })
    const content = await callClaude(claude, 'Grep', { pattern: 'MARKER', path: 'marker.txt', output_mode: 'content' }, tree)
    expect(content.content).toBe(`Found 2 matching lines in 1 file\n\n${page}`)
  })
})
