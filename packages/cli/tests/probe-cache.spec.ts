// dsh's probe cache, with real files and the real search plugin: an answer is reused only while rg and
// every program its PATH lookups could find are as they were; a replaced one is probed again; and a
// cache file that is corrupt, foreign or not a plain file of this user's is never read.
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { createLocalBash, type LocalBashOptions } from '@dsh/bash-local'
import { loadHarness, type BashExecutor, type Logger } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import type { ProbeCache } from '@dsh/tool-fs-search'
import { createProbeCache, fileSignature, readCacheFile } from '../src/probe-cache.js'
import { scratchDir } from './io.js'

const work = scratchDir('probe-cache')
let dirs = 0
/** A fresh private directory. */
function dir(label: string): string {
  const made = join(work, `${label}-${(dirs += 1)}`)
  mkdirSync(made, { mode: 0o700 })
  return made
}
const packaged = execFileSync(process.execPath, ['-p', "require('@vscode/ripgrep').rgPath"], { encoding: 'utf8' }).trim()

/** A real local executor that counts the commands it runs. */
function counting(options: LocalBashOptions = {}): { bash: BashExecutor; runs: () => number } {
  const real = createLocalBash(options)
  let runs = 0
  return { runs: () => runs, bash: { resolve: (request) => real.resolve(request), run: (spec) => ((runs += 1), real.run(spec)) } }
}

/** Loads the search plugin as dsh does, with this executor and cache; its warnings. */
async function load(bash: BashExecutor, cache: ProbeCache, config: Record<string, unknown> = {}): Promise<string[]> {
  const warnings: string[] = []
  const logger: Logger = { warn: (message) => warnings.push(message), info: vi.fn() }
  await loadHarness({ plugins: [toolFsSearch], services: { bash, probeCache: cache }, config: { 'tool-fs-search': config }, logger })
  return warnings
}

/** An rg of its own, to replace. */
function ownRg(): string {
  const rg = join(dir('rg'), 'rg')
  copyFileSync(packaged, rg)
  chmodSync(rg, 0o755)
  return rg
}

