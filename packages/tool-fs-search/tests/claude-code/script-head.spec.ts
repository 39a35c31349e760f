// The `D` or `F` the grep script prints first, however the output arrives.
import { describe, expect, it } from 'vitest'
import { ScriptHead } from '../../src/claude-code/script-head.js'

describe('ScriptHead', () => {
  it('reads a head split across chunks and passes on the rest', () => {
    const rest: string[] = []
    const head = new ScriptHead((chunk) => rest.push(Buffer.from(chunk).toString()))
    head.push(Buffer.from('F'))
    head.push(Buffer.from('\0ab'))
    head.push(Buffer.from('c'))
    expect(head.searched()).toBe('file')
    expect(rest).toEqual(['ab', 'c'])
  })

  it('fails for output without a head', () => {
    const head = new ScriptHead(() => undefined)
    head.push(Buffer.from('D'))
    expect(() => head.searched()).toThrow(/could not parse its script output near "D"/)
    head.push(Buffer.from('x'))
    expect(() => head.searched()).toThrow(/near "Dx"/)
  })

  it('says of a stopped run whether a head arrived, and still fails for output without one', () => {
    const head = new ScriptHead(() => undefined)
    expect(head.searchedSoFar()).toBeUndefined()
    head.push(Buffer.from('D'))
    expect(head.searchedSoFar()).toBeUndefined()
    head.push(Buffer.from('\0'))
    expect(head.searchedSoFar()).toBe('directory')
    const garbled = new ScriptHead(() => undefined)
    garbled.push(Buffer.from('XY'))
    expect(() => garbled.searchedSoFar()).toThrow(/near "XY"/)
  })
})
