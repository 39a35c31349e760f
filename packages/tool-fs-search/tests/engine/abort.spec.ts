import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { HarnessError, loadHarness, type Harness, type ToolExecContext } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { Config } from '../../src/config.js'
import { executeGrep } from '../../src/dsh/grep/tool.js'
import { FakeBash, isProbe, type Scripted } from '../fake-bash.js'
import { agent, RG } from '../fake-harness.js'
import { writeBlockingRg } from '../../../../test-support/blocking-rg.js'
import { callTool, loadRealHarness, processesMentioning, scratchDirs, waitForNoProcess, writeTree } from '../real-harness.js'

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

  it("tells the registry's deadline from a cancellation", async () => {
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

  it('the configured timeout stops the search, returns what it found, and leaves no rg running', async () => {
    // An rg that prints its matches and never finishes: the executor's own timer always fires.
    const blocking = writeBlockingRg(scratchDir('blocking-rg'), (await import('@vscode/ripgrep')).rgPath)
    const hits = scratchDir('hits')
    writeTree(hits, { 'hit.txt': 'needle\n' })
    const quick = await loadRealHarness({ spillRoot, search: { rgPath: blocking, timeoutMs: 300 } })
    const result = await callTool(quick, 'grep', { pattern: 'needle' }, hits)
    expect(processesMentioning(blocking)).toEqual([])
    expect(result).toMatchObject({ isError: false, meta: { incomplete: true } })
    // How much rg printed in 0.3 s depends on the machine; that it is reported as partial does not.
    expect(result.content).toMatch(/\n\n\(Stopped after 0\.3 s, the search's time limit: partial result, [^\n]* so far; [^\n]*\)$/)
  })
})

describe('a timed-out call leaves nothing behind (docs/design.md#timeouts)', () => {
  const tree = scratchDir('term-proof')
  writeTree(tree, { 'hit.txt': 'needle\n' })
  let blocking: string
  let stubborn: Harness
  beforeAll(async () => {
    // An rg that ignores SIGTERM (an ignored signal stays ignored across exec) and never finishes:
    // only SIGKILL stops it.
    const bin = scratchDir('stubborn-rg')
    blocking = writeBlockingRg(bin, (await import('@vscode/ripgrep')).rgPath)
    const rg = join(bin, 'stubborn-rg')
    writeFileSync(rg, `#!/bin/sh\ntrap '' TERM\nexec '${blocking}' "$@"\n`, { mode: 0o755 })
    stubborn = await loadRealHarness({ spillRoot, bash: { killGraceMs: 400 }, search: { rgPath: rg, timeoutMs: 150 } })
  })

  it('returns only once the executor has killed an rg that ignores SIGTERM', async () => {
    const result = await callTool(stubborn, 'grep', { pattern: 'needle' }, tree, { session: 'sess-stubborn' })
    expect(processesMentioning(blocking)).toEqual([])
    expect(result).toMatchObject({ isError: false, content: expect.stringMatching(/\(Stopped after 0\.15 s, /) })
  })
})