describe('through the search plugin', () => {
  it('probes once while nothing changed', async () => {
    const { bash, runs } = counting()
    const cache = createProbeCache()
    expect(await load(bash, cache)).toEqual([])
    expect(await load(bash, cache)).toEqual([])
    expect(runs()).toBe(1)
  })

  it('a replaced rg binary is probed again, and what it is now decides', async () => {
    const rg = ownRg()
    const { bash, runs } = counting()
    const cache = createProbeCache()
    expect(await load(bash, cache, { rgPath: rg })).toEqual([])
    expect(await load(bash, cache, { rgPath: rg })).toEqual([])
    expect(runs()).toBe(1)
    // A new file renamed over it, as a package manager upgrades a binary.
    writeFileSync(`${rg}.new`, '#!/bin/sh\necho "not ripgrep"\n', { mode: 0o755 })
    renameSync(`${rg}.new`, rg)
    expect(await load(bash, cache, { rgPath: rg })).toEqual([expect.stringMatching(/not runnable in the executor: .*not ripgrep/)])
  })

  it('an rg rewritten in place, or made not executable, is probed again', async () => {
    const rg = ownRg()
    const { bash, runs } = counting()
    const cache = createProbeCache()
    await load(bash, cache, { rgPath: rg })
    copyFileSync(packaged, rg)
    expect(await load(bash, cache, { rgPath: rg })).toEqual([])
    expect(runs()).toBe(2)
    chmodSync(rg, 0o644)
    expect(await load(bash, cache, { rgPath: rg })).toEqual([expect.stringContaining(`not runnable in the executor: ${rg}`)])
  })

  it('a program added to an earlier PATH directory is probed again', async () => {
    const bin = dir('path-bin')
    const { bash, runs } = counting({ envSet: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` } })
    const cache = createProbeCache()
    await load(bash, cache)
    await load(bash, cache)
    expect(runs()).toBe(1)
    writeFileSync(join(bin, 'find'), '#!/bin/sh\nexit 1\n', { mode: 0o755 })
    await load(bash, cache)
    expect(runs()).toBe(2)
  })
})

describe('in memory', () => {
  it('keeps the 32 answers recorded last', () => {
    const cache = createProbeCache()
    for (let i = 0; i < 33; i += 1) cache.set(`key ${i}`, `answer ${i}`, ['/nonexistent'])
    expect(cache.get('key 0')).toBeUndefined()
    expect(cache.get('key 1')).toBe('answer 1')
    cache.set('key 1', 'again', [])
    expect(cache.get('key 1')).toBe('again')
    expect(cache.get('never')).toBeUndefined()
  })

  it('signatures say no file, or why a path cannot be looked at', () => {
    const at = dir('signature')
    writeFileSync(join(at, 'file'), 'x')
    expect(fileSignature(join(at, 'none'))).toBe('-')
    expect(fileSignature(join(at, 'file', 'below'))).toBe('!ENOTDIR')
    const info = statSync(join(at, 'file'))
    expect(fileSignature(join(at, 'file'))).toBe(
      [info.dev, info.ino, info.mode, info.uid, info.gid, info.size, info.mtimeMs, info.ctimeMs].join(':'),
    )
  })
})

describe('on disk', () => {
  const fileIn = (label: string) => join(dir(label), 'probe-cache.json')

  it("a second process reads the first one's answer, from a 0600 file, and checks its files", () => {
    const file = fileIn('disk')
    const rg = ownRg()
    createProbeCache({ file }).set('key', 'answer', [rg])
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(createProbeCache({ file }).get('key')).toBe('answer')
    copyFileSync(packaged, rg)
    expect(createProbeCache({ file }).get('key')).toBeUndefined()
  })

  it.each([
    ['not JSON', '{"dsh-probe'],
    ['another format', JSON.stringify(['dsh-probe-cache-0', []])],
    ['no entries', JSON.stringify(['dsh-probe-cache-1', {}])],
    ['an entry of the wrong shape', JSON.stringify(['dsh-probe-cache-1', [['key', 'answer']]])],
    ['an entry whose answer is not text', JSON.stringify(['dsh-probe-cache-1', [['key', 1, []]]])],
    ['an entry whose files are not a list', JSON.stringify(['dsh-probe-cache-1', [['key', 'answer', {}]]])],
    ['a relative file', JSON.stringify(['dsh-probe-cache-1', [['key', 'answer', [['rg', '-']]]]])],
    ['a signature that is not text', JSON.stringify(['dsh-probe-cache-1', [['key', 'answer', [['/rg', 1]]]]])],
  ])('a corrupt file (%s) is ignored, and replaced by the next answer', async (_what, body) => {
    const file = fileIn('corrupt')
    writeFileSync(file, body, { mode: 0o600 })
    expect(readCacheFile(file)).toEqual([])
    const { bash, runs } = counting()
    await load(bash, createProbeCache({ file }))
    await load(bash, createProbeCache({ file }))
    expect(runs()).toBe(1)
    expect((JSON.parse(readFileSync(file, 'utf8')) as unknown[])[0]).toBe('dsh-probe-cache-1')
  })

  /** A file with one answer in it. */
  function recorded(label: string): string {
    const file = fileIn(label)
    createProbeCache({ file }).set('key', 'answer', [])
    expect(readCacheFile(file)).toHaveLength(1)
    return file
  }

  it('a file others may read or write is not read', () => {
    const file = recorded('mode')
    chmodSync(file, 0o644)
    expect(readCacheFile(file)).toEqual([])
    expect(createProbeCache({ file }).get('key')).toBeUndefined()
  })

  it('a file of another uid is not read', () => {
    const file = recorded('owner')
    expect(readCacheFile(file, process.getuid!() + 1)).toEqual([])
    if (process.getuid!() === 0) {
      chownSync(file, 65534, 65534)
      expect(readCacheFile(file)).toEqual([])
    }
  })

  it('a link to a file, or a directory, is not read', () => {
    const file = recorded('link')
    const link = join(file, '..', 'link.json')
    symlinkSync(file, link)
    expect(readCacheFile(link)).toEqual([])
    const directory = join(file, '..', 'dir.json')
    mkdirSync(directory)
    expect(readCacheFile(directory)).toEqual([])
  })

  it('a file past 1 MiB is not read', () => {
    const file = fileIn('big')
    writeFileSync(file, JSON.stringify(['dsh-probe-cache-1', [], 'x'.repeat(1 << 20)]), { mode: 0o600 })
    expect(readCacheFile(file)).toEqual([])
  })

  it('a file that cannot be written leaves the answer in memory, and no temporary file', () => {
    const at = dir('unwritable')
    const cache = createProbeCache({ file: join(at, 'gone', 'probe-cache.json') })
    cache.set('key', 'answer', [])
    expect(cache.get('key')).toBe('answer')
    expect(execFileSync('ls', ['-A', at], { encoding: 'utf8' })).toBe('')
  })

  it('a temporary file left by a process of the same pid is removed, and the next write succeeds', () => {
    const file = fileIn('leftover')
    writeFileSync(`${file}.${process.pid}.tmp`, 'left over')
    const cache = createProbeCache({ file })
    cache.set('key', 'answer', [])
    expect(readCacheFile(file)).toEqual([])
    cache.set('key', 'answer', [])
    expect(readCacheFile(file)).toHaveLength(1)
  })
})
