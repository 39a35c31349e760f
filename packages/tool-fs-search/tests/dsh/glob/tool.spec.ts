import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, statRecords } from '../../fake-bash.js'
import { fakeHarness } from '../../fake-harness.js'

describe('glob through the registry with a fake executor', () => {
  it('lists newest first, relative to the session cwd, from the search root', async () => {
    const { bash, glob } = await fakeHarness(() => ({ stdout: statRecords(['100', 'old.ts'], ['300', 'new.ts'], ['200', 'mid.ts']) }))
    const result = await glob({ pattern: '*.ts', path: 'src' })
    expect(result).toMatchObject({ isError: false, content: 'src/new.ts\nsrc/mid.ts\nsrc/old.ts' })
    expect(bash.searches().at(-1)).toMatch(/^\[ -d \.\/src \] .*\ncd -- \.\/src \|\| exit 3\n/)
    expect(bash.requests.at(-1)).toMatchObject({ workdir: '/work/repo', onStdoutOverflow: 'kill' })
    expect(result.value).toEqual({ paths: ['src/new.ts', 'src/mid.ts', 'src/old.ts'], total: 3, truncated: false, incomplete: [] })
  })

  it('presents a pending call as a search card', async () => {
    const { glob } = await fakeHarness(() => ({}))
    await glob({ pattern: '*' })
    const tool = (await loadHarness({ plugins: [toolFsSearch], services: { bash: new FakeBash() } })).registry
    expect(tool.get('glob')?.presentCall?.({ pattern: '*.ts' })).toEqual({ card: 'generic', kind: 'search', title: 'glob *.ts' })
    expect(tool.get('glob')?.presentCall?.({ pattern: '*.ts', path: 'src' })).toEqual({
      card: 'generic',
      kind: 'search',
      title: 'glob *.ts',
      detail: 'src',
    })
    expect(tool.get('grep')?.presentCall?.({ pattern: 'x' })).toEqual({ card: 'generic', kind: 'search', title: 'grep x' })
    expect(tool.get('grep')?.presentCall?.({ pattern: 'x', path: 'a' })).toMatchObject({ detail: 'a' })
  })
})
