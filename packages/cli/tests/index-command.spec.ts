// `dsh index`: builds the index grep then uses by itself, with the same answer as without it.
import { join } from 'node:path'
import { readdirSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EXIT } from '@dsh/cli'
import { closeIndexWatchers } from '@dsh/index-local'
import { dsh, scratchDir, writeTree } from './io.js'

const dir = scratchDir('index-command')
const tree = join(dir, 'tree')
writeTree(tree, { 'src/a.ts': 'export function alpha() {}\n', 'src/b.ts': 'export const beta = 1\n', 'c.md': 'gamma\n' })
const config = join(dir, 'config.json')
const indexDir = join(dir, 'index')
// Three files: one candidate of three is past the default broad share (0.3).
writeFileSync(config, JSON.stringify({ 'index-local': { dir: indexDir, broadFraction: 0.5 } }))

describe('dsh index', () => {
  it('builds the index of the working directory and says what it covers and cost', async () => {
    const run = await dsh(['index', '--config', config], tree)
    expect(run.code).toBe(EXIT.ok)
    expect(run.stdout).toMatch(
      new RegExp(
        `^indexed 3 files \\(0\\.0 MiB\\) under ${tree} in [\\d.]+ s: [\\d.]+ MiB \\([\\d.]+x\\) at ${indexDir}/[0-9a-f]{32}/index\\.dshidx\\n$`,
      ),
    )
    const grep = await dsh(['grep', 'alpha', '--config', config, '--format', 'json'], tree)
    expect((JSON.parse(grep.stdout) as { meta: { index: unknown } }).meta.index).toEqual({
      used: true,
      indexedFiles: 3,
      candidates: 1,
      changed: 0,
    })
  })

  it('builds into --index-dir, reports JSON, and names files every search reads', async () => {
    writeTree(tree, { 'wide.txt': Buffer.from([0xff, 0xfe, 0x61, 0x00]) })
    const run = await dsh(['index', 'tree', '--index-dir', 'elsewhere', '--format', 'json'], dir)
    expect(run.code).toBe(EXIT.ok)
    expect(JSON.parse(run.stdout)).toMatchObject({
      root: tree,
      files: 4,
      alwaysRead: 1,
      indexPath: expect.stringContaining(join(dir, 'elsewhere')),
    })
    const text = await dsh(['index', 'tree', '--index-dir', 'elsewhere', '--rebuild'], dir)
    expect(text.stdout).toMatch(/^indexed 4 files .*; 1 files are read by every search \(too large, unreadable or UTF-16\)\n$/)
  })

  it('run again, keys only what changed since the build, and grep reads the update', async () => {
    const updated = join(dir, 'updated')
    writeTree(updated, { 'a.ts': 'alpha\n', 'b.ts': 'beta\n', 'c.ts': 'gamma\n', 'd.ts': 'delta\n' })
    const args = ['index', 'updated', '--config', config]
    expect((await dsh(args, dir)).stdout).toMatch(/^indexed 4 files/)
    writeFileSync(join(updated, 'b.ts'), 'beta alpha\n')
    const run = await dsh(args, dir)
    expect(run.code).toBe(EXIT.ok)
    expect(run.stdout).toMatch(
      new RegExp(
        `^updated the index of ${updated} in [\\d.]+ s: 1 files and directories changed since its build, 1 files \\(0\\.0 MiB\\) keyed again into [\\d.]+ MiB at ${indexDir}/[0-9a-f]{32}/update\\.dshidx\\n$`,
      ),
    )
    const grep = await dsh(['grep', 'alpha', '--config', config, '--format', 'json'], updated)
    expect((JSON.parse(grep.stdout) as { meta: { index: unknown } }).meta.index).toEqual({
      used: true,
      indexedFiles: 4,
      candidates: 2,
      changed: 0,
    })
    const json = await dsh([...args, '--format', 'json'], dir)
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'update', changed: 1, files: 1 })
    // An index that cannot be read is built whole, and the line says why.
    const home = join(
      indexDir,
      readdirSync(indexDir).find((name) => json.stdout.includes(name))!,
    )
    writeFileSync(join(home, 'index.dshidx'), 'damaged', { mode: 0o600 })
    const rebuilt = await dsh(args, dir)
    expect(rebuilt.stdout).toMatch(/^indexed 4 files .*; built whole, not updated: the index was refused: not a dsh index file\n$/)
  })

  it('is a usage error for a path that does not exist, and the index’s error for a file', async () => {
    const missing = await dsh(['index', 'nowhere', '--config', config], dir)
    expect(missing).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(missing.stderr).toContain(`index: ${join(dir, 'nowhere')} does not exist`)
    const file = await dsh(['index', 'tree/c.md', '--config', config], dir)
    expect(file).toMatchObject({ code: EXIT.usage, stdout: '' })
    expect(file.stderr).toContain('not a directory')
  })

  it('cancelled, says so, exits 130 and writes no index', async () => {
    writeTree(dir, { 'cancelled/a.ts': 'alpha\n' })
    const controller = new AbortController()
    controller.abort()
    const run = await dsh(['index', 'cancelled', '--index-dir', 'cancelled-index'], dir, { signal: controller.signal })
    expect(run).toEqual({ code: EXIT.interrupted, stdout: '', stderr: 'dsh: index: cancelled; the index is as it was\n' })
    expect(readdirSync(join(dir, 'cancelled-index'))).toHaveLength(1)
    expect(readdirSync(join(dir, 'cancelled-index', readdirSync(join(dir, 'cancelled-index'))[0]!))).toEqual([])
  })

  it('in the warm server, cancelled during the update from its watcher, says so and exits 130', async () => {
    writeTree(dir, { 'watched/a.ts': 'alpha\n' })
    expect((await dsh(['index', 'watched', '--config', config], dir)).code).toBe(EXIT.ok)
    // A search in a process that outlives it (warm) starts the index's watcher.
    expect((await dsh(['grep', 'alpha', 'watched', '--config', config], dir, { warm: true })).code).toBe(EXIT.ok)
    writeFileSync(join(dir, 'watched/a.ts'), 'omega\n')
    const held: string[] = []
    const served = { admit: () => void held.push('admitted'), decline: (why: string) => void held.push(why) }
    const controller = new AbortController()
    controller.abort()
    const run = await dsh(['index', 'watched', '--config', config], dir, { warm: true, served, signal: controller.signal })
    expect(run).toEqual({ code: EXIT.interrupted, stdout: '', stderr: 'dsh: index: cancelled; the index is as it was\n' })
    expect(held).toEqual(['admitted'])
    await closeIndexWatchers()
  })

  it('reports an empty tree', async () => {
    writeTree(dir, { 'empty/.keep': '' })
    const run = await dsh(['index', 'empty', '--config', config], dir)
    expect(run.stdout).toMatch(/^indexed 1 files \(0\.0 MiB\) .*\(0\.00x\)/)
  })
})
