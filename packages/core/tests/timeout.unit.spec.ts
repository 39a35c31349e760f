import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CoreError, defineTool, HarnessError, runWithDeadline, ToolRegistry } from '@dsh/core'
import { budgetMs } from '../../../test-support/budget.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the timeout policy (real timers)', () => {
  it('aborts a tool that sleeps past its timeoutMs and answers soon after the deadline, long before the tool ends', async () => {
    let seen: AbortSignal | undefined
    const sleeper = defineTool({
      name: 'sleeper',
      description: 'Sleeps, ignoring its signal.',
      parameters: z.strictObject({}),
      timeoutMs: 200,
      execute: async (_args, exec) => {
        seen = exec.signal
        await sleep(5_000)
        return { content: 'too late' }
      },
    })
    const registry = new ToolRegistry()
    registry.register(sleeper)
    const started = performance.now()
    const result = await registry.execute('sleeper', {})
    const elapsed = performance.now() - started
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_TIMEOUT' })
    expect(result.content).toBe('tool sleeper timed out after 200 ms; narrow the request and try again')
    expect(elapsed).toBeGreaterThanOrEqual(195)
    // ~100 ms past the deadline on a quiet machine; the tool itself would take 5 s.
    expect(elapsed).toBeLessThan(200 + budgetMs(100))
    expect(seen?.aborted).toBe(true)
    expect(seen?.reason).toMatchObject({ code: 'TOOL_TIMEOUT' })
  })

  it('prefers the structured error a tool settles with after the abort', async () => {
    const result = runWithDeadline(
      (signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new HarnessError('SEARCH_ABORTED', 'search aborted')))
        }),
      { timeoutMs: 20, label: 'tool grep' },
    )
    await expect(result).rejects.toMatchObject({ code: 'SEARCH_ABORTED' })
  })

  it('does not let a success after the deadline pass as a result', async () => {
    const result = runWithDeadline((signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('partial'))), {
      timeoutMs: 20,
      label: 'work',
    })
    await expect(result).rejects.toMatchObject({ code: 'TOOL_TIMEOUT' })
  })

  it('answers with the policy error when the tool throws something unstructured after the abort', async () => {
    const result = runWithDeadline(
      (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('AbortError')))),
      { timeoutMs: 20, label: 'work' },
    )
    await expect(result).rejects.toMatchObject({ code: 'TOOL_TIMEOUT' })
  })

  it('lets the caller cancel first: whichever signal fires first wins', async () => {
    const caller = new AbortController()
    let seen: AbortSignal | undefined
    const result = runWithDeadline(
      async (signal) => {
        seen = signal
        await sleep(5_000)
      },
      { timeoutMs: 1_000, signal: caller.signal, label: 'tool grep' },
    )
    setTimeout(() => caller.abort(), 20)
    await expect(result).rejects.toThrow(new CoreError('TOOL_ABORTED', 'tool grep was cancelled before it finished'))
    expect(seen?.reason).toMatchObject({ code: 'TOOL_ABORTED' })
  })

  it('never starts work whose caller already cancelled', async () => {
    let started = false
    const caller = new AbortController()
    caller.abort()
    const result = runWithDeadline(
      async () => {
        started = true
      },
      { signal: caller.signal, label: 'work' },
    )
    await expect(result).rejects.toMatchObject({ code: 'TOOL_ABORTED' })
    expect(started).toBe(false)
  })

  it('passes results and errors through when no deadline fires', async () => {
    await expect(runWithDeadline(async () => 7, { label: 'work' })).resolves.toBe(7)
    await expect(runWithDeadline(async () => Promise.reject(new Error('boom')), { timeoutMs: 1000, label: 'work' })).rejects.toThrow('boom')
  })
})
