import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createLocalBash } from '@dsh/bash-local'
import { budgetMs } from '../../../test-support/budget.js'
import { bundleScript } from '../../../test-support/bundle.js'
import { waitUntil } from '../../../test-support/processes.js'
import { scratchDir } from '../../../test-support/temp-tree.js'
import { ensureWatcher, holdGroup, killLiveGroups, releaseGroup } from '../src/lifeline.js'
import { liveChildren, liveGroupMembers, stillAlive, waitForEmptyGroup } from './process-table.js'

const scratch = scratchDir('bash-local-lifeline')
const host = join(scratch, 'host.mjs')
const fifo = join(scratch, 'fifo')
let runs = 0
const started: { host: ChildProcess; pgid?: number }[] = []

beforeAll(async () => {
  await bundleScript(fileURLToPath(new URL('./child-host.ts', import.meta.url)), host)
  execFileSync('mkfifo', [fifo])
})
afterEach(() => {
  // A failing test must not leave its sleep and cat behind.
  for (const { host, pgid } of started.splice(0)) {
    host.kill('SIGKILL')
    try {
      if (pgid !== undefined) process.kill(-pgid, 'SIGKILL')
    } catch {
      // ESRCH: the lifeline already ended the group, as it should
    }
  }
})

/**
 * A host process running `prefix; echo $$ >pidfile; cat FIFO & sleep 300 & wait` (cat blocks opening
 * a FIFO nobody writes, as rg does), once its group is up: the host, the group id, and the host's
 * children then (the shell and the lifeline's watcher).
 */
async function hostWithBlockedSearch(prefix = 'true', later: string[] = []) {
  const pidFile = join(scratch, `pid-${++runs}`)
  const command = `${prefix}; echo $$ >'${pidFile}'; cat '${fifo}' & sleep 300 & wait`
  const child = spawn(process.execPath, [host, '60000', command, ...later], { stdio: 'ignore' })
  const entry: (typeof started)[number] = { host: child }
  started.push(entry)
  // The whole line or nothing: a file read while echo writes it may be empty, and group 0 is the caller's own.
  const written = () =>
    existsSync(pidFile) && /^[1-9]\d*\n$/.test(readFileSync(pidFile, 'utf8')) ? Number(readFileSync(pidFile, 'utf8')) : undefined
  const up = await waitUntil(() => {
    const pgid = written()
    return pgid !== undefined && liveGroupMembers(pgid).length === 3
  }, budgetMs(10_000))
  if (!up) throw new Error('the host never started its blocked search')
  entry.pgid = written()!
  return { child, pgid: entry.pgid, children: liveChildren(child.pid!) }
}

/** This process's lifeline watchers: its children whose command line is the watcher script. */
function watchers(): number[] {
  return hostWatchers(process.pid)
}

/** A host's lifeline watchers. */
function hostWatchers(hostPid: number): number[] {
  return liveChildren(hostPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dsh bash-local lifeline')
    } catch {
      return false // exited while we looked
    }
  })
}

const bash = createLocalBash()

// In order: the module's watcher state carries from one test to the next.
describe('ensureWatcher, holdGroup and releaseGroup', () => {
  it('start no watcher, and throw nothing, when the shell cannot start or Node refuses its path', async () => {
    for (const shellPath of ['/nonexistent/sh', '/bin/\0sh']) {
      ensureWatcher({ shellPath, env: {} })
      holdGroup(2 ** 22 - 1)
      releaseGroup(2 ** 22 - 1)
    }
    await new Promise((resolve) => setTimeout(resolve, budgetMs(50)))
    expect(watchers()).toEqual([])
  })

  it('start one watcher that serves every run', async () => {
    for (let i = 0; i < 3; i++) expect((await bash.run(await bash.resolve({ command: 'true' }))).exitCode).toBe(0)
    expect(watchers()).toHaveLength(1)
  })

  it('replace a watcher that dies while a group runs at once, and once only until the next run', async () => {
    const running = new AbortController()
    const pending = bash.run(await bash.resolve({ command: 'sleep 30', signal: running.signal }))
    const [first] = watchers()
    process.kill(first!, 'SIGKILL')
    // The replacement as the wait saw it: a second look at /proc (a scan of every process) can miss it.
    let second: number | undefined
    expect(
      await waitUntil(() => {
        const live = watchers()
        second = live[0]
        return live.length === 1 && second !== first
      }, budgetMs(2_000)),
    ).toBe(true)
    // The replacement dies before any group is listed with it: no second replacement, no loop.
    process.kill(second!, 'SIGKILL')
    expect(await waitUntil(() => stillAlive([second!]).length === 0, budgetMs(2_000))).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, budgetMs(200)))
    expect(watchers()).toEqual([])
    running.abort()
    expect(await pending).toMatchObject({ stop: 'abort' })
    expect((await bash.run(await bash.resolve({ command: 'true' }))).exitCode).toBe(0)
    expect(watchers()).toHaveLength(1)
  })

  it('start another watcher with the next run once the last one died with nothing running, which runs no ~/.bashrc (bash runs it for a socket on stdin)', async () => {
    const [first] = watchers()
    process.kill(first!, 'SIGKILL')
    expect(await waitUntil(() => stillAlive([first!]).length === 0, budgetMs(2_000))).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, budgetMs(200)))
    expect(watchers()).toEqual([])
    const home = mkdtempSync(join(scratch, 'home-'))
    writeFileSync(join(home, '.bashrc'), `touch '${join(home, 'canary')}'\n`)
    const withHome = createLocalBash({ envSet: { HOME: home } })
    expect((await withHome.run(await withHome.resolve({ command: 'true' }))).exitCode).toBe(0)
    expect(watchers()).toHaveLength(1)
    expect(watchers()).not.toContain(first)
    await new Promise((resolve) => setTimeout(resolve, budgetMs(200)))
    expect(existsSync(join(home, 'canary'))).toBe(false)
  })
})

