import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLocalSpillStore } from '@dsh/spill-local'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { OWNER_MARKER } from '../src/directories.js'
import { pruneOwnerDir } from '../src/prune.js'

const scratch = scratchDir('spill-local-prune')

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
const policy = { maxAgeMs: DAY, maxBytesPerOwner: 1_000, minAgeMs: 0, now: NOW }
const keep = { name: spill(0), bytes: 100 }

describe('pruneOwnerDir', () => {
  it('deletes spill files older than maxAgeMs and keeps younger ones', async () => {
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [spill(1)]: { bytes: 10, ageMs: 2 * DAY },
      [spill(2)]: { bytes: 10, ageMs: HOUR },
    })
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
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [spill(2)]: { bytes: 600, ageMs: HOUR },
      [spill(1)]: { bytes: 600, ageMs: HOUR },
    })
    await pruneOwnerDir(dir, keep, policy)
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(2)])
  })

  it('never deletes the file just written, even when it alone passes the budget or looks old', async () => {
    const dir = ownerDir({ [spill(0)]: { bytes: 5_000, ageMs: 9 * DAY }, [spill(1)]: { bytes: 10, ageMs: MINUTE } })
    await pruneOwnerDir(dir, { name: spill(0), bytes: 5_000 }, policy)
    expect(readdirSync(dir)).toEqual([spill(0)])
  })

  it('never deletes a file younger than minAgeMs, though the owner stays past its budget', async () => {
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [spill(1)]: { bytes: 500, ageMs: HOUR },
      [spill(2)]: { bytes: 500, ageMs: 5 * MINUTE },
      [spill(3)]: { bytes: 500, ageMs: MINUTE },
    })
    await pruneOwnerDir(dir, keep, { ...policy, minAgeMs: 10 * MINUTE })
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(2), spill(3)])
  })

  it('keeps a file dated after the clock while there is a grace, and deletes it with the grace off', async () => {
    // A clock stepped back, or a sub-millisecond mtime a hair past Date.now()'s whole millisecond.
    const ahead = { [spill(0)]: { bytes: 100, ageMs: 0 }, [spill(1)]: { bytes: 1_000, ageMs: -0.5 } }
    const graced = ownerDir(ahead)
    await pruneOwnerDir(graced, keep, { ...policy, minAgeMs: MINUTE })
    expect(readdirSync(graced).sort()).toEqual([spill(0), spill(1)])
    const strict = ownerDir(ahead)
    await pruneOwnerDir(strict, keep, policy)
    expect(readdirSync(strict)).toEqual([spill(0)])
  })

  it('never deletes a file younger than minAgeMs by age either, when maxAgeMs is shorter', async () => {
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      [spill(1)]: { bytes: 10, ageMs: 5 * MINUTE },
      [spill(2)]: { bytes: 10, ageMs: 20 * MINUTE },
    })
    await pruneOwnerDir(dir, keep, { ...policy, maxAgeMs: MINUTE, minAgeMs: 10 * MINUTE })
    expect(readdirSync(dir).sort()).toEqual([spill(0), spill(1)])
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
    const dir = ownerDir({
      [spill(0)]: { bytes: 100, ageMs: 0 },
      'notes.txt': { bytes: 5_000, ageMs: 30 * DAY },
      '.tmp-x': { bytes: 10, ageMs: 30 * DAY },
    })
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
    expect(readdirSync(join(root, 'a')).sort()).toEqual([OWNER_MARKER, second.locator.split('/').pop()].sort())
    expect(readdirSync(join(root, 'b')).sort()).toEqual([OWNER_MARKER, other.locator.split('/').pop()].sort())
  })

  it('keeps the files minAgeMs protects by default, and deletes them at once with minAgeMs 0', async () => {
    const request = { owner: 'a', source: { toolName: 'grep', callId: 'c', label: 'result' }, filename: 'r.txt', text: 'x'.repeat(600) }
    const spillNames = (root: string) => readdirSync(join(root, 'a')).filter((name) => name !== OWNER_MARKER)
    const graced = join(scratch, 'graced-root')
    const store = createLocalSpillStore({ root: graced, maxBytesPerOwner: 1_000 })
    for (let i = 0; i < 3; i++) await store.saveText(request)
    expect(spillNames(graced)).toHaveLength(3)
    const strict = join(scratch, 'strict-root')
    const strictStore = createLocalSpillStore({ root: strict, maxBytesPerOwner: 1_000, minAgeMs: 0 })
    let last = ''
    for (let i = 0; i < 3; i++) last = (await strictStore.saveText(request)).locator
    expect(spillNames(strict)).toEqual([last.split('/').pop()])
  })
})
