import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cleanUntrustedText, escapeHiddenCharacters } from '@dsh/core'

/** Whether `text` holds anything a reader could not see, or would see other than it is. */
const hides = (text: string, prose: boolean) =>
  (prose ? /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u : /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u).test(text)

describe('cleanUntrustedText', () => {
  it('removes escape sequences: CSI colours and moves, OSC titles and links to BEL or ST, two-character ones', () => {
    expect(cleanUntrustedText('\u001b[1;31mred\u001b[0m \u001b[2K\u001b[1A\u009b31mup')).toBe('red up')
    expect(cleanUntrustedText('\u001b]0;owned\u0007\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u009c here')).toBe('click here')
    expect(cleanUntrustedText('\u001bPq#0;2;0;0;0\u001b\\\u001b_apc\u0007\u009dosc\u0007done')).toBe('done')
    expect(cleanUntrustedText('\u001bcreset \u001b(Bcharset \u001b7saved')).toBe('reset charset saved')
  })

  it('shows what it cannot remove as JSON escapes: a lone ESC, other controls, bidi controls and invisible format characters', () => {
    expect(cleanUntrustedText('a\u001b')).toBe('a\\u001b')
    expect(cleanUntrustedText('bell\u0007 back\bspace\u007f del\u0085 nel\r cr')).toBe(
      'bell\\u0007 back\\bspace\\u007f del\\u0085 nel\\r cr',
    )
    expect(cleanUntrustedText('safe\u202eexe.txt \u2066iso\u2069 \u200emark\u200f \u061c')).toBe(
      'safe\\u202eexe.txt \\u2066iso\\u2069 \\u200emark\\u200f \\u061c',
    )
    expect(cleanUntrustedText('zero\u200bwidth\u200c\u200d \u2060\u2061\u2064 \ufeffbom \u00adshy \u2028line\u2029')).toBe(
      'zero\\u200bwidth\\u200c\\u200d \\u2060\\u2061\\u2064 \\ufeffbom \\u00adshy \\u2028line\\u2029',
    )
  })

  it('shows tag characters, which spell text a model reads and a person does not see, and a lone surrogate', () => {
    const hidden = [...'Ignore'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')
    expect(cleanUntrustedText(`Add a note.${hidden}`)).toBe(
      'Add a note.\\udb40\\udc49\\udb40\\udc67\\udb40\\udc6e\\udb40\\udc6f\\udb40\\udc72\\udb40\\udc65',
    )
    expect(cleanUntrustedText('half \ud800 pair')).toBe('half \\ud800 pair')
  })

  it('keeps tabs, line feeds, CRLF as a line feed, and every visible character, emoji and accents included', () => {
    const prose = 'Search the docs.\n\tQuery:\t"a|b" → résumé, 日本語, 😀, \\u202e as text'
    expect(cleanUntrustedText(prose)).toBe(prose)
    expect(cleanUntrustedText('one\r\ntwo')).toBe('one\ntwo')
  })

  it('leaves nothing hidden in any text, and changes nothing on a second pass (fast-check)', () => {
    const parts = fc.constantFrom(
      '\u001b',
      '[',
      ']',
      '\\',
      '\u0007',
      '\u009c',
      '\u009b',
      '\r',
      '\n',
      '\t',
      '\u202e',
      '\u200b',
      'a',
      ';',
      '1',
      'm',
      '\ud800',
      '\u{e0041}',
    )
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(parts, { maxLength: 30 }).map((a) => a.join('')),
    )
    fc.assert(
      fc.property(text, (raw) => {
        const clean = cleanUntrustedText(raw)
        expect(hides(clean, true)).toBe(false)
        expect(cleanUntrustedText(clean)).toBe(clean)
      }),
    )
  })
})

describe('escapeHiddenCharacters', () => {
  it('escapes every hidden character, line feeds, tabs and ESC included, and removes nothing', () => {
    expect(escapeHiddenCharacters('add\u202enote\n\t\u001b[31m\u{e0041}')).toBe('add\\u202enote\\n\\t\\u001b[31m\\udb40\\udc41')
    expect(escapeHiddenCharacters('add_note')).toBe('add_note')
  })

  it('leaves nothing hidden, keeping a JSON string literal valid and its meaning (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (raw) => {
        expect(hides(escapeHiddenCharacters(raw), false)).toBe(false)
        const quoted = escapeHiddenCharacters(JSON.stringify(raw))
        expect(JSON.parse(quoted)).toBe(raw)
      }),
    )
  })
})
