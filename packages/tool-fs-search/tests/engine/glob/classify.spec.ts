import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { statRecords } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, canLock, loadRealHarness, nobodyHarness, scratchDirs, writeTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('glob exit statuses through the registry', () => {
  const findFailed = '/usr/bin/find: ‘shut/a.ts’: Permission denied\n/usr/bin/find: ‘gone.ts’: No such file or directory\n'

  it('keeps the matches of an exit 2 and reports the listing incomplete', async () => {
    const { glob } = await fakeHarness(() => ({
      exitCode: 2,
      stdout: statRecords(['1', 'ok.ts']),
      stderr: 'rg: ./locked: Permission denied (os error 13)\n',
    }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'ok.ts\n\n(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
  })

  it('fails when the root itself cannot be read, and keeps a listing that found files anyway', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 2, stderr: 'rg: ./: Permission denied (os error 13)\n' }))
    expect(await glob({ pattern: '*', path: 'xonly' })).toMatchObject({
      isError: true,
      errorCode: 'SEARCH_FAILED',
      content: 'glob cannot read xonly: rg: ./: Permission denied (os error 13)',
    })
    const partial = await fakeHarness(() => ({
      exitCode: 2,
      stdout: statRecords(['1', 'a']),
      stderr: 'rg: .: Permission denied (os error 13)\n',
      stderrTruncated: true,
    }))
    expect((await partial.glob({ pattern: '*' })).content).toBe(
      'a\n\n(Search incomplete: rg could not read at least 1 path, so results from them are missing: .: Permission denied (os error 13).)',
    )
  })

  it.each([
    [
      { exitCode: 2, stderr: "rg: error parsing glob '{a': unclosed alternate group\n" },
      'SEARCH_INVALID_PATTERN',
      /^glob pattern rejected by rg: rg: error parsing glob/,
    ],
    [{ exitCode: 2, stderr: 'odd\n' }, 'SEARCH_FAILED', /^glob failed: rg exited with status 2\. odd$/],
    [
      { exitCode: 4 },
      'SEARCH_FAILED',
      /^glob cannot search nope: no such file or directory \(or a directory above it cannot be entered\)\. Check the path\.$/,
    ],
    [
      { exitCode: 125 },
      'SEARCH_FAILED',
      /^glob could not run its modification-time helper \(\/usr\/bin\/find\), which worked when the tools loaded; it needs GNU find/,
    ],
    [{ exitCode: null, signal: 'SIGKILL' }, 'SEARCH_FAILED', /^glob failed: rg exited with status signal SIGKILL\./],
  ])('answers %j with %s', async (scripted, errorCode, content) => {
    const { glob } = await fakeHarness(() => scripted)
    const result = await glob({ pattern: '*', path: 'nope' })
    expect(result).toMatchObject({ isError: true, errorCode })
    expect(result.content).toMatch(content)
  })

  it('names the files the mtime helper could not stat (exit 7) instead of dropping them', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr: findFailed }))
    const result = await glob({ pattern: '**/*.ts' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      'ok.ts\n\n(Listing incomplete: 2 files rg listed could not be examined for their modification time, so they are not shown: ‘gone.ts’: No such file or directory; ‘shut/a.ts’: Permission denied.)',
    )
    expect(result.value).toMatchObject({ total: 1, incomplete: ['‘shut/a.ts’: Permission denied', '‘gone.ts’: No such file or directory'] })
  })

  it('is incomplete when rg exits 2 with a listing and an error it does not tie to a path', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 2, stdout: statRecords(['1', 'ok.ts']), stderr: 'something odd\n' }))
    expect(await glob({ pattern: '*.ts' })).toMatchObject({
      isError: false,
      content: 'ok.ts\n\n(Search incomplete: rg exited with status 2, so some results may be missing; it printed: something odd.)',
    })
  })

  it.each([
    [
      { exitCode: 4 },
      'glob cannot search "gone\\nname": no such file or directory (or a directory above it cannot be entered). Check the path.',
    ],
    [{ exitCode: 5 }, 'glob searches directories, but "gone\\nname" is a file. Pass its directory as path, or grep the file.'],
    [
      { exitCode: 3, stderr: "dash: 1: cd: can't cd to ./gone" },
      'glob cannot search "gone\\nname": the directory exists but cannot be entered (permission denied for the executor\'s user). dash: 1: cd: can\'t cd to ./gone',
    ],
  ])('names the real cause for %j', async (scripted, content) => {
    const { glob } = await fakeHarness(() => scripted)
    expect(await glob({ pattern: '*', path: 'gone\nname' })).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED', content })
  })
})

