import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { killLiveGroups, ProcessGroup } from '../src/process-group.js'
import { waitForEmptyGroup } from './process-table.js'

describe('killLiveGroups', () => {
  it('kills the groups still running when the host exits, and forgets finished ones', async () => {
    const child = spawn('bash', ['-c', 'sleep 300 & wait'], { detached: true, stdio: 'ignore' })
    const running = new ProcessGroup(child.pid!, 1_000)
    const finished = new ProcessGroup(2 ** 22 - 1, 1_000) // no such group: its kill finds nothing
    finished.finish()
    expect(running).toBeInstanceOf(ProcessGroup)
    killLiveGroups()
    expect(await waitForEmptyGroup(child.pid!, 2_000)).toEqual([])
    killLiveGroups() // a second call has nothing left to kill
  })

  it('is the process exit hook', () => {
    expect(process.listeners('exit')).toContain(killLiveGroups)
  })
})
