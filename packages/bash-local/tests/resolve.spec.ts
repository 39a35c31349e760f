import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BashRequest } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const scratch = scratchDir('bash-local-resolve')
mkdirSync(join(scratch, 'sub'))
writeFileSync(join(scratch, 'file.txt'), 'x')
symlinkSync('loop-b', join(scratch, 'loop-a'))
symlinkSync('loop-a', join(scratch, 'loop-b'))

const bash = createLocalBash({
  cwd: scratch,
  defaultTimeoutMs: 1_000,
  maxTimeoutMs: 5_000,
  defaultStdoutMaxBytes: 100,
  maxStdoutMaxBytes: 1_000,
  defaultStderrMaxBytes: 10,
  maxStderrMaxBytes: 50,
})

describe('resolve', () => {
  it('fills every limit from the defaults and runs in the configured cwd', async () => {
    const spec = await bash.resolve({ command: 'true' })
    expect(spec).toMatchObject({
      command: 'true',
      workdir: scratch,
      timeoutMs: 1_000,
      stdoutMaxBytes: 100,
      stderrMaxBytes: 10,
      onStdoutOverflow: 'drain',
    })
    expect(spec).not.toHaveProperty('signal')
    expect(spec).not.toHaveProperty('stdoutSink')
    expect(Object.isFrozen(spec.env)).toBe(true)
  })

  it('hands the very same stdout sink through to the spec', async () => {
    const sink = (): void => undefined
    expect((await bash.resolve({ command: 'true', stdoutSink: sink })).stdoutSink).toBe(sink)
  })

  it('lets a request with a stdout sink ask for more stdout than the maximum, which bounds only what is kept', async () => {
    const sink = (): void => undefined
    const spec = await bash.resolve({ command: 'true', stdoutSink: sink, stdoutMaxBytes: Number.MAX_SAFE_INTEGER })
    expect(spec.stdoutMaxBytes).toBe(Number.MAX_SAFE_INTEGER)
    expect((await bash.resolve({ command: 'true', stdoutSink: sink })).stdoutMaxBytes).toBe(100)
  })

  it('caps requested limits at the configured maxima and keeps smaller ones', async () => {
    const capped = await bash.resolve({ command: 'true', timeoutMs: 60_000, stdoutMaxBytes: 20_000_000, stderrMaxBytes: 51 })
    expect(capped).toMatchObject({ timeoutMs: 5_000, stdoutMaxBytes: 1_000, stderrMaxBytes: 50 })
    const kept = await bash.resolve({ command: 'true', timeoutMs: 7, stdoutMaxBytes: 8, stderrMaxBytes: 9, onStdoutOverflow: 'kill' })
    expect(kept).toMatchObject({ timeoutMs: 7, stdoutMaxBytes: 8, stderrMaxBytes: 9, onStdoutOverflow: 'kill' })
  })

  it('resolves a relative workdir against the configured cwd and keeps an absolute one', async () => {
    expect((await bash.resolve({ command: 'true', workdir: 'sub' })).workdir).toBe(join(scratch, 'sub'))
    expect((await bash.resolve({ command: 'true', workdir: tmpdir() })).workdir).toBe(tmpdir())
  })

  it('falls back to the process cwd when no cwd is configured', async () => {
    expect((await createLocalBash().resolve({ command: 'true' })).workdir).toBe(process.cwd())
  })

  it.each([
    ['a missing directory', 'nope', 'BASH_WORKDIR_MISSING'],
    ['a path through a file', 'file.txt/below', 'BASH_WORKDIR_MISSING'],
    ['a file', 'file.txt', 'BASH_WORKDIR_NOT_DIRECTORY'],
    ['a symlink loop', 'loop-a', 'BASH_WORKDIR_INACCESSIBLE'],
  ])('rejects %s as workdir with %s', async (_label, workdir, code) => {
    await expect(bash.resolve({ command: 'true', workdir })).rejects.toMatchObject({
      name: 'BashError',
      code,
      message: expect.stringContaining(join(scratch, workdir)),
    })
  })

  it.each<[string, Partial<BashRequest>]>([
    ['a command with NUL', { command: 'echo a\0b' }],
    ['a command that is not a string', { command: 42 as unknown as string }],
    ['an empty workdir', { workdir: '' }],
    ['a workdir with NUL', { workdir: 'a\0b' }],
    ['a workdir that is not a string', { workdir: 7 as unknown as string }],
    ['a zero timeout', { timeoutMs: 0 }],
    ['a fractional stdout cap', { stdoutMaxBytes: 1.5 }],
    ['an infinite stderr cap', { stderrMaxBytes: Infinity }],
    ['a timeout given as a string', { timeoutMs: '5' as unknown as number }],
    ['an unknown overflow mode', { onStdoutOverflow: 'truncate' as 'kill' }],
    ['a stdout sink that is not a function', { stdoutSink: 'stdout.bin' as unknown as () => void }],
  ])('rejects %s with BASH_INVALID_REQUEST', async (_label, request) => {
    await expect(bash.resolve({ command: 'true', ...request })).rejects.toMatchObject({ code: 'BASH_INVALID_REQUEST' })
  })
})
