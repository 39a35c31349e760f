// `dsh --profile claude-code` and its config: Claude Code's tools, their schemas, and grep's flags from Grep's schema.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { EXIT } from '@dsh/cli'
import { dsh, scratchDir, writeTree } from './io.js'

const tree = scratchDir('profile')
const spill = scratchDir('profile-spill')
beforeAll(() => {
  writeTree(tree, { 'a.ts': 'one\nNeedle\nthree\n', 'b.js': 'needle\n', 'c.md': 'x\n' })
  writeFileSync(
    join(tree, 'cc.json'),
    JSON.stringify({ 'tool-fs-search': { profile: 'claude-code' }, 'tool-fs': { profile: 'claude-code' } }),
  )
  writeFileSync(join(tree, 'dsh.json'), JSON.stringify({ 'tool-fs-search': { profile: 'dsh' } }))
})

const run = (argv: readonly string[]) => dsh(['--spill-dir', spill, ...argv], tree)
const schemas = async (argv: readonly string[]) =>
  (JSON.parse((await run(['tools', '--format', 'json', ...argv])).stdout) as ToolListing[]).map((tool) => [
    tool.name,
    Object.keys(tool.inputSchema.properties ?? {}),
  ])

describe('dsh with the claude-code profile', () => {
  it("tools --config lists exactly each profile's schemas", async () => {
    const claude = [
      ['Glob', ['pattern', 'path']],
      [
        'Grep',
        ['pattern', 'path', 'glob', 'output_mode', '-B', '-A', '-C', 'context', '-n', '-i', 'type', 'head_limit', 'offset', 'multiline'],
      ],
      ['Read', ['file_path', 'offset', 'limit']],
    ]
    expect(await schemas(['--config', 'cc.json'])).toEqual(claude)
    expect(await schemas(['--profile', 'claude-code'])).toEqual(claude)
    const ours = [
      ['glob', ['pattern', 'path']],
      ['grep', ['pattern', 'path', 'include']],
      ['read', ['path', 'offset', 'limit']],
    ]
    expect(await schemas(['--config', 'dsh.json'])).toEqual(ours)
    expect(await schemas(['--profile', 'dsh', '--config', 'cc.json'])).toEqual(ours)
  })

  it("gives dsh grep Grep's flags: -i, -C, --type, --output-mode, --head-limit, --offset, --multiline", async () => {
    const cc = ['--profile', 'claude-code']
    expect(await run([...cc, 'grep', 'needle', '-i', '--output-mode', 'count'])).toEqual({
      code: EXIT.ok,
      stdout: 'Found 2 matching lines in 2 files\n\na.ts:1\nb.js:1\n',
      stderr: '',
    })
    expect((await run([...cc, 'grep', 'needle', '-i', '--output-mode', 'content', '-C', '1', '--type', 'ts'])).stdout).toBe(
      'Found 1 matching line in 1 file, with 2 context lines\n\na.ts\nLine 1- one\nLine 2: Needle\nLine 3- three\n',
    )
    expect((await run([...cc, 'grep', 'one.Needle', '--multiline', '--output-mode', 'count'])).stdout).toBe(
      'Found 1 matching line in 1 file\n\na.ts:1\n',
    )
    const page = await run([...cc, 'grep', 'needle', '-i', '--head-limit', '1', '--offset', '1', '-A', '0', '-B', '0'])
    expect(page.stdout).toMatch(/^Found 2 files, newest modified first\n\n\S+\n\n\(Showing files 2-2 of 2: the end of the result\.\)\n$/)
    expect((await run([...cc, 'grep', '--help'])).stdout).toContain('[--output-mode OUTPUT_MODE]')
    expect((await run([...cc, 'glob', '*.md'])).stdout).toBe('c.md\n')
    expect((await run([...cc, 'read', 'b.js', '--format', 'lines'])).stdout).toBe('needle\n')
    expect((await run([...cc, 'Glob', '*.md', '--format', 'lines'])).stdout).toBe('c.md\n')
  })

  it('refuses an unknown profile and a bad flag value as usage errors', async () => {
    expect(await run(['--profile', 'vim', 'tools'])).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining('--profile must be dsh or claude-code'),
    })
    expect(await run(['--profile', 'claude-code', 'grep', 'x', '--head-limit', 'lots'])).toMatchObject({
      code: EXIT.usage,
      stderr: expect.stringContaining('--head-limit must be a number'),
    })
    expect(await run(['--profile', 'claude-code', 'grep', 'x', '--format', 'lines'])).toMatchObject({ code: EXIT.usage })
  })
})
