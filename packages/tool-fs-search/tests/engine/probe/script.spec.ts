import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { chooseRg } from '../../../src/engine/probe/ripgrep.js'
import { FakeBash, type Scripted } from '../../fake-bash.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../../real-harness.js'

describe('a probe the executor cannot run', () => {
  it.each([
    [
      'cannot start',
      (bash: FakeBash) => (bash.runError = new Error('spawn /bin/bash ENOENT')),
      /the ripgrep probe could not run in the bash executor: spawn \/bin\/bash ENOENT/,
    ],
    [
      'cannot resolve',
      (bash: FakeBash) => (bash.resolveError = new Error('workdir missing')),
      /could not run in the bash executor: workdir missing/,
    ],
  ])('fails the load loudly when the probe %s', async (_case, breakIt, message) => {
    const bash = new FakeBash()
    breakIt(bash)
    const load = loadHarness({ plugins: [toolFsSearch], services: { bash } })
    await expect(load).rejects.toMatchObject({ code: 'PLUGIN_APPLY_FAILED' })
    await expect(load).rejects.toThrow(message)
  })

  it.each([
    ['times out', { stop: 'timeout', exitCode: null }],
    ['is aborted', { stop: 'abort', exitCode: 0 }],
    ['has no exit code', { exitCode: null, signal: 'SIGKILL' }],
  ] satisfies [string, Scripted][])('fails the load loudly when the probe %s', async (_case, scripted) => {
    const bash = new FakeBash(() => scripted)
    await expect(loadHarness({ plugins: [toolFsSearch], services: { bash } })).rejects.toThrow(
      /plugin tool-fs-search failed to load \[SEARCH_FAILED\]: the ripgrep probe for .* did not finish with an exit code/,
    )
  })

  it('fails the load with the mtime helper probe named when only that probe cannot finish', async () => {
    const bash = new FakeBash((command) => (command.includes('files0-from') ? { stop: 'timeout', exitCode: null } : {}))
    await expect(loadHarness({ plugins: [toolFsSearch], services: { bash } })).rejects.toThrow(
      /\[SEARCH_FAILED\]: the mtime helper probe did not finish with an exit code/,
    )
  })

  it('wraps a non-Error thrown by the executor', async () => {
    const bash = new FakeBash()
    bash.runError = 'socket closed' as unknown as Error
    await expect(chooseRg(bash, ['rg'], { warn: () => undefined, info: () => undefined })).rejects.toThrow(
      'the ripgrep probe could not run in the bash executor: socket closed',
    )
  })
})

describe('helpers come from the probe, never from the searched tree', () => {
  const scratchDir = scratchDirs()
  const spillRoot = scratchDir('spill')
  const tree = scratchDir('path-canary')
  const canary = join(tree, 'CANARY')
  beforeAll(() => {
    writeTree(tree, { 'a.txt': 'needle\n' })
    for (const helper of ['find', 'xargs', 'stat', 'rg'])
      writeFileSync(join(tree, helper), `#!/bin/sh\ntouch '${canary}'\nexit 0\n`, { mode: 0o755 })
  })

  it.each(['.:/usr/bin:/bin', ':/usr/bin:/bin', '/usr/bin::/bin'])(
    'glob with PATH %j runs no ./find, ./xargs or ./stat of the tree',
    async (PATH) => {
      rmSync(canary, { force: true })
      const loaded = await loadRealHarness({ spillRoot, bash: { envSet: { PATH } } })
      const result = await callTool(loaded, 'glob', { pattern: '*.txt' }, tree)
      expect(existsSync(canary)).toBe(false)
      expect(result).toMatchObject({ isError: false, content: 'a.txt' })
    },
  )
})
