import { describe, expect, it } from 'vitest'
import { globListProblem, planGlobList, splitGlobList } from '../../src/claude-code/globs.js'

describe('splitGlobList', () => {
  it.each<[string, string[]]>([
    ['*.ts', ['*.ts']],
    ['*.ts *.tsx', ['*.ts', '*.tsx']],
    ['*.ts,*.js', ['*.ts', '*.js']],
    ['*.{ts,tsx}, !*.min.js', ['*.{ts,tsx}', '!*.min.js']],
    ['  a\tb  ', ['a', 'b']],
    ['}a,b', ['}a', 'b']],
  ])('splits %j on whitespace and commas outside braces', (value, globs) => {
    expect(splitGlobList(value)).toEqual(globs)
  })
})

describe('globListProblem', () => {
  it.each<[string, RegExp | undefined]>([
    ['*.ts', undefined],
    ['*.ts *.js !*.min.js', undefined],
    ['src/**/*.ts', undefined],
    [' , ', /glob must not be blank/],
    ['! *.ts', /must exclude one glob after its "!"/],
    ['!!x', /must exclude one glob after its "!"/],
    ['src/*.ts *.js', /mixes a path-shaped glob/],
  ])('%j: %s', (value, problem) => {
    const found = globListProblem(value)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toMatch(problem)
  })
})

describe('planGlobList', () => {
  it('plans nothing without a glob', () => {
    expect(planGlobList(undefined, false)).toEqual({ args: [] })
  })

  it('plans a list of names as one file type, exclusions after it', () => {
    expect(planGlobList('**/*.ts *.js !*.min.js', false)).toEqual({
      args: ['--type-add=dshinclude:*.ts', '--type-add=dshinclude:*.js', '--type=dshinclude', '--glob=!*.min.js'],
    })
  })

  it('plans names as --globs when the call also gives a type, so two types cannot widen the search', () => {
    expect(planGlobList('*.ts *.js', true)).toEqual({ args: ['--glob=*.ts', '--glob=*.js'] })
    expect(planGlobList('*.ts', true)).toMatchObject({ args: ['--glob=*.ts'] })
  })

  it('plans only exclusions when the list holds no positive glob', () => {
    expect(planGlobList('!*.min.js', false)).toEqual({ args: ['--glob=!*.min.js'] })
  })
})
