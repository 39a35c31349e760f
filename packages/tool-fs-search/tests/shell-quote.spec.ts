import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { quoteShellArg, shellCommand } from '../src/shell-quote.js'

/** What bash makes of a command line's words: printf prints each argument NUL-terminated. */
function wordsSeenByBash(argv: readonly string[]): string[] {
  const run = spawnSync('bash', ['-c', `printf '%s\\0' ${shellCommand(argv)}`], { encoding: 'utf8' })
  expect(run.status).toBe(0)
  return run.stdout.split('\0').slice(0, -1)
}

const HOSTILE = [
  '$(touch canary)',
  '`touch canary`',
  "'; touch canary; '",
  '"$(touch canary)"',
  '-e',
  '--pre=touch',
  '-rf /',
  'a b\tc',
  'line\nbreak',
  "it's",
  '\\',
  '*.{ts,tsx}',
  '[a-z]?*',
  '~root',
  '!event',
  'a=b',
  '%1',
  '$HOME ${PATH} $1 $@',
  '\u00e9\u{1f600}',
  '',
  ';|&<>(){}#',
]

describe('quoteShellArg', () => {
  it('leaves plain words readable', () => {
    expect(quoteShellArg('--max-columns-preview')).toBe('--max-columns-preview')
    expect(quoteShellArg('/usr/bin/rg')).toBe('/usr/bin/rg')
  })

  it.each([['a=b', "'a=b'"], ["it's", "'it'\\''s'"], ['', "''"], ['~', "'~'"], ['$(x)', "'$(x)'"]])(
    'single-quotes %j',
    (value, quoted) => {
      expect(quoteShellArg(value)).toBe(quoted)
    },
  )

  it('refuses a NUL, which no argv can carry', () => {
    expect(() => quoteShellArg('a\0b')).toThrow('a shell argument cannot contain a NUL byte')
  })
})

describe('shellCommand through a real bash -c', () => {
  it.each(HOSTILE)('keeps %j one literal word', (value) => {
    expect(wordsSeenByBash(['x', value, 'y'])).toEqual(['x', value, 'y'])
  })

  it('round-trips any NUL-free string', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }).map((s) => s.toWellFormed().replaceAll('\0', '')), { maxLength: 4 }), (values) => {
        expect(wordsSeenByBash(['first', ...values])).toEqual(['first', ...values])
      }),
      { numRuns: 100 },
    )
  })
})
