import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { quoteShellArg, shellCommand } from '../../src/engine/shell-quote.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

/** What bash makes of a command line's words: printf prints each argument NUL-terminated. */
function wordsSeenByBash(argv: readonly string[]): string[] {
  const run = spawnSync('bash', ['-c', `printf '%s\\0' ${shellCommand(argv)}`], { encoding: 'utf8' })
  expect(run.status).toBe(0)
  return run.stdout.split('\0').slice(0, -1)
}

const HOSTILE = [
  '$(touch canary)',
  '`touch canary`',
  "'; touch canary; '",
  '"$(touch canary)"',
  '-e',
  '--pre=touch',
  '-rf /',
  'a b\tc',
  'line\nbreak',
  "it's",
  '\\',
  '*.{ts,tsx}',
  '[a-z]?*',
  '~root',
  '!event',
  'a=b',
  '%1',
  '$HOME ${PATH} $1 $@',
  '\u00e9\u{1f600}',
  '',
  ';|&<>(){}#',
]

describe('quoteShellArg', () => {
  it('leaves plain words readable', () => {
    expect(quoteShellArg('--max-columns-preview')).toBe('--max-columns-preview')
    expect(quoteShellArg('/usr/bin/rg')).toBe('/usr/bin/rg')
  })

  it.each([
    ['a=b', "'a=b'"],
    ["it's", "'it'\\''s'"],
    ['', "''"],
    ['~', "'~'"],
    ['$(x)', "'$(x)'"],
  ])('single-quotes %j', (value, quoted) => {
    expect(quoteShellArg(value)).toBe(quoted)
  })

  it('refuses a NUL, which no argv can carry', () => {
    expect(() => quoteShellArg('a\0b')).toThrow('a shell argument cannot contain a NUL byte')
  })
})

describe('shellCommand through a real bash -c', () => {
  it.each(HOSTILE)('keeps %j one literal word', (value) => {
    expect(wordsSeenByBash(['x', value, 'y'])).toEqual(['x', value, 'y'])
  })

  it('round-trips any NUL-free string', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary' }).map((s) => s.toWellFormed().replaceAll('\0', '')),
          { maxLength: 4 },
        ),
        (values) => {
          expect(wordsSeenByBash(['first', ...values])).toEqual(['first', ...values])
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('hostile input stays inert through the real executor (docs/design.md#no-value-becomes-a-flag)', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('hostile')
  const LITERALS = ['`touch CANARY`', "'; touch CANARY; '", '-e', '--pre=touch', '--files']
  const HOSTILE_DIRS = ['with space', 'it\'s "quoted"', '$(touch CANARY)', '-rf', '`touch CANARY`']
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, { 'literals.txt': `${LITERALS.join('\n')}\n`, 'plain.txt': 'needle\n', '-/dash.txt': 'needle\n' })
    for (const dir of HOSTILE_DIRS) writeTree(tree, { [`${dir}/inside.txt`]: 'needle\n' })
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })
  const noCanary = (): void => {
    expect(existsSync(join(tree, 'CANARY'))).toBe(false)
    expect(existsSync(join(process.cwd(), 'CANARY'))).toBe(false)
  }

  it.each(LITERALS.map((literal, index) => [literal, index + 1] as const))(
    'grep searches the pattern %j literally and runs nothing',
    async (pattern, line) => {
      const result = await callTool(harness, 'grep', { pattern }, tree)
      noCanary()
      expect(result.isError).toBe(false)
      expect(result.content).toBe(`Found 1 match\n\nliterals.txt\nLine ${line}: ${pattern}`)
    },
  )

  it.each(['$(touch CANARY)', '"$(touch CANARY)"'])('grep treats %j as a regex that matches nothing and runs nothing', async (pattern) => {
    const result = await callTool(harness, 'grep', { pattern }, tree)
    noCanary()
    expect(result).toMatchObject({ isError: false, content: 'No matches found' })
  })

  it.each(['a\nb', '\\'])('grep rejects the pattern %j as invalid and runs nothing', async (pattern) => {
    const result = await callTool(harness, 'grep', { pattern }, tree)
    noCanary()
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
  })

  it.each(HOSTILE_DIRS)('grep and glob take the path %j as one literal directory', async (dir) => {
    const grep = await callTool(harness, 'grep', { pattern: 'needle', path: dir }, tree)
    const glob = await callTool(harness, 'glob', { pattern: '*.txt', path: dir }, tree)
    noCanary()
    expect(grep).toMatchObject({ isError: false, content: `Found 1 match\n\n${dir}/inside.txt\nLine 1: needle` })
    expect(glob).toMatchObject({ isError: false, content: `${dir}/inside.txt` })
  })

  // A plain-name include searches the directory of that name when there is one (two of these exist).
  it.each([
    ['$(touch CANARY)', 'Found 1 match\n\n$(touch CANARY)/inside.txt\nLine 1: needle'],
    ['`touch CANARY`', 'Found 1 match\n\n`touch CANARY`/inside.txt\nLine 1: needle'],
    ["'; touch CANARY; '", 'No matches found'],
    ['--pre=touch', 'No matches found'],
    ['-e', 'No matches found'],
  ])('grep takes the include %j as one literal name and runs nothing', async (include, content) => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', include }, tree)
    noCanary()
    expect(result).toMatchObject({ isError: false, content })
  })

  it.each(['$(touch CANARY)', '`touch CANARY`', "'; touch CANARY; '", '--pre=touch', '-rf'])(
    'glob takes the pattern %j as one glob and runs nothing',
    async (pattern) => {
      const result = await callTool(harness, 'glob', { pattern }, tree)
      noCanary()
      // Each names a directory or nothing; glob lists files only.
      expect(result).toMatchObject({ isError: false, content: 'No files found' })
    },
  )

  it('grep searches a directory named "-" rather than stdin', async () => {
    const result = await callTool(harness, 'grep', { pattern: 'needle', path: '-' }, tree)
    expect(result).toMatchObject({ isError: false, content: 'Found 1 match\n\n-/dash.txt\nLine 1: needle' })
  })

  it('glob lists a directory named "-"', async () => {
    const result = await callTool(harness, 'glob', { pattern: '*.txt', path: '-' }, tree)
    expect(result).toMatchObject({ isError: false, content: '-/dash.txt' })
  })

  it('glob matches a directory name full of shell syntax literally', async () => {
    const result = await callTool(harness, 'glob', { pattern: '$(touch CANARY)/*.txt' }, tree)
    noCanary()
    expect(result).toMatchObject({ isError: false, content: '$(touch CANARY)/inside.txt' })
  })
})
