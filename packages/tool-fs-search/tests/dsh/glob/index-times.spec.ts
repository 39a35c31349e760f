// glob with the index's times, over a fake index and executor: rg lists alone, the tool stamps, and the page says what it could not time.
import { describe, expect, it } from 'vitest'
import { loadHarness, type IndexTimesAnswer, type SearchIndex } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isProbe, MemorySpill, type Scripted } from '../../fake-bash.js'
import { agent, RG } from '../../fake-harness.js'

/** A fake index whose times come from a table (a string: why the file cannot be timed), and who asked. */
function fakeIndex(times: Record<string, number | string>): SearchIndex & { asked: string[] } {
  const asked: string[] = []
  const answer: IndexTimesAnswer = {
    kind: 'times',
    indexedFiles: Object.keys(times).length,
    changed: 1,
    timeOf: (name, start, end, out) => {
      const time = times[Buffer.from(name.subarray(start, end)).toString()]
      if (typeof time === 'string') return { unreadable: time }
      out.seconds = time ?? 0
      out.nanos = 0
      return time === undefined ? 'read' : 'recorded'
    },
  }
  return {
    asked,
    plan: () => Promise.reject(new Error('glob does not plan')),
    times: ({ dir }) => {
      asked.push(dir)
      return Promise.resolve(answer)
    },
  }
}

async function harness(script: (command: string) => Scripted, index: SearchIndex, config: Record<string, unknown> = {}) {
  const bash = new FakeBash((command) => (isProbe(command) ? {} : script(command)))
  const h = await loadHarness({
    plugins: [toolFsSearch],
    services: { bash, searchIndex: index, spillStore: new MemorySpill() },
    config: { 'tool-fs-search': { rgPath: RG, ...config } },
  })
  return { bash, glob: (args: Record<string, unknown>) => h.registry.execute('glob', args, { agent, callId: 'c1' }) }
}

describe('glob with the index giving the times', () => {
  it("lists with rg alone, orders by the index's times, and says how many it gave", async () => {
    const index = fakeIndex({ 'old.ts': 100, 'new.ts': 300 })
    const { bash, glob } = await harness(() => ({ stdout: 'old.ts\0new.ts\0mid.ts\0' }), index)
    const result = await glob({ pattern: '*.ts', path: 'src' })
    // mid.ts has no recorded time: read now, as 0 here.
    expect(result).toMatchObject({ isError: false, content: 'src/new.ts\nsrc/old.ts\nsrc/mid.ts' })
    const script = bash.searches().at(-1)!
    expect(script).toMatch(/\nexec \/opt\/rg --no-config --files --null .*<\/dev\/null$/)
    expect(script).not.toMatch(/-files0-from|perl| \| /)
    expect(index.asked).toEqual(['/work/repo/src'])
    expect(result.value).toMatchObject({ total: 3, index: { used: true, indexedFiles: 2, candidates: 2, changed: 1 } })
    expect(result.meta).toMatchObject({ index: { used: true, candidates: 2 } })
  })

  it('leaves out and names a file it could not time, as the helper would', async () => {
    const index = fakeIndex({ 'a.ts': 5, 'gone.ts': 'No such file or directory' })
    const { glob } = await harness(() => ({ stdout: 'a.ts\0gone.ts\0' }), index)
    const result = await glob({ pattern: '*.ts' })
    expect(result.content).toBe(
      'a.ts\n\n(Listing incomplete: 1 file rg listed could not be examined for its modification time, so it is not shown: ‘gone.ts’: No such file or directory.)',
    )
    expect(result.value).toMatchObject({ total: 1, incomplete: ['‘gone.ts’: No such file or directory'] })
  })

  it('pages what arrived before a timeout, a name cut short left out', async () => {
    const index = fakeIndex({ 'a.ts': 5, 'b.ts': 6 })
    const { glob } = await harness(() => ({ stdout: 'a.ts\0b.ts\0cut', stop: 'timeout', exitCode: null, signal: 'SIGTERM' }), index)
    const result = await glob({ pattern: '*.ts' })
    expect(result.content).toMatch(/^b\.ts\na\.ts\n\n\(Stopped after 30 s, the search's time limit: partial result, 2 files so far/)
    expect(result.value).toMatchObject({ total: 2 })
  })

  it('reads every time itself when the index is off', async () => {
    const index = fakeIndex({})
    const { bash, glob } = await harness(() => ({ stdout: '' }), index, { index: 'off' })
    await glob({ pattern: '*.ts' })
    expect(bash.searches().at(-1)).toMatch(/-files0-from/)
    expect(index.asked).toEqual([])
  })
})
