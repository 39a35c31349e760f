import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BashRequest, BashSpec } from '@dsh/core'
import { createLocalBash } from '@dsh/bash-local'
import { budgetMs } from '../../../test-support/budget.js'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { firstLineNumber, liveGroupMembers, waitForEmptyGroup } from './process-table.js'

const GRACE_MS = 200
const bash = createLocalBash({ killGraceMs: GRACE_MS })
const scratch = scratchDir('bash-local-run')

async function run(request: BashRequest) {
  return bash.run(await bash.resolve(request))
}

describe('run', () => {
  it('reports the exit code, stdout and stderr of a command', async () => {
    const result = await run({ command: 'echo out; echo err >&2; exit 3' })
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stop: 'exit',
      stdout: { text: 'out\n', truncated: false, totalBytes: 4 },
      stderr: { text: 'err\n', truncated: false, totalBytes: 4 },
    })
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('runs in the workdir with stdin from /dev/null', async () => {
    const result = await run({ command: 'pwd; cat; echo "[$?]"', workdir: scratch })
    expect(result.stdout.text).toBe(`${scratch}\n[0]\n`)
  })

  it('keeps exactly the stdout head and stderr tail and counts every byte', async () => {
    const result = await run({ command: "printf 'abcdefghij'; printf '0123456789' >&2", stdoutMaxBytes: 4, stderrMaxBytes: 3 })
    expect(result.stdout).toEqual({ text: 'abcd', truncated: true, totalBytes: 10 })
    expect(result.stderr).toEqual({ text: '789', truncated: true, totalBytes: 10 })
  })

  it('captures non-UTF-8 output as U+FFFD with exact byte totals', async () => {
    const result = await run({ command: "printf '\\xff\\xfeok'; printf 'e\\xc3' >&2" })
    expect(result.stdout).toEqual({ text: '\ufffd\ufffdok', truncated: false, totalBytes: 4 })
    expect(result.stderr).toEqual({ text: 'e\ufffd', truncated: false, totalBytes: 2 })
  })

  it('streams stdout to the sink while the command runs, the cap included, and keeps none of it', async () => {
    const chunks: Buffer[] = []
    const result = await run({
      command: "printf 'first\\n'; sleep 0.2; printf 'second\\n'; printf 'tail'",
      stdoutMaxBytes: 15,
      stdoutSink: (chunk) => chunks.push(Buffer.from(chunk)),
    })
    expect(chunks.length).toBeGreaterThan(1)
    expect(Buffer.concat(chunks).toString()).toBe('first\nsecond\nta')
    expect(result).toMatchObject({ exitCode: 0, stop: 'exit', stdout: { text: '', truncated: true, totalBytes: 17 } })
  })

  it('hands a sink more stdout than the maximum a request may keep, every byte in order', async () => {
    const small = createLocalBash({ killGraceMs: GRACE_MS, defaultStdoutMaxBytes: 1_000, maxStdoutMaxBytes: 1_000 })
    let bytes = 0
    let last = 0
    const result = await small.run(
      await small.resolve({
        command: "seq 1 100000 | tr '\\n' ' '",
        stdoutMaxBytes: Number.MAX_SAFE_INTEGER,
        stdoutSink: (chunk) => {
          bytes += chunk.length
          last = chunk.at(-1)!
        },
      }),
    )
    expect(result).toMatchObject({ exitCode: 0, stop: 'exit', stdout: { text: '', truncated: false, totalBytes: 588_895 } })
    expect(bytes).toBe(588_895)
    expect(last).toBe(0x20)
  })

  it('stops the group when the stdout sink throws, calls it no more, and rejects with its error once the group is gone', async () => {
    const failure = new Error('the sink is full')
    const chunks: string[] = []
    // yes ignores SIGTERM, so output keeps coming until the grace's SIGKILL.
    const pending = run({
      command: 'trap "" TERM; echo $$; exec yes',
      stdoutSink: (chunk) => {
        chunks.push(Buffer.from(chunk).toString())
        throw failure
      },
    })
    await expect(pending).rejects.toBe(failure)
    expect(chunks).toHaveLength(1)
    expect(liveGroupMembers(firstLineNumber(chunks[0]!))).toEqual([])
  })

  it('never spawns for a signal aborted before run', async () => {
    const controller = new AbortController()
    const spec = await bash.resolve({ command: 'touch canary', workdir: scratch, signal: controller.signal })
    controller.abort()
    const result = await bash.run(spec)
    expect(result).toMatchObject({ stop: 'abort', exitCode: null, signal: null })
    expect(existsSync(join(scratch, 'canary'))).toBe(false)
  })

  // Each limit leaves the shell time to print its group id first, however busy the machine.
  it('kills the whole group, grandchild included, on timeout', async () => {
    const result = await run({ command: 'echo $$; sleep 300 & wait', timeoutMs: budgetMs(150) })
    expect(result).toMatchObject({ stop: 'timeout', exitCode: null, signal: 'SIGTERM' })
    expect(liveGroupMembers(firstLineNumber(result.stdout.text))).toEqual([])
  })

  it('kills the whole group, grandchild included, on abort, and hands the same signal through', async () => {
    const controller = new AbortController()
    const spec = await bash.resolve({ command: 'echo $$; sleep 300 & wait', signal: controller.signal })
    expect(spec.signal).toBe(controller.signal)
    setTimeout(() => controller.abort(), budgetMs(150))
    const result = await bash.run(spec)
    expect(result).toMatchObject({ stop: 'abort', exitCode: null, signal: 'SIGTERM' })
    expect(liveGroupMembers(firstLineNumber(result.stdout.text))).toEqual([])
  })

  it('SIGKILLs a command that ignores SIGTERM once the grace has passed', async () => {
    const limitMs = budgetMs(100)
    const result = await run({ command: 'trap "" TERM; echo $$; sleep 300', timeoutMs: limitMs })
    expect(result).toMatchObject({ stop: 'timeout', exitCode: null, signal: 'SIGKILL' })
    expect(result.durationMs).toBeGreaterThanOrEqual(limitMs + GRACE_MS - 5)
    expect(result.durationMs).toBeLessThan(budgetMs(2_000))
    expect(liveGroupMembers(firstLineNumber(result.stdout.text))).toEqual([])
  })

  it('returns when the shell exits although a background job holds the pipes, and stops the job', async () => {
    const result = await run({ command: 'echo $$; sleep 300 &', timeoutMs: budgetMs(10_000) })
    expect(result).toMatchObject({ exitCode: 0, stop: 'exit' })
    expect(result.durationMs).toBeLessThan(budgetMs(2_000))
    expect(liveGroupMembers(firstLineNumber(result.stdout.text))).toEqual([])
  })

  it('leaves no background job behind that holds no pipe', async () => {
    const result = await run({ command: 'echo $$; trap "" TERM; sleep 300 >/dev/null 2>&1 &' })
    expect(result.exitCode).toBe(0)
    expect(await waitForEmptyGroup(firstLineNumber(result.stdout.text), budgetMs(1_000))).toEqual([])
  })

  it('stops the group within a second once stdout passes its cap in kill mode', async () => {
    const result = await run({ command: 'yes', stdoutMaxBytes: 1024, onStdoutOverflow: 'kill', timeoutMs: budgetMs(10_000) })
    expect(result).toMatchObject({ stop: 'overflow', signal: 'SIGTERM' })
    expect(result.stdout.text).toBe('y\n'.repeat(512))
    expect(result.stdout.truncated).toBe(true)
    expect(result.stdout.totalBytes).toBeGreaterThan(1024)
    expect(result.durationMs).toBeLessThan(budgetMs(1_000))
  })

  it(
    'drains 1 GiB of stdout and 256 MiB of stderr with bounded memory and exact totals',
    async () => {
      const baseline = process.memoryUsage.rss()
      let peak = baseline
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20)
      const result = await run({
        command: 'yes | head -c 268435456 >&2 & yes | head -c 1073741824; wait',
        stdoutMaxBytes: 1 << 20,
        stderrMaxBytes: 1 << 16,
      })
      clearInterval(sampler)
      expect(result.stdout).toMatchObject({ truncated: true, totalBytes: 2 ** 30 })
      expect(result.stdout.text.length).toBe(1 << 20)
      expect(result.stderr).toEqual({ text: 'y\n'.repeat(1 << 15), truncated: true, totalBytes: 2 ** 28 })
      expect(peak - baseline).toBeLessThan(100 * 2 ** 20)
    },
    budgetMs(30_000),
  )
})

