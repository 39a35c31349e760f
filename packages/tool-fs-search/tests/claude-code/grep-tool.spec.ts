// Grep of the claude-code profile against the real rg: each parameter and mode, hostile values, paging.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { readSpill, scratchDirs, setMtime, writeTree } from '../real-harness.js'
import { callClaude, loadClaudeHarness } from './real.js'

const scratchDir = scratchDirs()
const tree = scratchDir('cc-grep')
let harness: Harness
const grep = (args: Record<string, unknown>, cwd = tree) => callClaude(harness, 'Grep', args, cwd)

beforeAll(async () => {
  writeTree(tree, {
    'src/a.ts': 'one\nNeedle here\nthree\nfour\nfive\nsix\nNEEDLE again\neight\n',
    'src/b.tsx': 'x\nneedle in tsx\n',
    'src/c.js': 'needle in js\n',
    'docs/readme.md': 'a needle in docs\n',
    x: 'needle in x\n',
    'ignored/skip.ts': 'needle ignored\n',
    '.gitignore': 'ignored/\n',
    'multi.txt': 'start\nmiddle\nend\n',
  })
  // rg honours .gitignore only inside a git repository.
  writeTree(tree, { '.git/HEAD': 'ref: refs/heads/main\n' })
  const times: [string, number][] = [
    ['src/a.ts', 5],
    ['src/b.tsx', 4],
    ['src/c.js', 3],
    ['docs/readme.md', 2],
    ['x', 1],
  ]
  for (const [file, age] of times) setMtime(join(tree, file), 1_700_000_000 - age * 100)
  harness = await loadClaudeHarness(scratchDir('spill'))
})

