import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { budgetMs } from '../../../test-support/budget.js'
import { waitUntil } from '../../../test-support/processes.js'
import { ProcessGroup } from '../src/process-group.js'
import { liveGroupMembers, waitForEmptyGroup } from './process-table.js'

/** A detached `bash -c script` (the leader of a group of its own, as the executor starts commands), once its sleep runs. */
async function group(script: string): Promise<number> {
  const pgid = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' }).pid!
  if (!(await waitUntil(() => liveGroupMembers(pgid).length === 2, 5_000))) throw new Error('the group never started its sleep')
  return pgid
}

describe('ProcessGroup', () => {
  it('SIGKILLs a group that ignores SIGTERM once the grace has passed, and not before', async () => {
    const pgid = await group('trap "" TERM; sleep 300 & wait')
    const stopping = new ProcessGroup(pgid, 300)
    stopping.terminate()
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(liveGroupMembers(pgid)).toHaveLength(2)
    expect(await waitForEmptyGroup(pgid, budgetMs(2_000))).toEqual([])
    stopping.finish()
  })

  it('finish SIGKILLs whatever is left of the group at once', async () => {
    const pgid = await group('sleep 300 & wait')
    const finished = new ProcessGroup(pgid, 60_000)
    finished.finish()
    expect(await waitForEmptyGroup(pgid, budgetMs(1_000))).toEqual([])
  })
})
