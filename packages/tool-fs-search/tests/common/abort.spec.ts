import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { HarnessError, loadHarness, type Harness, type ToolExecContext } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { Config } from '../../src/config.js'
import { executeGrep } from '../../src/grep/tool.js'
import { FakeBash, isProbe, type Scripted } from '../fake-bash.js'
import { agent, fakeHarness, RG } from '../fake-harness.js'
import { callTool, loadRealHarness, processesMentioning, scratchDirs, waitForNoProcess } from '../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('cancellation and timeout through a fake executor', () => {
  it('hands the same aborted signal to the bash backend and answers SEARCH_ABORTED', async () => {
    const bash = new FakeBash(
      (_command, spec) =>
        new Promise<Scripted>((resolve) =>
          spec.signal?.addEventListener('abort', () => resolve({ stop: 'abort', exitCode: null, signal: 'SIGTERM' })),
        ),
    )
    const controller = new AbortController()
    const exec: ToolExecContext = { signal: controller.signal, name: 'grep', callId: 'c', agent }
    const ctx = { bash, rg: RG, config: Config.parse({}), spillStore: () => undefined, access: () => undefined }
    const pending = executeGrep(ctx, { pattern: 'x' }, exec)
    setTimeout(() => controller.abort(), 10)
    await expect(pending).rejects.toMatchObject({
      code: 'SEARCH_ABORTED',
      message: 'grep was cancelled before rg finished; no result was produced.',
    })
    expect(bash.specs[0]?.signal).toBe(exec.signal)
  })

  it('answers SEARCH_ABORTED through the registry when the caller cancels', async () => {
    const bash = new FakeBash((command, spec) =>
      isProbe(command)
        ? {}
        : new Promise<Scripted>((resolve) => spec.signal?.addEventListener('abort', () => resolve({ stop: 'abort', exitCode: null }))),
    )
    const harness = await loadHarness({ plugins: [toolFsSearch], services: { bash } })
    const controller = new AbortController()
    const pending = harness.registry.execute('grep', { pattern: 'x' }, { signal: controller.signal, agent })
    setTimeout(() => controller.abort(), 10)
    expect(await pending).toMatchObject({ isError: true, errorCode: 'SEARCH_ABORTED' })
    expect(bash.specs.at(-1)?.signal?.aborted).toBe(true)
  })

  it('tells a timeout from a cancellation', async () => {
    const { grep } = await fakeHarness(() => ({ stop: 'timeout', exitCode: null, signal: 'SIGTERM' }))
    expect(await grep({ pattern: 'x' })).toMatchObject({
      errorCode: 'SEARCH_ABORTED',
      content: 'grep timed out before rg finished; no result was produced. Narrow the pattern or path and search again.',
    })
    const ctx = {
      bash: new FakeBash(() => ({ stop: 'abort', exitCode: null })),
      rg: RG,
      config: Config.parse({}),
      spillStore: () => undefined,
      access: () => undefined,
    }
    const controller = new AbortController()
    controller.abort(new HarnessError('TOOL_TIMEOUT', 'deadline'))
    await expect(executeGrep(ctx, { pattern: 'x' }, { signal: controller.signal, name: 'grep', callId: 'c' })).rejects.toThrow(
      'grep timed out',
    )
  })
})

describe('cancellation and timeout kill rg', () => {
  // rg blocks opening a FIFO nobody writes to: a search that never ends on its own, without a big tree.
  const tree = scratchDir('fifo')
  const fifo = join(tree, 'never-written')
  beforeAll(() => execFileSync('mkfifo', [fifo]))

  it('an abort mid-search returns promptly as an error and leaves no rg running', async () => {
    const controller = new AbortController()
    const pending = callTool(harness, 'grep', { pattern: 'needle', path: fifo }, tree, { signal: controller.signal })
    const running = Date.now() + 5000
    while (processesMentioning(fifo).length === 0 && Date.now() < running) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(processesMentioning(fifo).length).toBeGreaterThan(0)
    const aborted = performance.now()
    controller.abort()
    const result = await pending
    expect(performance.now() - aborted).toBeLessThan(2000)
    expect(result.isError).toBe(true)
    expect(['SEARCH_ABORTED', 'TOOL_ABORTED']).toContain(result.errorCode)
    expect(await waitForNoProcess(fifo, 1000)).toEqual([])
  })

  it('the configured timeout stops the search and leaves no rg running', async () => {
    const quick = await loadRealHarness({ spillRoot, search: { timeoutMs: 150 } })
    const started = performance.now()
    const result = await callTool(quick, 'grep', { pattern: 'needle', path: fifo }, tree)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(result.isError).toBe(true)
    expect(['SEARCH_ABORTED', 'TOOL_TIMEOUT']).toContain(result.errorCode)
    expect(result.content).toMatch(/timed out/)
    expect(await waitForNoProcess(fifo, 1000)).toEqual([])
  })
})

describe('a timed-out call leaves nothing behind (docs/design.md#timeouts)', () => {
  const tree = scratchDir('term-proof')
  const fifo = join(tree, 'never-written')
  let stubborn: Harness
  beforeAll(async () => {
    execFileSync('mkfifo', [fifo])
    // An rg that ignores SIGTERM (an ignored signal stays ignored across exec): only SIGKILL stops it.
    const bin = scratchDir('stubborn-rg')
    const rg = join(bin, 'rg')
    writeFileSync(rg, `#!/bin/sh\ntrap '' TERM\nexec '${(await import('@vscode/ripgrep')).rgPath}' "$@"\n`, { mode: 0o755 })
    stubborn = await loadRealHarness({ spillRoot, bash: { killGraceMs: 400 }, search: { rgPath: rg, timeoutMs: 150 } })
  })

  it('returns only once the executor has killed an rg that ignores SIGTERM', async () => {
    const result = await callTool(stubborn, 'grep', { pattern: 'needle', path: fifo }, tree, { session: 'sess-stubborn' })
    expect(processesMentioning(fifo)).toEqual([])
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_ABORTED', content: expect.stringMatching(/^grep timed out/) })
    expect(existsSync(join(spillRoot, 'sess-stubborn'))).toBe(false)
  })
})
