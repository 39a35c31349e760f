import { beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '@dsh/core'
import { buildGlobCommand } from '../../../src/engine/glob/command.js'
import { fakeHarness } from '../../fake-harness.js'
import { callTool, loadRealHarness, NAMES_TREE, scratchDirs, writeTree } from '../../real-harness.js'

describe('the glob script', () => {
  it('lists from inside the root, unsorted, with the model glob before the VCS excludes, in POSIX sh', () => {
    const list =
      "/opt/rg --no-config --files --null --no-ignore --hidden '--color=never' '--glob=-*.ts' '--glob=!.git' '--glob=!.svn' '--glob=!.hg' '--glob=!.bzr' '--glob=!.jj' '--glob=!.sl' </dev/null"
    const dir = "'./it'\\''s $(x)'"
    expect(buildGlobCommand({ rg: '/opt/rg', lister: { helper: 'find', find: '/usr/bin/find' }, root: "it's $(x)", glob: '-*.ts' })).toBe(
      [
        `[ -d ${dir} ] || { [ -e ${dir} ] && exit 5; exit 4; }`,
        `cd -- ${dir} || exit 3`,
        'exec 4>&1',
        `s=$( { { ${list}; echo "r$?" >&3; } | { /usr/bin/find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'; echo "h$?" >&3; } >&4; } 3>&1 )`,
        'r=${s#*r}; r=${r%%[!0-9]*}; h=${s#*h}; h=${h%%[!0-9]*}',
        '[ "$h" -lt 126 ] || exit 125',
        '[ "$h" -eq 0 ] || [ "$r" -gt 2 ] || exit 7',
        'exit "$r"',
      ].join('\n'),
    )
  })

  it("with dd, gathers the helper's output into large blocks, and exits 125 when dd fails", () => {
    const script = buildGlobCommand({
      rg: '/opt/rg',
      lister: { helper: 'find', find: '/usr/bin/find', dd: '/bin/dd' },
      root: '.',
      glob: '*',
    })
    expect(script).toContain(
      `| { { /usr/bin/find -files0-from - -maxdepth 0 -printf '%T@\\t%p\\0'; echo "h$?" >&3; } | /bin/dd 'bs=256k' 'iflag=fullblock' 'status=none'; echo "d$?" >&3; } >&4; } 3>&1 )`,
    )
    expect(script).toContain('\nd=${s#*d}; d=${d%%[!0-9]*}\n[ "$d" -eq 0 ] || exit 125\n')
  })

  it('runs the mtime helpers the probe resolved, by absolute path', async () => {
    const { bash, glob } = await fakeHarness(() => ({}))
    await glob({ pattern: '*' })
    expect(bash.searches().at(-1)).toContain('| { /usr/bin/find -files0-from - -maxdepth 0 -printf \'%T@\\t%p\\0\'; echo "h$?" >&3; }')
  })
})

describe('the glob script through the real executor', () => {
  const scratchDir = scratchDirs()
  const tree = scratchDir('names')
  let harness: Harness
  beforeAll(async () => {
    writeTree(tree, NAMES_TREE)
    harness = await loadRealHarness({ spillRoot: scratchDir('spill') })
  })

  it('glob searches from its path', async () => {
    expect((await callTool(harness, 'glob', { pattern: '*', path: 'sub' }, tree)).content).toBe('sub/inner.txt')
  })
})
