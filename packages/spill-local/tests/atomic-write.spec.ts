import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createLocalSpillStore } from '@dsh/spill-local'
import { writeFileAtomic } from '../src/atomic-write.js'
import { makeDirectory } from '../src/directories.js'

const scratch = mkdtempSync(join(tmpdir(), 'spill-local-write-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('writeFileAtomic', () => {
  it('writes the whole text with mode 0600 and leaves no temp file', async () => {
    const dir = mkdtempSync(join(scratch, 'ok-'))
    await writeFileAtomic(join(dir, 'out.txt'), 'héllo\n')
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('héllo\n')
    expect(statSync(join(dir, 'out.txt')).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })

  it('removes its temp file and rethrows when the rename fails', async () => {
    const dir = mkdtempSync(join(scratch, 'blocked-'))
    mkdirSync(join(dir, 'out.txt'))
    await expect(writeFileAtomic(join(dir, 'out.txt'), 'text')).rejects.toMatchObject({ code: 'EISDIR' })
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })
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
  it('refuse a symlinked owner directory that would lead out of the root', async () => {
    const root = mkdtempSync(join(scratch, 'root-'))
    const outside = mkdtempSync(join(scratch, 'outside-'))
    symlinkSync(outside, join(root, 'victim'))
    const store = createLocalSpillStore({ root })
    const save = store.saveText({ owner: 'victim', source: { toolName: 'glob', callId: 'c', label: 'result' }, text: 't', filename: 'f.txt' })
    await expect(save).rejects.toMatchObject({ code: 'SPILL_WRITE_FAILED', message: expect.stringContaining('symbolic link') })
    expect(readdirSync(outside)).toEqual([])
  })

  it('refuse an owner path that is a file', async () => {
    const root = mkdtempSync(join(scratch, 'root-'))
    writeFileSync(join(root, 'occupied'), '')
    const store = createLocalSpillStore({ root })
    const save = store.saveText({ owner: 'occupied', source: { toolName: 'glob', callId: 'c', label: 'result' }, text: 't', filename: 'f.txt' })
    await expect(save).rejects.toMatchObject({ code: 'SPILL_WRITE_FAILED' })
  })
})
