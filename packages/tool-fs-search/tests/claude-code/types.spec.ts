// rg's type names, and the close ones an unknown type is answered with.
import { describe, expect, it } from 'vitest'
import { closeTypeNames, typeNames } from '../../src/claude-code/types.js'

describe('rg types', () => {
  it('reads the names of `rg --type-list`', () => {
    expect(typeNames('ada: *.adb, *.ads\nts: *.ts\n\n')).toEqual(['ada', 'ts'])
  })

  it("names up to five close names, nearest first, ties in the list's order", () => {
    const names = ['ts', 'js', 'tsx', 'rust', 'c', 'cs', 'cpp', 'py', 'ruby']
    expect(closeTypeNames('TSS', names)).toEqual(['ts', 'tsx'])
    expect(closeTypeNames('pyy', names)).toEqual(['py'])
    expect(closeTypeNames('tsy', ['tsz', 'tsx'])).toEqual(['tsz', 'tsx'])
    expect(closeTypeNames('rustc', names)).toEqual(['rust'])
    expect(closeTypeNames('--pre', names)).toEqual([])
    expect(closeTypeNames('rustt', names)).toEqual(['rust'])
  })
})
