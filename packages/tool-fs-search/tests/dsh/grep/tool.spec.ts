import { describe, expect, it } from 'vitest'
import { rgLines } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'

describe('grep through the registry with a fake executor', () => {
  it('groups matches by file, sorted by path then line, with paths relative to the session cwd', async () => {
    const { bash, grep } = await fakeHarness(() => ({
      stdout: rgLines(
        ['./src/b.ts', 9, 'b9'],
        ['./src/a.ts', 3, 'a3\r'],
        ['./src/b.ts', 2, 'b2'],
        ['/work/repo/c.ts', 1, 'c1'],
        ['/elsewhere/d.ts', 4, 'd4'],
      ),
    }))
    const result = await grep({ pattern: 'x' })
    expect(result).toMatchObject({ isError: false })
    expect(result.content).toBe(
      'Found 5 matches\n\n/elsewhere/d.ts\nLine 4: d4\n\nc.ts\nLine 1: c1\n\nsrc/a.ts\nLine 3: a3\n\nsrc/b.ts\nLine 2: b2\nLine 9: b9',
    )
    expect(bash.requests.at(-1)).toMatchObject({
      workdir: '/work/repo',
      // The parser bounds its own memory: every byte rg prints reaches it (docs/design.md#results-bigger-than-memory).
      stdoutMaxBytes: Number.MAX_SAFE_INTEGER,
      timeoutMs: 30_000,
    })
    expect(result.value).toMatchObject({ total: 5, truncated: false, incomplete: [] })
  })
})
