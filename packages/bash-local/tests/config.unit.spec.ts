import { describe, expect, it } from 'vitest'
import { Config, createLocalBash, type LocalBashOptions } from '@dsh/bash-local'

describe('Config', () => {
  it('documents a default for every field', () => {
    for (const [field, schema] of Object.entries(Config.shape)) {
      expect(schema.description, field).toMatch(/@default /)
    }
  })

  it('fills the documented defaults', () => {
    expect(Config.parse({})).toEqual({
      shellPath: '/bin/bash',
      defaultTimeoutMs: 120_000,
      maxTimeoutMs: 600_000,
      defaultStdoutMaxBytes: 1_048_576,
      maxStdoutMaxBytes: 67_108_864,
      defaultStderrMaxBytes: 65_536,
      maxStderrMaxBytes: 1_048_576,
      killGraceMs: 2_000,
      env: [],
      envSet: {},
    })
  })

  it("admits the grep tool's 20,000,000-byte raw cap under the default stdout ceiling", () => {
    expect(Config.parse({}).maxStdoutMaxBytes).toBeGreaterThanOrEqual(20_000_000)
  })
})

describe('createLocalBash options', () => {
  it.each<[string, LocalBashOptions, RegExp]>([
    ['a default above its maximum', { defaultTimeoutMs: 10, maxTimeoutMs: 5 }, /defaultTimeoutMs: must not exceed maxTimeoutMs \(5\)/],
    ['a stdout default above its maximum', { defaultStdoutMaxBytes: 10, maxStdoutMaxBytes: 5 }, /defaultStdoutMaxBytes/],
    ['a timeout setTimeout cannot hold', { maxTimeoutMs: 2 ** 31 }, /maxTimeoutMs/],
    ['an environment name with a space', { env: ['MY VAR'] }, /env\.0/],
    ['a fixed value with NUL', { envSet: { A: 'a\0b' } }, /envSet\.A/],
    ['an unknown field', { shell: 'zsh' } as LocalBashOptions, /shell/],
  ])('rejects %s with BASH_INVALID_CONFIG naming the field', (_label, options, message) => {
    expect(() => createLocalBash(options)).toThrow(
      expect.objectContaining({ code: 'BASH_INVALID_CONFIG', message: expect.stringMatching(message) }),
    )
  })

  it('rejects options that are not an object, naming the root', () => {
    expect(() => createLocalBash(42 as LocalBashOptions)).toThrow(/bash-local: invalid options: \(root\)/)
  })
})
