import { describe, expect, it } from 'vitest'
import { buildClaudeGrepCommand, type ClaudeGrepCommandOptions } from '../../src/claude-code/command.js'

const base: ClaudeGrepCommandOptions = {
  rg: '/opt/rg',
  lister: { helper: 'find', find: '/usr/bin/find' },
  modeFlags: ['--count'],
  listsMtimes: false,
  pattern: '-e',
  target: 'src',
  plan: { args: [] },
  excludes: [],
  caseInsensitive: false,
  multiline: false,
  type: undefined,
}
const rgLine = (script: string) => script.split('\n').find((line) => line.startsWith('/opt/rg ') || line.includes('{ /opt/rg '))!

describe('buildClaudeGrepCommand', () => {
  it("runs rg with the mode's flags, the pattern after -e, and the prelude's target after it", () => {
    const script = buildClaudeGrepCommand(base)
    expect(script.split('\n').at(-1)).toBe(
      "/opt/rg --no-config --null --with-filename '--color=never' --count --hidden '--glob=!.git' '--glob=!.svn' '--glob=!.hg' '--glob=!.bzr' '--glob=!.jj' '--glob=!.sl' -e -e \"$@\" </dev/null",
    )
    expect(script).toMatch(/^if \[ -d \.\/src \]; then cd -- \.\/src/)
  })

  it('adds -i, multiline and the type as single words', () => {
    const line = rgLine(buildClaudeGrepCommand({ ...base, caseInsensitive: true, multiline: true, type: '--pre' }))
    expect(line).toContain(" --count --ignore-case --multiline --multiline-dotall --hidden '--type=--pre' ")
  })

  it('sends a file list through the mtime helper', () => {
    const script = buildClaudeGrepCommand({ ...base, modeFlags: ['--files-with-matches'], listsMtimes: true })
    expect(script).toContain('/usr/bin/find -files0-from -')
    expect(rgLine(script)).toContain('--files-with-matches')
    expect(buildClaudeGrepCommand(base)).not.toContain('/usr/bin/find')
  })

  it('exits with its own status for a type with a file target, since rg would ignore the type', () => {
    expect(buildClaudeGrepCommand({ ...base, type: 'ts' })).toContain('elif [ -e ./src ]; then exit 6')
    expect(buildClaudeGrepCommand(base)).toContain("elif [ -e ./src ]; then printf 'F\\0'")
  })
})