describe('run failures', () => {
  it('throws BASH_SPAWN_FAILED naming a shell that does not exist', async () => {
    const broken = createLocalBash({ shellPath: '/nonexistent/bash' })
    const spec = await broken.resolve({ command: 'true' })
    await expect(broken.run(spec)).rejects.toMatchObject({
      name: 'BashError',
      code: 'BASH_SPAWN_FAILED',
      message: expect.stringContaining('/nonexistent/bash'),
      cause: expect.objectContaining({ code: 'ENOENT' }),
    })
  })

  it('throws BASH_SPAWN_FAILED when the workdir vanished after resolve', async () => {
    const gone = mkdtempSync(join(scratch, 'gone-'))
    const spec = await bash.resolve({ command: 'true', workdir: gone })
    rmSync(gone, { recursive: true })
    await expect(bash.run(spec)).rejects.toMatchObject({ code: 'BASH_SPAWN_FAILED', message: expect.stringContaining(gone) })
  })

  it('throws BASH_SPAWN_FAILED for a hand-built spec Node refuses outright', async () => {
    const spec: BashSpec = { ...(await bash.resolve({ command: 'true' })), command: 'echo \0' }
    await expect(bash.run(spec)).rejects.toMatchObject({ code: 'BASH_SPAWN_FAILED' })
  })
})