describe('Grep on the real rg', () => {
  it('lists matching files newest first by default, ties by path, never under ignored or VCS directories', async () => {
    const result = await grep({ pattern: 'needle' })
    expect(result.content).toBe('Found 4 files, newest modified first\n\nx\ndocs/readme.md\nsrc/c.js\nsrc/b.tsx')
    expect(result.value).toMatchObject({ mode: 'files_with_matches', total: 4, shown: 4, matches: 4, truncated: false })
  })

  it('searches case-insensitively with -i', async () => {
    expect((await grep({ pattern: 'needle', '-i': true })).content).toBe(
      'Found 5 files, newest modified first\n\nx\ndocs/readme.md\nsrc/c.js\nsrc/b.tsx\nsrc/a.ts',
    )
  })

  it('counts matching lines per file with the totals, sorted by path', async () => {
    expect((await grep({ pattern: 'needle', output_mode: 'count', '-i': true })).content).toBe(
      'Found 6 matching lines in 5 files\n\ndocs/readme.md:1\nsrc/a.ts:2\nsrc/b.tsx:1\nsrc/c.js:1\nx:1',
    )
  })

  it('shows matching lines grouped by file, context lines marked with "-" and gaps with "--"', async () => {
    const result = await grep({ pattern: 'needle', path: 'src/a.ts', output_mode: 'content', '-i': true, '-C': 1 })
    expect(result.content).toBe(
      'Found 2 matching lines in 1 file, with 4 context lines\n\nsrc/a.ts\nLine 1- one\nLine 2: Needle here\nLine 3- three\n--\nLine 6- six\nLine 7: NEEDLE again\nLine 8- eight',
    )
    const after = await grep({ pattern: 'needle', path: 'src/a.ts', output_mode: 'content', '-i': true, '-A': 1, context: 5, '-B': 0 })
    expect(after.content).toBe(
      'Found 2 matching lines in 1 file, with 2 context lines\n\nsrc/a.ts\nLine 2: Needle here\nLine 3- three\n--\nLine 7: NEEDLE again\nLine 8- eight',
    )
  })

  it('shows matching lines without numbers when -n is false', async () => {
    const result = await grep({ pattern: 'needle', path: 'src', output_mode: 'content', '-n': false, glob: '*.js', '-B': 0 })
    expect(result.content).toBe('Found 1 matching line in 1 file\n\nsrc/c.js\n: needle in js')
  })

  it('marks context and cut lines without numbers too', async () => {
    const long = scratchDir('cc-long')
    writeTree(long, { 'l.txt': `${'x'.repeat(3000)} needle\nafter\n` })
    const result = await grep({ pattern: 'x', output_mode: 'content', '-n': false, '-A': 1 }, long)
    expect(result.content).toBe(`Found 1 matching line in 1 file, with 1 context line\n\nl.txt\n(cut): ${'x'.repeat(2000)}\n- after`)
  })

  it('takes context of 10,000 lines as the file has them', async () => {
    const result = await grep({ pattern: 'Needle', path: 'src/a.ts', output_mode: 'content', context: 10_000 })
    expect(result.value).toMatchObject({ total: 8, matches: 1 })
  })

  it('filters by rg type, and refuses an unknown one naming the close ones', async () => {
    expect((await grep({ pattern: 'needle', type: 'js' })).content).toBe('Found 1 file, newest modified first\n\nsrc/c.js')
    const unknown = await grep({ pattern: 'needle', type: 'tss' })
    expect(unknown).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(unknown.content).toMatch(/^Grep type "tss" is not one of rg's file types\. Close names: [a-z, ]*\bts\b/)
  })

  it('takes a type of "--pre" as a type name, never a flag', async () => {
    const result = await grep({ pattern: 'needle', type: '--pre' })
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(result.content).toContain('Grep type "--pre" is not one of rg\'s file types.')
  })

  it('filters by glob lists and braces, and excludes with "!"', async () => {
    const list = async (glob: string) => (await grep({ pattern: 'needle', glob, output_mode: 'count' })).content.split('\n\n')[1]
    expect(await list('*.{ts,tsx}')).toBe('src/b.tsx:1')
    expect(await list('*.tsx, *.js')).toBe('src/b.tsx:1\nsrc/c.js:1')
    expect(await list('*.md *.js')).toBe('docs/readme.md:1\nsrc/c.js:1')
    expect(await list('!x')).toBe('docs/readme.md:1\nsrc/b.tsx:1\nsrc/c.js:1')
    expect(await list('*.js !x')).toBe('src/c.js:1')
    expect(await list('src/**/*.tsx')).toBe('src/b.tsx:1')
    // A name glob does not reopen the ignored directory.
    expect(await list('*.ts')).toBeUndefined()
    expect((await grep({ pattern: 'needle', glob: '*.ts', type: 'ts', output_mode: 'count', '-i': true })).content).toBe(
      'Found 2 matching lines in 1 file\n\nsrc/a.ts:2',
    )
    expect((await grep({ pattern: 'needle', glob: '*.ts *.tsx', type: 'ts', output_mode: 'count' })).content).toBe(
      'Found 1 matching line in 1 file\n\nsrc/b.tsx:1',
    )
  })

  it('matches across lines with multiline', async () => {
    expect((await grep({ pattern: 'start.middle', output_mode: 'count' })).content).toBe('No matches found')
    expect((await grep({ pattern: 'start.middle', output_mode: 'count', multiline: true })).content).toBe(
      'Found 1 matching line in 1 file\n\nmulti.txt:1',
    )
  })

  it('pages by offset and head_limit, saying N of M, the offset that continues, and where the whole result is', async () => {
    const first = await grep({ pattern: 'needle', head_limit: 2 })
    const locator = /stored at: (\S+)\. Use Read/.exec(first.content)![1]!
    expect(first.content).toBe(
      `Found 4 files, newest modified first\n\nx\ndocs/readme.md\n\n(Showing files 1-2 of 4; to see more, call again with offset: 2. Complete result stored at: ${locator}. Use Read with offset/limit, or Grep this path to search within it.)`,
    )
    expect(readSpill(locator)).toBe('Found 4 files, newest modified first\n\nx\ndocs/readme.md\nsrc/c.js\nsrc/b.tsx\n')
    expect((await grep({ pattern: 'needle', head_limit: 2, offset: 2 })).content).toBe(
      'Found 4 files, newest modified first\n\nsrc/c.js\nsrc/b.tsx\n\n(Showing files 3-4 of 4: the end of the result.)',
    )
    expect((await grep({ pattern: 'needle', offset: 4 })).content).toBe(
      'Found 4 files, newest modified first\n\n(No files at offset 4: the complete result has 4 files, so use an offset below 4.)',
    )
    expect((await grep({ pattern: 'needle', head_limit: 0, offset: Number.MAX_SAFE_INTEGER })).value).toMatchObject({ shown: 0, total: 4 })
    expect((await grep({ pattern: 'needle', head_limit: Number.MAX_SAFE_INTEGER })).value).toMatchObject({ shown: 4, truncated: false })
  })

  it.each([
    [{ head_limit: -1 }, 'head_limit must not be negative'],
    [{ offset: -3 }, 'offset must not be negative'],
    [{ offset: 1.5 }, 'offset must be a whole number'],
    [{ head_limit: 1e300 }, 'head_limit must be a whole number below 2^53'],
    [{ '-C': 2.5 }, '-C must be a whole number of lines'],
    [{ context: 100_001 }, 'context must be at most 100000'],
    [{ '-A': -1 }, '-A must not be negative'],
    [{ output_mode: 'lines' }, 'output_mode'],
    [{ pattern: '   ' }, 'pattern must not be blank; to search for spaces'],
    [{ glob: 'src/**/*.ts *.js' }, 'mixes a path-shaped glob with others'],
    [{ glob: '!' }, 'must exclude one glob after its "!"'],
    [{ glob: '!!x' }, 'must exclude one glob after its "!"'],
    [{ glob: ' , ' }, 'glob must not be blank'],
    [{ glob: '/abs/*.ts' }, 'glob is matched under the search path'],
  ])('refuses %j as an argument error', async (args, message) => {
    const result = await grep({ pattern: 'needle', ...args })
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toContain(message)
  })

  it('refuses a glob or type with a file path, and a path that does not exist', async () => {
    const onFile = await grep({ pattern: 'needle', path: 'x', glob: '*.ts', type: 'ts' })
    expect(onFile).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    expect(onFile.content).toContain('Grep glob "*.ts" and type "ts" filters the files of a directory search, but path x is a file')
    expect((await grep({ pattern: 'needle', path: 'x', type: 'ts' })).content).toContain('Grep type "ts" filters')
    expect((await grep({ pattern: 'needle', path: 'missing' })).content).toContain('grep cannot search missing: no such file or directory')
  })

  it('reports an invalid regex as an error, never as no matches', async () => {
    for (const output_mode of ['content', 'count', 'files_with_matches']) {
      expect(await grep({ pattern: 'a(', output_mode })).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
    }
    expect(await grep({ pattern: '\\x00', output_mode: 'count' })).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
  })

  it('searches a file named directly in each mode, its path relative to the working directory', async () => {
    expect((await grep({ pattern: 'needle', path: 'src/c.js' })).content).toBe('Found 1 file, newest modified first\n\nsrc/c.js')
    expect((await grep({ pattern: 'needle', path: 'src/c.js', output_mode: 'count' })).content).toBe(
      'Found 1 matching line in 1 file\n\nsrc/c.js:1',
    )
    expect((await grep({ pattern: 'zzz', path: 'src/c.js', output_mode: 'content' })).content).toBe('No matches found')
    expect((await grep({ pattern: 'zzz' })).content).toBe('No files found')
  })
})

describe('Grep with hostile names and contents', () => {
  const names = scratchDir('cc-names')
  beforeAll(() => {
    writeTree(names, { 'new\nline.txt': 'needle\n', 'plain.txt': 'needle\n', 'bad\u001b.txt': 'needle \u001b[31m\n' })
    writeFileSync(
      join(names, 'big\nbin.dat'),
      Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(200_000, 0x78), Buffer.from('\n\0needle\n')]),
    )
    writeFileSync(join(names, 'lossy\xff.txt'.replace('\xff', '')), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xff, 0x0a]))
  })

  it('keeps a binary notice for a name with a newline apart from the records, in content mode', async () => {
    const result = await grep({ pattern: 'needle', output_mode: 'content' }, names)
    expect(result.content).toContain('"big\\nbin.dat"\nLine 1: needle\n\n"new\\nline.txt"\nLine 1: needle')
    expect(result.content).toContain('(rg stopped at binary content in "big\\nbin.dat", so matches after it are missing.)')
    expect(result.content).toContain(
      '(1 line contains control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)',
    )
    expect(result.content).toContain('(1 line or path contains U+FFFD')
  })

  it('names a file searched by name whose match is binary', async () => {
    const result = await grep({ pattern: 'needle', output_mode: 'content', path: 'big\nbin.dat' }, names)
    expect(result.content).toContain('(Binary file matched, lines not shown:')
    const bin = scratchDir('cc-bin')
    writeFileSync(join(bin, 'b.dat'), Buffer.from('needle\0\n'))
    expect((await grep({ pattern: 'needle', output_mode: 'content', path: 'b.dat' }, bin)).content).toBe(
      'No matching lines to show\n\n(Binary file matched, lines not shown: b.dat.)',
    )
  })

  it('shows names with control characters quoted in every mode', async () => {
    expect((await grep({ pattern: 'needle', output_mode: 'count' }, names)).content).toContain('"new\\nline.txt":1')
    expect((await grep({ pattern: 'needle' }, names)).content).toContain('"new\\nline.txt"')
  })
})

