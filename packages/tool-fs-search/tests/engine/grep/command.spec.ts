import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { buildGrepCommand } from '../../../src/engine/grep/command.js'
import { planInclude } from '../../../src/engine/grep/include.js'
import { RG } from '../../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, scratchDirs, writeTree } from '../../real-harness.js'

describe('the grep script', () => {
  it('puts the pattern after -e and the target after --, reads stdin from /dev/null and ignores user config', () => {
    const command = buildGrepCommand({
      rg: RG,
      pattern: '-rf $(touch x)',
      target: '-dir with space',
      plan: planInclude(undefined),
      maxLineBytes: 2000,
    })
    expect(command).toBe(
      [
        "if [ -d './-dir with space' ]; then cd -- './-dir with space' || exit 3; printf 'D\\0'; set -- -- .",
        "elif [ -e './-dir with space' ]; then printf 'F\\0'; set -- -- './-dir with space'",
        'else exit 4; fi',
        "/opt/rg --no-config --null --line-number --with-filename --no-heading '--color=never' '--max-columns=2000' --max-columns-preview --hidden '--glob=!.git' '--glob=!.svn' '--glob=!.hg' '--glob=!.bzr' '--glob=!.jj' '--glob=!.sl' -e '-rf $(touch x)' \"$@\" </dev/null",
      ].join('\n'),
    )
  })

  it('narrows the search to the directory of an "every file under X" include', () => {
    const command = buildGrepCommand({ rg: RG, pattern: 'x', target: '/abs', plan: planInclude('src/lib/**'), maxLineBytes: 100 })
    expect(command).toContain("cd -- /abs || exit 3; printf 'D\\0'; [ -e ./src/lib ] || exit 1; set -- -- ./src/lib")
    expect(command).not.toContain('--glob=src')
  })

  it('searches a plain-name include as the directory when there is one, else as file names', () => {
    expect(buildGrepCommand({ rg: RG, pattern: 'x', target: '.', plan: planInclude('src'), maxLineBytes: 100 })).toContain(
      "if [ -d ./src ]; then set -- -- ./src; else set -- '--type-add=dshinclude:src' '--type=dshinclude' -- .; fi",
    )
  })
})

describe('the grep script through the real executor', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('names')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, NAMES_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('grep searches one named file', async () => {
    expect((await callTool(harness, 'grep', { pattern: 'needle', path: 'sub/inner.txt' }, tree)).content).toBe(
      'Found 1 match\n\nsub/inner.txt\nLine 1: needle',
    )
  })

  it('grep skips a binary file inside a searched directory', async () => {
    expect((await callTool(harness, 'grep', { pattern: 'needle', path: 'sub' }, tree)).content).toBe(
      'Found 1 match\n\nsub/inner.txt\nLine 1: needle',
    )
    expect((await callTool(harness, 'grep', { pattern: 'needle', include: '*.bin' }, tree)).content).toBe('No matches found')
  })
})
