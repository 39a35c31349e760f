import { describe, expect, it } from 'vitest'
import { assertInsideRoot, ownerDirName, spillFileName } from '../src/names.js'

describe('ownerDirName', () => {
  it('keeps a clean owner as it is', () => {
    expect(ownerDirName('session-1.2_A')).toBe('session-1.2_A')
  })

  it('gives owners that sanitize alike distinct directories', () => {
    expect(ownerDirName('a/b')).toMatch(/^a_b-[0-9a-f]{8}$/)
    expect(ownerDirName('a/b')).not.toBe(ownerDirName('a_b'))
    expect(ownerDirName('a/b')).not.toBe(ownerDirName('a:b'))
  })

  it('falls back to "unknown" for an empty or non-string owner', () => {
    expect(ownerDirName('')).toMatch(/^unknown-[0-9a-f]{8}$/)
    expect(ownerDirName(undefined)).toBe(ownerDirName(''))
    expect(ownerDirName('..')).toMatch(/^unknown-/)
  })

  it('caps a long owner', () => {
    expect(ownerDirName('o'.repeat(300))).toMatch(/^o{64}-[0-9a-f]{8}$/)
  })
})

describe('spillFileName', () => {
  it('prefixes a fresh 12-hex id to the cleaned name', () => {
    expect(spillFileName('grep-results.txt')).toMatch(/^[0-9a-f]{12}-grep-results\.txt$/)
    expect(spillFileName('x')).not.toBe(spillFileName('x'))
  })

  it('replaces separators, control characters and leading dots', () => {
    expect(spillFileName('../a/b\n\0c.txt').slice(13)).toBe('_a_b_c.txt')
    expect(spillFileName('.hidden').slice(13)).toBe('hidden')
  })

  it('falls back to result.txt for an empty or non-string name', () => {
    expect(spillFileName('').slice(13)).toBe('result.txt')
    expect(spillFileName(null).slice(13)).toBe('result.txt')
  })

  it('keeps a short extension when it cuts a long name, and cuts plainly otherwise', () => {
    expect(spillFileName(`${'n'.repeat(200)}.txt`).slice(13)).toBe(`${'n'.repeat(96)}.txt`)
    expect(spillFileName(`n.${'e'.repeat(200)}`).slice(13)).toBe(`n.${'e'.repeat(98)}`)
    expect(spillFileName('n'.repeat(200)).slice(13)).toBe('n'.repeat(100))
  })
})

describe('assertInsideRoot', () => {
  it('accepts a path below the root', () => {
    expect(() => assertInsideRoot('/r', '/r/o/f')).not.toThrow()
  })

  it.each([['/r'], ['/r/../x'], ['/other/f']])('refuses %s with SPILL_PATH_ESCAPE', (path) => {
    expect(() => assertInsideRoot('/r', path)).toThrow(expect.objectContaining({ code: 'SPILL_PATH_ESCAPE' }))
  })
})
