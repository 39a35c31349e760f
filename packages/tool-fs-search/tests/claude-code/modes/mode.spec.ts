import { describe, expect, it } from 'vitest'
import { baseOf, lossyNote, plural } from '../../../src/claude-code/modes/mode.js'
import { ScriptHead } from '../../../src/claude-code/script-head.js'

const STOPPED = { afterMs: 100, narrow: 'pattern' }
const headOf = (bytes: string) => {
  const head = new ScriptHead(() => {})
  head.push(Buffer.from(bytes))
  return head
}

describe('plural', () => {
  it('counts one and many', () => {
    expect([plural(0, 'file', 'files'), plural(1, 'file', 'files'), plural(2, 'file', 'files')]).toEqual(['0 files', '1 file', '2 files'])
  })
})

describe('lossyNote', () => {
  it('says nothing when no bytes were replaced, and agrees in number otherwise', () => {
    expect(lossyNote(0, 'path', 'paths')).toEqual([])
    expect(lossyNote(1, 'path', 'paths')).toEqual(['(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)'])
    expect(lossyNote(3, 'path', 'paths')).toEqual(['(3 paths contain U+FFFD: bytes that are not valid UTF-8, shown replaced.)'])
  })
})

describe('baseOf', () => {
  it('is the directory searched from inside, or the workdir for a file', () => {
    expect(baseOf(headOf('D\0'), '/w', 'src', undefined)).toBe('/w/src')
    expect(baseOf(headOf('F\0'), '/w', 'src/a.ts', undefined)).toBe('/w')
  })

  it('is the workdir for a run stopped before its head, and refuses a missing head of a finished run', () => {
    expect(baseOf(headOf(''), '/w', 'src', STOPPED)).toBe('/w')
    expect(baseOf(headOf('D\0'), '/w', 'src', STOPPED)).toBe('/w/src')
    expect(() => baseOf(headOf(''), '/w', 'src', undefined)).toThrow(expect.objectContaining({ code: 'SEARCH_FAILED' }))
  })
})
