import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchResultView } from '@dsh/core'
import { colorEnabled, paintPage, PLAIN, terminalPaint, type ColorWhen } from '../src/color.js'
import { dsh, tempDir, writeTree } from './io.js'

const tty = (env: Record<string, string | undefined> = {}) => ({ isTTY: true, env })

describe('colorEnabled', () => {
  it.each<[string, ColorWhen, Parameters<typeof colorEnabled>[1], boolean]>([
    ['auto on a terminal', 'auto', tty({ TERM: 'xterm-256color' }), true],
    ['auto into a pipe or a file', 'auto', { isTTY: false, env: {} }, false],
    ['auto with no terminal known (an embedding host)', 'auto', undefined, false],
    ['auto with NO_COLOR set', 'auto', tty({ NO_COLOR: '1' }), false],
    ['auto with NO_COLOR empty, which the convention ignores', 'auto', tty({ NO_COLOR: '' }), true],
    ['auto on a dumb terminal', 'auto', tty({ TERM: 'dumb' }), false],
    ['always into a pipe', 'always', { isTTY: false, env: {} }, true],
    ['always over NO_COLOR: the flag is the later word', 'always', tty({ NO_COLOR: '1' }), true],
    ['never on a terminal', 'never', tty(), false],
  ])('%s', (_what, when, terminal, enabled) => {
    expect(colorEnabled(when, terminal)).toBe(enabled)
  })
})

describe('terminalPaint', () => {
  it('colours as rg does: path magenta, line number green, each match bold red', () => {
    const paint = terminalPaint('ne+dle', false)
    expect(paint.path('a.txt')).toBe('\x1b[35ma.txt\x1b[0m')
    expect(paint.lineNumber('3')).toBe('\x1b[32m3\x1b[0m')
    expect(paint.line('a needle, a neeedle.')).toBe('a \x1b[1;31mneedle\x1b[0m, a \x1b[1;31mneeedle\x1b[0m.')
  })

  it('is case-blind with -i, and highlights nothing for an empty match or a pattern JavaScript cannot read', () => {
    expect(terminalPaint('needle', true).line('NEEDLE')).toBe('\x1b[1;31mNEEDLE\x1b[0m')
    expect(terminalPaint('x*', false).line('abc')).toBe('abc')
    expect(terminalPaint('(?P<name>a)', false).line('a')).toBe('a')
    expect(terminalPaint(undefined, false).line('a')).toBe('a')
    expect(terminalPaint('', false).line('a')).toBe('a')
  })

  it('reads a pattern without Unicode mode when only that parses', () => {
    expect(terminalPaint('a\\-b', false).line('xa-by')).toBe('x\x1b[1;31ma-b\x1b[0my')
  })
})

describe('paintPage', () => {
  const paint = terminalPaint('needle', false)
  const matches: SearchResultView = {
    card: 'search',
    shape: 'matches',
    files: [{ path: 'a.txt', matches: [{ lineNumber: 1, line: 'needle' }] }],
    truncated: false,
    total: 1,
    incomplete: false,
  }

  it("paints a grep page's paths and match rows, and nothing else", () => {
    const page = 'Found 1 match\n\na.txt\nLine 1: needle\n\n(Line 2: needle is a footer here)'
    expect(paintPage(page, matches, paint)).toBe(
      'Found 1 match\n\n\x1b[35ma.txt\x1b[0m\nLine \x1b[32m1\x1b[0m: \x1b[1;31mneedle\x1b[0m\n\n(Line 2: needle is a footer here)',
    )
    // A row shaped like a match outside a file group is left alone.
    expect(paintPage('Line 1: needle', matches, paint)).toBe('Line 1: needle')
  })

  it("paints a glob page's paths, and leaves the rows under them alone", () => {
    const paths: SearchResultView = { card: 'search', shape: 'paths', paths: ['a.txt'], truncated: false, total: 1, incomplete: false }
    expect(paintPage('a.txt\nLine 1: needle', paths, paint)).toBe('\x1b[35ma.txt\x1b[0m\nLine 1: needle')
  })

  it('prints a page without a search view as it is', () => {
    expect(paintPage('a.txt', null, paint)).toBe('a.txt')
    expect(paintPage('a.txt', { card: 'generic', kind: 'read', title: 'a' } as never, paint)).toBe('a.txt')
    expect(paintPage('a.txt', matches, PLAIN)).toBe('a.txt')
  })
})

describe('dsh --color', () => {
  const tree = tempDir('color')
  beforeAll(() => writeTree(tree, { 'a.txt': 'Needle one\nneedle two\n' }))
  afterAll(() => rmSync(tree, { recursive: true, force: true }))
  const path = '\x1b[35ma.txt\x1b[0m'
  const number = (n: number) => `\x1b[32m${n}\x1b[0m`
  const hit = (text: string) => `\x1b[1;31m${text}\x1b[0m`

  it('colours the page on a terminal, and not when the terminal says NO_COLOR', async () => {
    const terminal = { isTTY: true, env: { TERM: 'xterm' } }
    expect(await dsh(['grep', 'needle'], tree, { terminal })).toEqual({
      code: 0,
      stdout: `Found 1 match\n\n${path}\nLine ${number(2)}: ${hit('needle')} two\n`,
      stderr: '',
    })
    expect((await dsh(['grep', 'needle'], tree, { terminal: { isTTY: true, env: { NO_COLOR: '1' } } })).stdout).not.toContain('\x1b[')
    expect((await dsh(['grep', 'needle'], tree)).stdout).not.toContain('\x1b[')
  })

  it('colours lines with --color=always, and leaves read and json plain', async () => {
    expect((await dsh(['glob', '*.txt', '--format', 'lines', '--color=always'], tree)).stdout).toBe(`${path}\n`)
    expect((await dsh(['read', 'a.txt', '--color=always'], tree)).stdout).toBe('     1\tNeedle one\n     2\tneedle two\n')
    expect((await dsh(['grep', 'needle', '--format', 'json', '--color=always'], tree)).stdout).not.toContain('\x1b[')
  })

  it("prints the claude-code profile's Grep, which has no search view, as it is; its Glob is painted", async () => {
    const grep = await dsh(['Grep', 'needle', '-i', '--output-mode', 'content', '--profile', 'claude-code', '--color=always'], tree)
    expect(grep).toMatchObject({ code: 0, stderr: '' })
    expect(grep.stdout).toContain('Needle one')
    expect(grep.stdout).not.toContain('\x1b[')
    const glob = await dsh(['Glob', '*.txt', '--profile', 'claude-code', '--color=always'], tree)
    expect(glob.stdout).toBe(`${path}\n`)
  })
})
