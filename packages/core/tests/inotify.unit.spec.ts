// Which file systems a watch may trust.
import { describe, expect, it } from 'vitest'
import { inotifyBursts, reportsEveryChange } from '../src/inotify.js'

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
