// The probe's side of the probe cache, through the real executor: what an answer is kept under, which
// files it depends on, and that only a whole joint answer is taken from a cache or put in one. The
// cache here is a map that trusts its files; dsh's own, which checks them, is tested with the CLI
// (packages/cli/tests/probe-cache.spec.ts).
import { chmodSync, copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createLocalBash, type LocalBashOptions } from '@dsh/bash-local'
import type { BashExecutor, Logger } from '@dsh/core'
import { dependencies, probeCacheKey, type ProbeCache } from '../../../src/engine/probe/cache.js'
import { probeExecutor } from '../../../src/engine/probe/executor.js'
import { packagedRgPath } from '../../../src/engine/probe/ripgrep.js'
import { scratchDirs } from '../../real-harness.js'

const logger = (): Logger => ({ warn: vi.fn(), info: vi.fn() })
const scratchDir = scratchDirs()
let packaged: string
beforeAll(async () => {
  packaged = (await packagedRgPath())!
})

/** A real local executor that counts the commands it runs. */
function counting(options: LocalBashOptions = {}): { bash: BashExecutor; runs: () => number } {
  const real = createLocalBash(options)
  let runs = 0
  return { runs: () => runs, bash: { resolve: (request) => real.resolve(request), run: (spec) => ((runs += 1), real.run(spec)) } }
}

/** A cache that keeps what it is given and trusts it: the layer above the seam, under test. */
function mapCache(): ProbeCache & { entries: Map<string, { answer: string; files: readonly string[] }> } {
  const entries = new Map<string, { answer: string; files: readonly string[] }>()
  return { entries, get: (key) => entries.get(key)?.answer, set: (key, answer, files) => void entries.set(key, { answer, files }) }
}

describe('the probe with a cache', () => {
  it('probes once and records the answer with its files; then answers from the cache as the probe did', async () => {
    const { bash, runs } = counting()
    const cache = mapCache()
    const first = await probeExecutor(bash, [packaged, 'rg'], logger(), cache)
    expect(runs()).toBe(1)
    const { key } = await probeCacheKey(bash, [packaged, 'rg'])
    expect([...cache.entries.keys()]).toEqual([key])
    expect(cache.entries.get(key)!.files).toEqual(dependencies(packaged, [packaged, 'rg'], process.env.PATH!))
    expect(await probeExecutor(bash, [packaged, 'rg'], logger(), cache)).toEqual(first)
    expect(runs()).toBe(1)
  })

  it('a cached answer that does not read as a whole joint answer is probed past, and replaced', async () => {
    const { bash, runs } = counting()
    const cache = mapCache()
    cache.set((await probeCacheKey(bash, [packaged])).key, 'dsh-probe-1\0forged', [])
    expect((await probeExecutor(bash, [packaged], logger(), cache)).rg).toEqual({ available: true, chosen: packaged })
    expect(runs()).toBe(1)
    expect([...cache.entries.values()][0]!.answer).toMatch(/^dsh-probe-1\0find/)
  })

  it('an answer the separate probes gave (the first candidate is not rg) is not recorded', async () => {
    const cache = mapCache()
    const result = await probeExecutor(counting().bash, ['/nonexistent/rg', packaged], logger(), cache)
    expect(result.rg).toEqual({ available: true, chosen: packaged })
    expect(cache.entries.size).toBe(0)
  })
})

describe('the key', () => {
  it('is the candidates and the environment the executor gives', async () => {
    const a = await probeCacheKey(counting().bash, [packaged, 'rg'])
    expect(a.searchPath).toBe(process.env.PATH)
    expect((await probeCacheKey(counting({ envSet: { PATH: '/usr/bin:/bin' } }).bash, [packaged, 'rg'])).key).not.toBe(a.key)
    expect((await probeCacheKey(counting().bash, [packaged])).key).not.toBe(a.key)
    expect((await probeCacheKey(counting({ cwd: scratchDir('elsewhere') }).bash, [packaged, 'rg'])).key).toBe(a.key)
    expect((await probeCacheKey(counting({ envSet: { PATH: '' } }).bash, [packaged])).searchPath).toBe('')
    // An executor that passes no PATH at all: the probe looks nothing up in it.
    const real = createLocalBash()
    const noPath: BashExecutor = {
      resolve: async (request) => ({ ...(await real.resolve(request)), env: {} }),
      run: (spec) => real.run(spec),
    }
    expect((await probeCacheKey(noPath, [packaged])).searchPath).toBe('')
  })

  it('holds the working directory when a candidate is relative: ./rg in another directory is another rg', async () => {
    const [a, b] = [scratchDir('relative-a'), scratchDir('relative-b')]
    for (const dir of [a, b]) {
      copyFileSync(packaged, join(dir, 'rg'))
      chmodSync(join(dir, 'rg'), 0o755)
    }
    const keyA = (await probeCacheKey(counting({ cwd: a }).bash, ['./rg', packaged])).key
    expect((await probeCacheKey(counting({ cwd: b }).bash, ['./rg', packaged])).key).not.toBe(keyA)
    const cache = mapCache()
    expect((await probeExecutor(counting({ cwd: a }).bash, ['./rg', packaged], logger(), cache)).rg).toEqual({
      available: true,
      chosen: `${a}/./rg`,
    })
    expect((await probeExecutor(counting({ cwd: b }).bash, ['./rg', packaged], logger(), cache)).rg).toEqual({
      available: true,
      chosen: `${b}/./rg`,
    })
  })
})

describe('the files an answer depends on', () => {
  it('rg as chosen, and each name the probe looks up in each absolute PATH directory', () => {
    expect(dependencies('/usr/bin/rg', ['rg'], 'bin:/usr/bin:/usr/bin/')).toEqual([
      '/usr/bin/rg',
      '/usr/bin/find',
      '/usr/bin/perl',
      '/usr/bin/xargs',
      '/usr/bin/stat',
      '/usr/bin/sh',
      '/usr/bin/dd',
    ])
    expect(dependencies('/opt/rg', ['/opt/rg', 'rg'], '/bin')).toEqual([
      '/opt/rg',
      '/bin/find',
      '/bin/perl',
      '/bin/xargs',
      '/bin/stat',
      '/bin/sh',
      '/bin/dd',
    ])
    expect(dependencies('/opt/rg', ['/opt/rg'], '')).toEqual(['/opt/rg'])
  })
})
