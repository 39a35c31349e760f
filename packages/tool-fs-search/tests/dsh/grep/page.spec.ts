import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { showMatches } from '../../../src/engine/grep/matches.js'
import { formatGrepPage } from '../../../src/dsh/grep/page.js'
import { retainGrepMatches } from '../../../src/dsh/grep/retain.js'
import { invalidUtf8, rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, scratchDirs, writeTree } from '../../real-harness.js'
import { parseOutput } from '../../engine/grep/parsed.js'

describe('the grep page through the registry', () => {
  it('says "No matches found" for exit 1', async () => {
    const { grep } = await fakeHarness(() => ({ exitCode: 1, stdout: 'D\0' }))
    expect(await grep({ pattern: 'x' })).toMatchObject({ isError: false, content: 'No matches found' })
  })

  it("notes binary files and lines that are not valid UTF-8, and not a U+FFFD of the file's own", async () => {
    const { grep } = await fakeHarness(() => ({
      stdout: invalidUtf8(
        `F\0./bin.dat: binary file matches (found "\\0" byte around offset 5)\n${rgLines(['./bad\xff.txt', 1, 'needle \xff'], ['./ok.txt', 2, 'needle \ufffd']).slice(2)}`,
      ),
    }))
    expect((await grep({ pattern: 'needle', path: 'bin.dat' })).content).toBe(
      'Found 2 matches\n\nbad\ufffd.txt\nLine 1: needle \ufffd\n\nok.txt\nLine 2: needle \ufffd\n\n(Binary file matched, lines not shown: bin.dat.)\n\n(1 matched line or path contains U+FFFD: bytes that are not valid UTF-8, shown replaced.)',
    )
  })

  it('notes several lossy lines in the plural, and a file rg stopped in after its matches', async () => {
    const { grep } = await fakeHarness(() => ({
      stdout: invalidUtf8(
        `${rgLines(['x', 1, '\xff'], ['y', 1, '\xff'], ['./z', 3, 'x'])}./z: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)\n`,
      ),
    }))
    const { content } = await grep({ pattern: 'x' })
    expect(content).toContain('(2 matched lines or paths contain U+FFFD')
    expect(content).toContain('(rg stopped at binary content in z, so matches after it are missing.)')
  })

  it('names several binary files in the plural', () => {
    const matches = showMatches(parseOutput('D\0'), (path) => path)
    const retained = retainGrepMatches(matches, { maxMatches: 1, maxBytes: 100, maxPerFile: 1 })
    const notes = { incomplete: { paths: [] }, stderrCut: false, binary: ['a', 'b'], binaryStopped: [], lossy: 0, escaped: 0 }
    expect(formatGrepPage(retained, undefined, notes)).toBe('No matching lines to show\n\n(Binary files matched, lines not shown: a, b.)')
  })

  it('counts several escaped lines in the plural', async () => {
    const { grep } = await fakeHarness(() => ({ stdout: rgLines(['a', 1, '\u001b'], ['a', 2, '\u0007']) }))
    expect((await grep({ pattern: 'x' })).content).toContain('(2 matched lines contain control or invisible characters')
  })
})

describe('the page through the real executor', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('errors')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'other\n' })
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('no match is a success with a plain message', async () => {
    expect(await callTool(harness, 'grep', { pattern: 'absent' }, tree)).toMatchObject({ isError: false, content: 'No matches found' })
    expect(await callTool(harness, 'glob', { pattern: '*.absent' }, tree)).toMatchObject({ isError: false, content: 'No files found' })
  })
})
