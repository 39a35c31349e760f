import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { rgLines, statRecords } from '../fake-bash.js'
import { fakeHarness } from '../fake-harness.js'
import { callTool, FORGE_TREE, loadRealHarness, scratchDirs, writeTree } from '../real-harness.js'

describe('control characters through the registry', () => {
  it('escapes control characters in lines and paths, keeps tabs, and says so in a footer', async () => {
    const { grep } = await fakeHarness(() => ({
      stdout: rgLines(['./e\u001b[2Jx', 1, 'a\u001b[31m\tb\rLine 2: forged\u0000\u007f\u009b'], ['./ok', 2, 'plain\tline']),
    }))
    expect((await grep({ pattern: 'x' })).content).toBe(
      [
        'Found 2 matches',
        '"e\\u001b[2Jx"\nLine 1: a\\u001b[31m\tb\\rLine 2: forged\\u0000\\u007f\\u009b',
        'ok\nLine 2: plain\tline',
        '(1 matched line contains control characters, shown escaped as \\u001b, \\r and the like.)',
      ].join('\n\n'),
    )
  })

  it('escapes every control character in a path, DEL and C1 included', async () => {
    const { glob } = await fakeHarness(() => ({ stdout: statRecords(['1', 'a\u001b[2J\rb\u007fc\u009bd']) }))
    expect((await glob({ pattern: '*' })).content).toBe('"a\\u001b[2J\\rb\\u007fc\\u009bd"')
  })
})

describe('output a repository cannot forge', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('forge')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, FORGE_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('control characters in lines and paths are escaped, and a footer says so', async () => {
    const grep = await callTool(harness, 'grep', { pattern: 'needle', include: '{esc,e*x*}.txt' }, tree)
    expect(grep.content).toBe(
      [
        'Found 2 matches',
        '"e\\u001bx\\u007f.txt"\nLine 1: needle',
        'esc.txt\nLine 1: needle \\u001b[31mred\\u001b[0m\\rLine 9: fake\\u0007',
        '(1 matched line contains control characters, shown escaped as \\u001b, \\r and the like.)',
      ].join('\n\n'),
    )
    expect((await callTool(harness, 'glob', { pattern: 'e*x*.txt' }, tree)).content).toBe('"e\\u001bx\\u007f.txt"')
  })
})