describe('rg failures are classified from its real stderr (docs/design.md#exit-2-is-not-always-failure)', () => {
  const tree = scratchDir('errors')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'other\n' }))

  it('glob reports SEARCH_INVALID_PATTERN for a bad glob', async () => {
    expect(await callTool(harness, 'glob', { pattern: '{a' }, tree)).toMatchObject({ isError: true, errorCode: 'SEARCH_INVALID_PATTERN' })
  })

  it.each([
    ['a missing directory', 'missing'],
    ['a file', 'a.txt'],
  ])('glob reports SEARCH_FAILED for %s as its path', async (_what, path) => {
    const result = await callTool(harness, 'glob', { pattern: '*', path }, tree)
    expect(result).toMatchObject({ isError: true, errorCode: 'SEARCH_FAILED' })
    expect(result.content).toContain(path)
  })
})

describe('failures name their real cause', () => {
  const tree = scratchDir('causes')
  beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'needle\n' }))

  it('glob of a file says it is a file', async () => {
    expect(await callTool(harness, 'glob', { pattern: '*', path: 'a.txt' }, tree)).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^glob searches directories, but a\.txt is a file/),
    })
  })
})

describe.skipIf(!canLock)('glob never silently drops a file rg lists', () => {
  // "shut" is readable but not searchable: rg lists the names in it, and nothing can stat them.
  const tree = scratchDir('unstat')
  let viaFind: Harness
  let viaStat: Harness
  beforeAll(async () => {
    writeTree(tree, { 'open/a.ts': 'x\n', 'shut/secret.ts': 'x\n' })
    const bin = scratchDir('old-find-nobody')
    writeFileSync(join(bin, 'find'), '#!/bin/sh\nexit 1\n', { mode: 0o755 })
    chmodSync(bin, 0o755)
    viaFind = await nobodyHarness(tree, { spillRoot, scratchDir })
    viaStat = await nobodyHarness(tree, { spillRoot, scratchDir, bash: { envSet: { PATH: `${bin}:/usr/bin:/bin` } } })
    chmodSync(join(tree, 'shut'), 0o444)
  })

  it.each([
    ['find', () => viaFind],
    ['xargs and stat', () => viaStat],
  ])('glob names a listed file %s could not stat in an incomplete note', async (_helper, harnessOf) => {
    const result = await callTool(harnessOf(), 'glob', { pattern: '**/*.ts' }, tree)
    expect(result.isError).toBe(false)
    const [page, note] = result.content.split('\n\n')
    expect(page).toBe('open/a.ts')
    expect(note).toMatch(
      /^\(Listing incomplete: 1 file rg listed could not be examined for its modification time, so it is not shown: .*shut\/secret\.ts.*Permission denied\.\)$/,
    )
    expect(result.value).toMatchObject({ total: 1, incomplete: [expect.stringContaining('shut/secret.ts')] })
  })

  it('glob of nothing but unstattable files says so instead of "No files found"', async () => {
    const result = await callTool(viaFind, 'glob', { pattern: 'shut/*.ts' }, tree)
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toMatch(/^No files to show\n\n\(Listing incomplete: 1 file .*secret\.ts/)
  })
})
