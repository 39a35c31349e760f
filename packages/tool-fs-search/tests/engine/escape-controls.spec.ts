import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { escapeLineControls, isEscapedAt, quoteName } from '../../src/engine/escape-controls.js'
import { callClaude, loadClaudeHarness } from '../claude-code/real.js'
import { rgLines, statRecords } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, FORGE_TREE, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

describe('the characters a page escapes', () => {
  it("are the C1 controls, format characters and line and paragraph separators of this Node's Unicode, found alike in text and bytes", () => {
    const category = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u
    const wanted: number[] = []
    const escaped: number[] = []
    const found: number[] = []
    const bytes = Buffer.alloc(4)
    for (let code = 0x80; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue
      const char = String.fromCodePoint(code)
      if (category.test(char)) wanted.push(code)
      if (escapeLineControls(char) !== char) escaped.push(code)
      bytes.write(char)
      if (isEscapedAt(bytes, 0)) found.push(code)
      // A continuation byte starts no character.
      if (isEscapedAt(bytes, 1)) throw new Error(`U+${code.toString(16)} found from its second byte`)
    }
    expect(escaped).toEqual(wanted)
    expect(found).toEqual(wanted)
  })

  it('quotes a name holding a bidi control or an invisible character, as JSON that reads back to it', () => {
    expect(quoteName('rtl\u202etxt.exe')).toBe('"rtl\\u202etxt.exe"')
    expect(quoteName('z\u200bw\u00ad\ufeff\u2028')).toBe('"z\\u200bw\\u00ad\\ufeff\\u2028"')
    expect(quoteName('tag\u{e0041}')).toBe('"tag\\udb40\\udc41"')
    for (const plain of ['em\u2014dash', 'nb\u00a0sp', 'caf\u00e9', '\u{1f600}', '\u{110be}']) expect(quoteName(plain)).toBe(plain)
    const pieces = ['a', '"', '\\', '\n', '\u001b', '\u0085', '\u202e', '\u2066', '\u200d', '\u{e007f}', '\u2014', '\ud800', '\u{1f600}']
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
        const name = parts.join('')
        const shown = quoteName(name)
        expect(/[\p{Cc}\p{Cf}]/u.test(shown)).toBe(false)
        if (shown !== name) expect(JSON.parse(shown)).toBe(name)
      }),
    )
  })

  it('escapes bidi controls and invisible characters in a line, and keeps tabs and visible characters', () => {
    expect(escapeLineControls('a\u202eb\u2066c\u200bd\u00ade\ufeff\u2028\t\u2014\u00a0\u{e0041}')).toBe(
      'a\\u202eb\\u2066c\\u200bd\\u00ade\\ufeff\\u2028\t\u2014\u00a0\\udb40\\udc41',
    )
  })
})

describe('control characters through the registry', () => {
  it('escapes control characters in lines and paths, keeps tabs, and says so in a footer', async () => {
    const { grep } = await fakeHarness(() => ({
      stdout: rgLines(['./e\u001b[2Jx', 1, 'a\u001b[31m\tb\rLine 2: forged\u0000\u007f\u009b'], ['./ok', 2, 'plain\tline']),
    }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      [
        'Found 2 matches',
        '"e\\u001b[2Jx"\nLine 1: a\\u001b[31m\tb\\rLine 2: forged\\u0000\\u007f\\u009b',
        'ok\nLine 2: plain\tline',
        '(1 matched line contains control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)',
      ].join('\n\n'),
    )
  })

  it('escapes every control character in a path, DEL and C1 included', async () => {
    const { glob } = await fakeHarness(() => ({ stdout: statRecords(['1', 'a\u001b[2J\rb\u007fc\u009bd']) }))
    expect((await glob({ pattern: '*' })).content).toBe('"a\\u001b[2J\\rb\\u007fc\\u009bd"')
  })
})

describe('output a repository cannot forge', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('forge')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, FORGE_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('control characters in lines and paths are escaped, and a footer says so', async () => {
    const grep = await callTool(harness, 'grep', { pattern: 'needle', include: '{esc,e*x*}.txt' }, tree)
    expect(grep.content).toBe(
      [
        'Found 2 matches',
        '"e\\u001bx\\u007f.txt"\nLine 1: needle',
        'esc.txt\nLine 1: needle \\u001b[31mred\\u001b[0m\\rLine 9: fake\\u0007',
        '(1 matched line contains control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)',
      ].join('\n\n'),
    )
    expect((await callTool(harness, 'glob', { pattern: 'e*x*.txt' }, tree)).content).toBe('"e\\u001bx\\u007f.txt"')
  })
})

describe('text that cannot deceive', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('invisible')
  let dsh: Harness
  let claude: Harness
  beforeAll(async () => {
    // A name that would show as "rtlexe.txt", a line whose isolates reorder it and whose zero-width and
    // tag characters hide text; beside them a name and a line of visible characters that share bytes.
    writeTree(tree, {
      'rtl\u202etxt.exe': 'needle \u2067evil\u2069 zero\u200bwidth\u{e0041}\n',
      'em\u2014dash.txt': 'needle \u2014 fine\n',
    })
    dsh = await loadRealHarness({ spillRoot: scratchDir('spill') })
    claude = await loadClaudeHarness(scratchDir('spill-cc'))
  })
  const name = '"rtl\\u202etxt.exe"'
  const line = 'needle \\u2067evil\\u2069 zero\\u200bwidth\\udb40\\udc41'
  const footer = '(1 matched line contains control or invisible characters, shown escaped as \\u001b, \\r, \\u202e and the like.)'

  it('shows them escaped in grep and glob, and in the card', async () => {
    const grep = await callTool(dsh, 'grep', { pattern: 'needle' }, tree)
    expect(grep.content).toBe(
      ['Found 2 matches', `${name}\nLine 1: ${line}`, 'em\u2014dash.txt\nLine 1: needle \u2014 fine', footer].join('\n\n'),
    )
    expect(grep).toMatchObject({ meta: { files: [{ path: name, matches: [{ line }] }, { path: 'em\u2014dash.txt' }] } })
    const glob = await callTool(dsh, 'glob', { pattern: '*' }, tree)
    expect(glob.content.split('\n').sort()).toEqual(['em\u2014dash.txt', name].sort())
  })

  it('shows them escaped in every mode of Grep, and in Glob', async () => {
    const files = await callClaude(claude, 'Grep', { pattern: 'evil' }, tree)
    expect(files.content).toBe(`Found 1 file, newest modified first\n\n${name}`)
    expect((await callClaude(claude, 'Grep', { pattern: 'evil', output_mode: 'count' }, tree)).content).toContain(`${name}:1`)
    const content = await callClaude(claude, 'Grep', { pattern: 'evil', output_mode: 'content' }, tree)
    expect(content.content).toContain(`${name}\nLine 1: ${line}`)
    expect(content.content).toContain('(1 line contains control or invisible characters')
    expect((await callClaude(claude, 'Glob', { pattern: 'rtl*' }, tree)).content).toContain(name)
  })
})