describe('killLiveGroups', () => {
  it('kills the groups still running when the host exits, and forgets finished ones', async () => {
    const child = spawn('bash', ['-c', 'sleep 300 & wait'], { detached: true, stdio: 'ignore' })
    holdGroup(child.pid!)
    holdGroup(2 ** 22 - 2) // no such group: its kill finds nothing
    releaseGroup(2 ** 22 - 2)
    killLiveGroups()
    expect(await waitForEmptyGroup(child.pid!, budgetMs(2_000))).toEqual([])
    killLiveGroups() // a second call has nothing left to kill
  })

  it('is the process exit hook', () => {
    expect(process.listeners('exit')).toContain(killLiveGroups)
  })
})

describe('the lifeline', () => {
  it.each(['SIGKILL', 'SIGQUIT', 'SIGUSR2'] as const)(
    'ends the group, and then itself, when %s kills the host with no handler run',
    async (signal) => {
      const { child, pgid, children } = await hostWithBlockedSearch()
      expect(children.length).toBeGreaterThanOrEqual(2)
      child.kill(signal)
      await once(child, 'exit')
      expect(await waitForEmptyGroup(pgid, budgetMs(2_000))).toEqual([])
      expect(await waitUntil(() => stillAlive(children).length === 0, budgetMs(2_000))).toBe(true)
    },
  )

  it('ends the group when a second Ctrl-C kills the host during the kill grace', async () => {
    const { child, pgid } = await hostWithBlockedSearch('trap "" TERM')
    child.kill('SIGINT') // cancels the call: SIGTERM, which the whole group ignores, then a 60 s grace
    await new Promise((resolve) => setTimeout(resolve, budgetMs(300)))
    expect(liveGroupMembers(pgid)).toHaveLength(3)
    child.kill('SIGINT')
    await once(child, 'exit')
    expect(await waitForEmptyGroup(pgid, budgetMs(2_000))).toEqual([])
  })

  it('still ends a group when its watcher died: another starts at once and learns of it, whenever the next run starts', async () => {
    const goFile = join(scratch, `go-${runs}`)
    const { child, pgid } = await hostWithBlockedSearch('true', [goFile, 'true'])
    const [first] = hostWatchers(child.pid!)
    process.kill(first!, 'SIGKILL')
    // The next run may start before the host has reaped the dead watcher, and list its group with it.
    writeFileSync(goFile, '')
    expect(await waitUntil(() => stillAlive([first!]).length === 0, budgetMs(2_000))).toBe(true)
    expect(await waitUntil(() => hostWatchers(child.pid!).length === 1, budgetMs(5_000))).toBe(true)
    // The second run is over once its group is unlisted; the first group is what the new watcher must know of.
    await new Promise((resolve) => setTimeout(resolve, budgetMs(200)))
    child.kill('SIGKILL')
    await once(child, 'exit')
    expect(await waitForEmptyGroup(pgid, budgetMs(2_000))).toEqual([])
  })

  it('lets a host that ends normally exit at once, leaving neither its group nor its watcher behind', async () => {
    const child = spawn(process.execPath, [host, '2000', 'echo $$'], { stdio: ['ignore', 'pipe', 'inherit'] })
    started.push({ host: child })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const [code] = (await once(child, 'exit')) as [number]
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as { exitCode: number; children: number[] }
    expect(report.exitCode).toBe(0)
    expect(await waitUntil(() => stillAlive(report.children).length === 0, budgetMs(2_000))).toBe(true)
  })
})
