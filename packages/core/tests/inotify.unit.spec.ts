// Which file systems a watch may trust.
import { describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { inotifyBursts, inotifyLimit, reportsEveryChange } from '../src/inotify.js'

describe('reportsEveryChange', () => {
  it('trusts the local file systems and no network or FUSE one', () => {
    // ext4, tmpfs, overlayfs; NFS, CIFS, FUSE, 9p.
    expect([0xef53, 0x01021994, 0x794c7630].map(reportsEveryChange)).toEqual([true, true, true])
    expect([0x6969, 0xff534d42, 0x65735546, 0x01021997].map(reportsEveryChange)).toEqual([false, false, false, false])
  })
})

describe('inotifyBursts', () => {
  it('counts a burst that reaches its limit as one overflow, and starts a new burst after the poll', async () => {
    const before = inotifyBursts.overflows
    for (let i = 0; i < 5; i++) inotifyBursts.event(3)
    expect(inotifyBursts.overflows).toBe(before + 1)
    await new Promise((resolve) => setImmediate(resolve))
    inotifyBursts.event(3)
    inotifyBursts.event(3)
    expect(inotifyBursts.overflows).toBe(before + 1)
    inotifyBursts.event(3)
    expect(inotifyBursts.overflows).toBe(before + 2)
  })
})

describe('inotifyLimit', () => {
  const dir = scratchDir('core-inotify-limit')
  it('reads a kernel limit from its /proc file, or falls back when it is missing or not a positive number', () => {
    const file = join(dir, 'limit')
    writeFileSync(file, '8192\n')
    expect(inotifyLimit(file, 1)).toBe(8192)
    writeFileSync(file, '-3\n')
    expect(inotifyLimit(file, 1)).toBe(1)
    expect(inotifyLimit(join(dir, 'no-limit'), 2)).toBe(2)
  })
})
