import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { firstInvalidArgument } from '../src/raw-argv.js'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const bin = join(fileURLToPath(new URL('../../..', import.meta.url)), 'node_modules', '.bin', 'dsh')

const cmdline =
  (...words: (string | Buffer)[]) =>
  () =>
    Buffer.concat(words.flatMap((w) => [Buffer.from(w), Buffer.from([0])]))

describe('firstInvalidArgument', () => {
  it('finds the argument whose bytes are not UTF-8, and passes a literal U+FFFD', () => {
    expect(firstInvalidArgument(2, cmdline('node', 'dsh', 'grep', Buffer.from([0x61, 0xff])))).toBe(1)
    expect(firstInvalidArgument(2, cmdline('node', 'dsh', 'grep', '\ufffd'))).toBeUndefined()
    expect(firstInvalidArgument(1, cmdline('node', 'dsh', ''))).toBeUndefined()
  })

  it("reads this process's own /proc/self/cmdline by default", () => {
    expect(firstInvalidArgument(1)).toBeUndefined()
  })

  it('refuses nothing it cannot see: no /proc, no arguments, or fewer words than arguments', () => {
    expect(
      firstInvalidArgument(1, () => {
        throw new Error('ENOENT')
      }),
    ).toBeUndefined()
    expect(firstInvalidArgument(0, cmdline('node', 'dsh'))).toBeUndefined()
    expect(firstInvalidArgument(3, () => Buffer.from('dsh'))).toBeUndefined()
  })
})

describe('dsh with an argument that is not UTF-8', () => {
  it('is a usage error naming the argument, not a search for U+FFFD', () => {
    const run = spawnSync('bash', ['-c', `"$0" grep $'\\xff' .`, bin], { encoding: 'utf8' })
    expect(run.status).toBe(2)
    expect(run.stderr).toBe('dsh: argument 2 is not valid UTF-8 (the shell passed raw bytes); pass text as UTF-8\n')
    expect(spawnSync('bash', ['-c', `"$0" grep $'\\uFFFD' --help`, bin], { encoding: 'utf8' }).status).toBe(0)
  })
})
