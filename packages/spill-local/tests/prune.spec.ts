import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createLocalSpillStore } from '@dsh/spill-local'
import { pruneOwnerDir } from '../src/prune.js'

const scratch = mkdtempSync(join(tmpdir(), 'spill-local-prune-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const NOW = Date.parse('2030-01-01T00:00:00Z')
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
let dirCount = 0

/** An owner dir holding the given files, each `bytes` long and last modified `ageMs` before NOW. */
function ownerDir(files: Record<string, { bytes: number; ageMs: number }>): string {
  const dir = join(scratch, `owner-${++dirCount}`)
  mkdirSync(dir)
  for (const [name, { bytes, ageMs }] of Object.entries(files)) {
    writeFileSync(join(dir, name), 'x'.repeat(bytes))
    const time = (NOW - ageMs) / 1000
    utimesSync(join(dir, name), time, time)
  }
  return dir
}

const spill = (n: number, name = 'r.txt'): string => `${n.toString(16).padStart(12, '0')}-${name}`
const policy = { maxAgeMs: DAY, maxBytesPerOwner: 1_000, now: NOW }
const keep = { name: spill(0), bytes: 100 }

describe('pruneOwnerDir', () => {
  it('deletes spill files older than maxAgeMs and keeps younger ones', async () => {
    const dir = ownerDir({ [spill(0)]: { bytes: 100, ageMs: 0 }, [spill(1)]: { bytes: 10, ageMs: 2 * DAY }, [spill(2)]: { bytes: 10, ageMs: HOUR } })
    await pruneOwnerDir(dir, keep, policy)
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(2)])
  })

  it('deletes the oldest files until the owner fits maxBytesPerOwner, counting the kept file', async () => {
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [spill(1)]: { bytes: 500, ageMs: 3 * HOUR },
      [spill(2)]: { bytes: 500, ageMs: 2 * HOUR },
      [spill(3)]: { bytes: 500, ageMs: HOUR },
    })
    await pruneOwnerDir(dir, keep, policy)
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(3)])
  })

  it('breaks a tie in age by name, deleting the first name first', async () => {
    const dir = ownerDir({ [spill(0)]: { bytes: 100, ageMs: 0 }, [spill(2)]: { bytes: 600, ageMs: HOUR }, [spill(1)]: { bytes: 600, ageMs: HOUR } })
    await pruneOwnerDir(dir, keep, policy)
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(2)])
  })

  it('never deletes the file just written, even when it alone passes the budget or looks old', async () => {
    const dir = ownerDir({ [spill(0)]: { bytes: 5_000, ageMs: 9 * DAY }, [spill(1)]: { bytes: 10, ageMs: MINUTE } })
    await pruneOwnerDir(dir, { name: spill(0), bytes: 5_000 }, policy)
    expect(readdirSync(dir)).toEqual([spill(0)])
  })

  it("leaves a concurrent save's fresh temp file alone and removes one stale past an hour", async () => {
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [`.tmp-${spill(1)}`]: { bytes: 5_000, ageMs: MINUTE },
      [`.tmp-${spill(2)}`]: { bytes: 10, ageMs: 2 * HOUR },
    })
    await pruneOwnerDir(dir, keep, { ...policy, maxAgeMs: 1 })
    expect(readdirSync(dir).sort()).toEqual([`.tmp-${spill(1)}`, spill(0)])
  })

  it('never touches what this store did not name, or a directory named like a spill file', async () => {
    const dir = ownerDir({ [spill(0)]: { bytes: 100, ageMs: 0 }, 'notes.txt': { bytes: 5_000, ageMs: 30 * DAY }, '.tmp-x': { bytes: 10, ageMs: 30 * DAY } })
    mkdirSync(join(dir, spill(9)))
    await pruneOwnerDir(dir, keep, { ...policy, maxBytesPerOwner: 1 })
    expect(readdirSync(dir).sort()).toEqual(['.tmp-x', spill(0), spill(9), 'notes.txt'].sort())
  })

  it('does nothing for an owner directory that does not exist', async () => {
    await expect(pruneOwnerDir(join(scratch, 'missing'), keep, policy)).resolves.toBeUndefined()
  })
})

describe('retention after a save', () => {
  it('applies the policy with the injected clock to the saving owner only', async () => {
    const root = join(scratch, 'store-root')
    const store = createLocalSpillStore({ root, maxAgeMs: DAY, maxBytesPerOwner: 1_000, now: () => NOW })
    const request = { source: { toolName: 'grep', callId: 'c', label: 'result' }, filename: 'r.txt' }
    const first = await store.saveText({ ...request, owner: 'a', text: 'old' })
    const other = await store.saveText({ ...request, owner: 'b', text: 'other' })
    for (const locator of [first.locator, other.locator]) utimesSync(locator, (NOW - 2 * DAY) / 1000, (NOW - 2 * DAY) / 1000)
    const second = await store.saveText({ ...request, owner: 'a', text: 'new' })
    expect(readdirSync(join(root, 'a'))).toEqual([second.locator.split('/').pop()])
    expect(readdirSync(join(root, 'b'))).toEqual([other.locator.split('/').pop()])
  })
})
