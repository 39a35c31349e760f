import { describe, expect, it } from 'vitest'
import { waitUntil } from '../src/wait-until.js'

describe('waitUntil', () => {
  it('resolves true at once when the condition already holds', async () => {
    expect(await waitUntil(() => true, 0)).toBe(true)
  })

  it('polls until the condition holds', async () => {
    let calls = 0
    expect(await waitUntil(() => ++calls === 8, 1_000)).toBe(true)
    expect(calls).toBe(8)
  })

  it('gives up after the bound and says so', async () => {
    const started = performance.now()
    expect(await waitUntil(() => false, 30)).toBe(false)
    expect(performance.now() - started).toBeGreaterThanOrEqual(30)
  })
})
