import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SpillSaveRequest } from '@dsh/core'
import { createLocalSpillStore } from '@dsh/spill-local'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { ensureOwnerDir, makeDirectory, OWNER_MARKER } from '../src/directories.js'

const scratch = scratchDir('spill-local-dirs')

const request = (owner: string): SpillSaveRequest => ({
  owner,
  source: { toolName: 'grep', callId: 'c', label: 'result' },
  text: 't',
  filename: 'f.txt',
})

describe('makeDirectory', () => {
  it('creates missing parents and reports whether it created the directory', async () => {
    const dir = join(scratch, 'a', 'b', 'c')
    expect(await makeDirectory(dir)).toBe(true)
    expect(await makeDirectory(dir)).toBe(false)
  })

  it('gives up with ENOENT where a parent exists but cannot hold children, instead of spinning', async () => {
    await expect(makeDirectory('/proc/dsh-spill/owner')).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('owner directories', () => {
  it('are created 0700 holding the marker, and found again by a later store', async () => {
    const root = mkdtempSync(join(scratch, 'root-'))
    const first = await createLocalSpillStore({ root }).saveText(request('cli'))
    expect(statSync(join(root, 'cli')).mode & 0o777).toBe(0o700)
    expect(readFileSync(join(root, 'cli', OWNER_MARKER), 'utf8')).toMatch(/dsh spill store/)
    const second = await createLocalSpillStore({ root }).saveText(request('cli'))
    expect(readdirSync(join(root, 'cli')).sort()).toEqual(
      [OWNER_MARKER, first.locator.split('/').pop(), second.locator.split('/').pop()].sort(),
    )
    expect(readdirSync(root)).toEqual(['cli'])
  })

  it('that already exist unmarked are never chmodded, written into or pruned: the save fails with SPILL_FOREIGN_DIR', async () => {
    // `dsh --spill-dir .` in a repository with a cli/ directory, cli being the default session.
    const root = mkdtempSync(join(scratch, 'repo-'))
    const users = join(root, 'cli')
    mkdirSync(users)
    chmodSync(users, 0o755)
    const files = { '0123456789ab-x': 'user data\n', 'main.ts': 'code\n' }
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(users, name), text)
      utimesSync(join(users, name), 1, 1)
    }
    const store = createLocalSpillStore({ root, maxAgeMs: 1, maxBytesPerOwner: 1, minAgeMs: 0 })
    await expect(store.saveText(request('cli'))).rejects.toMatchObject({
      name: 'SpillError',
      code: 'SPILL_FOREIGN_DIR',
      message: expect.stringMatching(
        /could not save the complete grep result .*cli already exists and was not created by the spill store .*configure another spill root or session/,
      ),
    })
    expect(statSync(users).mode & 0o777).toBe(0o755)
    expect(readdirSync(users).sort()).toEqual(Object.keys(files).sort())
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(users, name), 'utf8')).toBe(text)
    expect(readdirSync(root)).toEqual(['cli'])
  })

  it('refuse a symlinked owner directory that would lead out of the root', async () => {
    const root = mkdtempSync(join(scratch, 'root-'))
    const outside = mkdtempSync(join(scratch, 'outside-'))
    symlinkSync(outside, join(root, 'victim'))
    const save = createLocalSpillStore({ root }).saveText(request('victim'))
    await expect(save).rejects.toMatchObject({ code: 'SPILL_FOREIGN_DIR', message: expect.stringContaining('symbolic link') })
    expect(readdirSync(outside)).toEqual([])
  })

  it('refuse an owner path that is a file', async () => {
    const root = mkdtempSync(join(scratch, 'root-'))
    writeFileSync(join(root, 'occupied'), '')
    const save = createLocalSpillStore({ root }).saveText(request('occupied'))
    await expect(save).rejects.toMatchObject({ code: 'SPILL_FOREIGN_DIR', message: expect.stringContaining('not a directory') })
  })

  it('created by racing saves end up one marked directory, with no temp directory left', async () => {
    const root = mkdtempSync(join(scratch, 'race-'))
    const dir = join(root, 'owner')
    await Promise.all(Array.from({ length: 20 }, () => ensureOwnerDir(root, dir)))
    expect(readdirSync(root)).toEqual(['owner'])
    expect(readdirSync(dir)).toEqual([OWNER_MARKER])
  })

  it('fail with SPILL_WRITE_FAILED when the owner path cannot be looked at (a symlink loop as the root)', async () => {
    const base = mkdtempSync(join(scratch, 'loop-'))
    symlinkSync('loop-b', join(base, 'loop-a'))
    symlinkSync('loop-a', join(base, 'loop-b'))
    const save = createLocalSpillStore({ root: join(base, 'loop-a') }).saveText(request('o'))
    await expect(save).rejects.toMatchObject({ code: 'SPILL_WRITE_FAILED', cause: expect.objectContaining({ code: 'ELOOP' }) })
  })
})