describe("Grep tells a U+FFFD of a file's own from bytes that are not valid UTF-8, in every mode", () => {
  const lossy = scratchDir('cc-fffd')
  beforeAll(() => {
    writeTree(lossy, {
      'lit\ufffd.txt': 'needle \ufffd\n',
      'dir\ufffd/inner.txt': 'needle \ufffd\n',
      'long.txt': `\ufffd${'x'.repeat(3000)}needle \ufffd ${'y'.repeat(3000)}\n`,
      // A U+FFFD and an invalid byte in one line.
      'mixed.txt': Buffer.concat([Buffer.from('needle \ufffd '), Buffer.from([0xff]), Buffer.from('\n')]),
    })
    writeFileSync(Buffer.concat([Buffer.from(join(lossy, 'bad')), Buffer.from([0xff]), Buffer.from('.txt')]), 'needle \ufffd\n')
  })

  it('counts only the name with a replaced byte in files_with_matches and count modes', async () => {
    const files = await grep({ pattern: 'needle' }, lossy)
    expect(files.content).toMatch(/^Found 5 files, newest modified first\n/)
    expect(files.content).toContain('\n\n(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)')
    const counts = await grep({ pattern: 'needle', output_mode: 'count' }, lossy)
    expect(counts.content).toBe(
      [
        'Found 5 matching lines in 5 files',
        'bad\ufffd.txt:1\ndir\ufffd/inner.txt:1\nlit\ufffd.txt:1\nlong.txt:1\nmixed.txt:1',
        '(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
      ].join('\n\n'),
    )
  })

  it('counts the replaced name and the line with a replaced byte in content mode, a window of a U+FFFD not', async () => {
    const result = await grep({ pattern: 'needle', output_mode: 'content' }, lossy)
    expect(result.content).toBe(
      [
        'Found 5 matching lines in 5 files',
        [
          'bad\ufffd.txt\nLine 1: needle \ufffd',
          'dir\ufffd/inner.txt\nLine 1: needle \ufffd',
          'lit\ufffd.txt\nLine 1: needle \ufffd',
          `long.txt\nLine 1 (cut; columns 2504-4503): ${'x'.repeat(500)}needle \ufffd ${'y'.repeat(1489)}`,
          'mixed.txt\nLine 1: needle \ufffd \ufffd',
        ].join('\n\n'),
        '(2 lines or paths contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
      ].join('\n\n'),
    )
  })

  it('counts nothing for a directory whose name holds U+FFFD, searched from inside or by path', async () => {
    for (const output_mode of ['files_with_matches', 'count', 'content']) {
      for (const [args, cwd] of [
        [{ path: 'dir\ufffd' }, lossy],
        [{}, join(lossy, 'dir\ufffd')],
      ] as const) {
        const result = await grep({ pattern: 'needle', output_mode, ...args }, cwd)
        expect(result.content, `${output_mode} ${JSON.stringify(args)}`).toMatch(/^Found 1 /)
        expect(result.content).not.toContain('U+FFFD')
      }
    }
  })
})
