import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { retainGlobPaths } from '../../../src/dsh/glob/page.js'
import { MemorySpill, statRecords } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, readSpill, scratchDirs, spillLocator, writeBytesTree, writeCapsTree } from '../../real-harness.js'

const scratchDir = scratchDirs()
const spillRoot = scratchDir('spill')
let harness: Harness
beforeAll(async () => {
  harness = await loadRealHarness({ spillRoot })
})

describe('retainGlobPaths', () => {
  it('keeps at least one path even when it alone passes the byte budget', () => {
    const paths = ['a-very-long-path', 'b']
    expect(retainGlobPaths(paths.length, (index) => paths[index]!, { maxResults: 10, maxBytes: 4 })).toEqual({
      items: ['a-very-long-path'],
      kept: 1,
      total: 2,
      truncated: true,
    })
  })
})

describe('the glob page through the registry', () => {
  const findFailed = '/usr/bin/find: ‘shut/a.ts’: Permission denied\n/usr/bin/find: ‘gone.ts’: No such file or directory\n'

  it('says "No files found" for an empty listing', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 1 }))
    expect(await glob({ pattern: '*.none' })).toMatchObject({ isError: false, content: 'No files found' })
  })

  it('caps the page, names the full sorted result, and saves every path', async () => {
    const store = new MemorySpill()
    const { glob } = await fakeHarness(() => ({ stdout: statRecords(['1', 'a'], ['2', 'b'], ['3', 'c']) }), { globMaxResults: 2 }, store)
    const result = await glob({ pattern: '*' })
    expect(result.content).toBe(
      'c\nb\n\n(Showing 2 of 3 paths, newest first. Full sorted result stored at: /spill/sess-1/0001-glob-results.txt. Use read with offset/limit, or grep this path to search within it.)',
    )
    expect(result.spilledTo).toBe('/spill/sess-1/0001-glob-results.txt')
    expect(store.saved[0]).toEqual({
      owner: 'sess-1',
      source: { toolName: 'glob', callId: 'call-9', label: 'result' },
      filename: 'glob-results.txt',
      text: 'c\nb\na\n',
    })
  })

  it('says "No files to show", not "No files found", when every listed file failed to stat', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 7, stderr: '/usr/bin/find: ‘x.ts’: Permission denied\n', stderrTruncated: true }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'No files to show\n\n(Listing incomplete: at least 1 file rg listed could not be examined for its modification time, so it is not shown: ‘x.ts’: Permission denied.)',
    )
  })

  it('keeps both notes when rg and the mtime helper each missed something', async () => {
    const stderr = `rg: ./locked: Permission denied (os error 13)\n${findFailed}`
    const { glob } = await fakeHarness(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr }))
    const { content } = await glob({ pattern: '*.ts' })
    expect(content).toContain(
      '(Search incomplete: rg could not read 1 path, so results from them are missing: ./locked: Permission denied (os error 13).)',
    )
    expect(content).toContain('(Listing incomplete: 2 files rg listed')
  })

  it('is incomplete, never complete, when the mtime helper failed without naming a file', async () => {
    const { glob } = await fakeHarness(() => ({ exitCode: 7, stdout: statRecords(['1', 'ok.ts']), stderr: '' }))
    expect((await glob({ pattern: '*.ts' })).content).toBe(
      'ok.ts\n\n(Listing incomplete: the modification-time helper failed without a message, so files rg listed may be missing.)',
    )
  })

  it('notes names that are not valid UTF-8, once per path, in the singular and the plural', async () => {
    const bad = (mtime: string, name: string, ...tail: number[]): Buffer =>
      Buffer.concat([Buffer.from(`${mtime}\t${name}`), Buffer.from(tail), Buffer.from('\0')])
    const one = await fakeHarness(() => ({
      stdout: Buffer.concat([bad('1', 'bad', 0xff, 0x2e, 0x74, 0x73), Buffer.from(statRecords(['2', 'ok.ts']))]),
    }))
    expect((await one.glob({ pattern: '*.ts' })).content).toBe(
      'ok.ts\nbad\ufffd.ts\n\n(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    )
    const two = await fakeHarness(() => ({ stdout: Buffer.concat([bad('1', 'a', 0xfe), bad('2', 'b\ufffd', 0xc3)]) }))
    expect((await two.glob({ pattern: '*' })).content).toContain('(2 paths contain U+FFFD')
  })

  it('says nothing of a U+FFFD a name or the directory it is listed from holds', async () => {
    const literal = await fakeHarness(() => ({ stdout: statRecords(['1', 'r\ufffd.ts'], ['2', 'ok.ts']) }))
    expect((await literal.glob({ pattern: '*.ts', path: 'd\ufffd' })).content).toBe('d\ufffd/ok.ts\nd\ufffd/r\ufffd.ts')
  })
})

describe('bounded pages and the spill (docs/design.md#bytes-not-only-counts)', () => {
  const tree = scratchDir('caps')
  beforeAll(() => writeCapsTree(tree))

  it('glob shows the cap and names a spill file under the root holding every path, newest first', async () => {
    const capped = await loadRealHarness({ spillRoot, search: { globMaxResults: 3 } })
    const result = await callTool(capped, 'glob', { pattern: '*.txt' }, tree, { session: 'sess-glob' })
    const locator = spillLocator(result.content)!
    expect(result.content).toBe(
      `f9.txt\nf8.txt\nf7.txt\n\n(Showing 3 of 10 paths, newest first. Full sorted result stored at: ${locator}. Use read with offset/limit, or grep this path to search within it.)`,
    )
    expect(locator.startsWith(join(spillRoot, 'sess-glob'))).toBe(true)
    expect(readSpill(locator)).toBe(`${Array.from({ length: 10 }, (_, i) => `f${9 - i}.txt`).join('\n')}\n`)
  })
})

describe('one bad record never sinks a search (docs/design.md#one-bad-record-never-sinks-a-search)', () => {
  const tree = scratchDir('bytes')
  beforeAll(() => writeBytesTree(tree))

  it('glob lists a non-UTF-8 name and notes the replaced bytes as grep does', async () => {
    expect((await callTool(harness, 'glob', { pattern: 'bad*' }, tree)).content).toBe(
      'bad\ufffd.txt\n\n(1 path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    )
  })
})
