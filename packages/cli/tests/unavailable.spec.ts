// dsh where no ripgrep runs: glob and grep exist but are withheld, and saying so is the answer.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { EXIT } from '@dsh/cli'
import { dsh, scratchDir, writeTree } from './io.js'

// No packaged rg, as on a platform @vscode/ripgrep ships no binary for.
vi.mock('@vscode/ripgrep', () => {
  throw new Error('Could not find the @vscode/ripgrep binary for this platform')
})

const tree = scratchDir('unavailable')
const spill = scratchDir('unavailable-spill')
const config = join(tree, 'no-rg.json')
beforeAll(() => {
  writeTree(tree, { 'a.txt': 'needle\n' })
  // No rg at the configured path, nor on the executor's PATH.
  writeFileSync(
    config,
    JSON.stringify({ 'tool-fs-search': { rgPath: '/nonexistent/rg' }, 'bash-local': { envSet: { PATH: '/nonexistent' } } }),
  )
})

const run = (argv: readonly string[]) => dsh(['--spill-dir', spill, '--config', config, ...argv], tree)
const REASON =
  'ripgrep is not runnable in the bash executor (tried /nonexistent/rg, rg). Install ripgrep (e.g. apt-get install ripgrep), or set rgPath in the tool-fs-search config to an rg binary.'
const WARNING = `dsh: warning: tool-fs-search: glob and grep are not registered: ${REASON}\n`

describe('dsh without a runnable ripgrep', () => {
  it.each(['grep', 'glob'])('%s says it is unavailable, what was tried and how to fix it, and exits 2', async (tool) => {
    expect(await run([tool, 'needle'])).toEqual({
      code: EXIT.error,
      stdout: '',
      stderr: `${WARNING}${tool} is unavailable: ${REASON}\n`,
    })
  })

  it('grep --format json prints the failure with its code on stdout', async () => {
    const result = await run(['grep', 'needle', '--format', 'json'])
    expect(result.code).toBe(EXIT.error)
    expect(JSON.parse(result.stdout)).toEqual({
      isError: true,
      errorCode: 'TOOL_UNAVAILABLE',
      content: `grep is unavailable: ${REASON}`,
      meta: null,
      view: null,
    })
  })

  it('grep --format html prints a page with the failure and no script', async () => {
    const result = await run(['grep', 'needle', '--format', 'html'])
    expect(result.code).toBe(EXIT.error)
    expect(result.stdout).toContain('<title>dsh grep</title>')
    expect(result.stdout).toContain('<p class="error">TOOL_UNAVAILABLE</p>')
    expect(result.stdout).toContain('script-src &#39;none&#39;')
    expect(result.stdout).not.toContain('<script')
  })

  it('--help lists them as unavailable, and a typo still finds them', async () => {
    const help = await run(['--help'])
    expect(help.stdout).toMatch(/\n {2}dsh glob +unavailable here; dsh glob says why\n {2}dsh grep +unavailable here; dsh grep says why\n/)
    expect((await run(['gerp'])).stderr).toBe(`${WARNING}dsh: unknown command "gerp"; did you mean grep?\n`)
  })

  it('read still works', async () => {
    expect(await run(['read', 'a.txt'])).toEqual({ code: 0, stdout: '     1\tneedle\n', stderr: WARNING })
  })
})
