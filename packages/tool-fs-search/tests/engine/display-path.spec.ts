import path, { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { displayFrom, displayPath, isPlainName, nameDisplay } from '../../src/engine/display-path.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

describe('isPlainName', () => {
  it('holds only for names that show as the prefix joined to them, their ./ dropped', () => {
    const pieces = [
      'a',
      '/',
      '.',
      '..',
      './',
      '\t',
      '\n',
      '\u001b',
      '\u0085',
      '\u007f',
      'é',
      '\ufffd',
      '😀',
      '\u202e',
      '\u200b',
      '\u{e0041}',
      '\u2014',
      '\u00a0',
    ]
    const display = nameDisplay('/w', '/w/sub')
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
        const name = parts.join('')
        const bytes = Buffer.from(`x${name}y`)
        if (isPlainName(bytes, 1, bytes.length - 1)) expect(display.show(name)).toBe(`sub/${name.startsWith('./') ? name.slice(2) : name}`)
      }),
      { numRuns: 3000 },
    )
  })

  it.each([
    ['a plain name', 'a/b.ts', true],
    ['a name after ./', './a', true],
    ['dots that are not a segment', 'a..b/..c', true],
    ['a leading slash', '/abs', false],
    ['a parent segment', 'a/../b', false],
    ['a name that is a parent', '..', false],
    ['a trailing parent', 'a/..', false],
    ['a control character', 'e\u001bsc', false],
    ['a C1 control', 'nel\u0085', false],
    ['DEL', 'del\u007f', false],
    ['a bidi override', 'rtl\u202etxt.exe', false],
    ['a zero-width space', 'z\u200bw', false],
    ['a tag character', 'tag\u{e0041}', false],
    ['an em dash, whose first bytes a zero-width space shares', 'em\u2014dash', true],
    ['a no-break space, whose lead byte C1 controls share', 'nb\u00a0sp', true],
  ])('says %s is %s', (_label, name, plain) => {
    const bytes = Buffer.from(name)
    expect(isPlainName(bytes, 0, bytes.length)).toBe(plain)
  })
})

describe('displayPath and displayFrom', () => {
  it('displays paths relative inside the workdir and absolute outside it', () => {
    expect(displayPath('/w', '/w')).toBe('.')
    expect(displayPath('/w', './a/b')).toBe('a/b')
    expect(displayPath('/w', '/x/y')).toBe('/x/y')
    expect(displayPath('/w', '../w2/y')).toBe('/w2/y')
    expect(displayPath('/w', '..data/y')).toBe('..data/y')
    expect(displayPath('/w', 'tab\there')).toBe('"tab\\there"')
  })

  it('displays names under a directory exactly as displayPath would', () => {
    const cases: [string, string, string][] = [
      ['/w', '/w', 'a/b'],
      ['/w', '/w', './a'],
      ['/w', '/w/sub', 'x'],
      ['/w', '/', 'etc/x'],
      ['/w', '/other', './y'],
      ['/w', '/w/sub', '../up'],
      ['/w', '/w/sub', 'a/../../b'],
      ['/w', '/w/sub', '..'],
      ['/w', '/w/sub', 'a/..'],
      ['/w', '/w/sub', '/abs/z'],
      ['/w', '/w/new\nline', 'f'],
      ['/w', '/w', 'tab\tname'],
    ]
    for (const [workdir, dir, name] of cases) expect(displayFrom(workdir, dir)(name)).toBe(displayPath(workdir, path.resolve(dir, name)))
  })
})

describe('per-session working directory', () => {
  const scratchDir = scratchDirs()
  const a = scratchDir('cwd-a')
  const b = scratchDir('cwd-b')
  let harness: Harness
  beforeAll(async () => {
    writeTree(a, { 'a1.txt': 'needle\n', 'sub/a2.txt': 'needle\n' })
    writeTree(b, { 'b1.txt': 'needle\n' })
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('shows results relative to each session cwd', async () => {
    const [inA, inB] = await Promise.all([
      callTool(harness, 'grep', { pattern: 'needle' }, a),
      callTool(harness, 'grep', { pattern: 'needle' }, b),
    ])
    expect(inA.content).toBe('Found 2 matches\n\na1.txt\nLine 1: needle\n\nsub/a2.txt\nLine 1: needle')
    expect(inB.content).toBe('Found 1 match\n\nb1.txt\nLine 1: needle')
    expect((await callTool(harness, 'glob', { pattern: '*.txt' }, b)).content).toBe('b1.txt')
  })

  it('shows an absolute path inside the cwd relative to it', async () => {
    expect((await callTool(harness, 'grep', { pattern: 'needle', path: join(a, 'sub') }, a)).content).toBe(
      'Found 1 match\n\nsub/a2.txt\nLine 1: needle',
    )
    expect((await callTool(harness, 'glob', { pattern: '*.txt', path: join(a, 'sub') }, a)).content).toBe('sub/a2.txt')
  })

  it('shows a path outside the cwd as absolute', async () => {
    expect((await callTool(harness, 'grep', { pattern: 'needle', path: b }, a)).content).toBe(
      `Found 1 match\n\n${b}/b1.txt\nLine 1: needle`,
    )
    expect((await callTool(harness, 'glob', { pattern: '*.txt', path: '../' + b.split('/').at(-1) }, a)).content).toBe(`${b}/b1.txt`)
  })
})
