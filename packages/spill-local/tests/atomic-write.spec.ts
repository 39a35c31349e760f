import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeFileAtomic } from '../src/atomic-write.js'

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
