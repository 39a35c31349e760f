// The installed `dsh` as a user runs it: node_modules/.bin/dsh, a real process, its exit status and streams.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { processesMentioning, tempDir, waitUntil, writeTree } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const bin = join(repo, 'node_modules', '.bin', 'dsh')
const built = join(repo, 'packages', 'cli', 'dist', 'bin.js')
const { version } = JSON.parse(readFileSync(join(repo, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }

const tree = tempDir('bin')
const spill = tempDir('bin-spill')
beforeAll(() => writeTree(tree, { 'a.txt': 'needle\n-foo\n' }))
afterAll(() => {
  for (const dir of [tree, spill]) rmSync(dir, { recursive: true, force: true })
})

function dshProcess(...argv: string[]) {
  expect(existsSync(built), `${built} is missing: run \`npx tsc -b\` before this test`).toBe(true)
  const run = spawnSync(bin, ['--spill-dir', spill, ...argv], { cwd: tree, encoding: 'utf8', timeout: 15_000 })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('node_modules/.bin/dsh', () => {
  it('prints the package version', () => {
    expect(dshProcess('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('greps from the process cwd and exits 0', () => {
    expect(dshProcess('grep', 'needle')).toEqual({ code: 0, stdout: 'Found 1 match\n\na.txt\nLine 1: needle\n', stderr: '' })
  })

  it('searches a dash-led pattern after "--" and runs no shell syntax', () => {
    expect(dshProcess('grep', '--', '-foo')).toEqual({ code: 0, stdout: 'Found 1 match\n\na.txt\nLine 2: -foo\n', stderr: '' })
    expect(dshProcess('glob', '$(touch canary)').code).toBe(0)
    expect(existsSync(join(tree, 'canary'))).toBe(false)
  })

  it('exits 1 on a tool error and 2 on a usage error', () => {
    const invalid = dshProcess('grep', 'a(', '--format', 'json')
    expect(invalid.code).toBe(1)
    expect(JSON.parse(invalid.stdout)).toMatchObject({ isError: true })
    expect(dshProcess('frob')).toEqual({ code: 2, stdout: '', stderr: 'dsh: unknown command "frob"\nRun dsh --help for usage.\n' })
  })

  it('in a deleted working directory prints one line and exits 1, with no stack trace', () => {
    const gone = tempDir('bin-gone')
    const run = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && exec "$2" --help', 'sh', gone, bin], { encoding: 'utf8', timeout: 15_000 })
    expect(run.status).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(
      'dsh: the current directory cannot be read (was it deleted?); cd to another directory: ENOENT: no such file or directory, uv_cwd\n',
    )
  })

  it.each([['--help'], ['grep', 'needle']])('writing %j to a full device prints one line and exits 1', (...argv) => {
    const run = spawnSync('sh', ['-c', 'exec "$@" > /dev/full', 'sh', bin, ...argv], { cwd: tree, encoding: 'utf8', timeout: 15_000 })
    expect(run.status).toBe(1)
    expect(run.stderr).toBe('dsh: cannot write the output: ENOSPC: no space left on device, write\n')
  })

  it.each([
    ['Ctrl-C', 'SIGINT'],
    ['a host stopping it', 'SIGTERM'],
    ['a closed terminal', 'SIGHUP'],
  ] as const)(
    '%s during a search cancels it, kills rg and exits 130',
    async (_who, signal) => {
      // rg blocks opening a FIFO nobody writes to, so the search runs until it is cancelled.
      const fifo = join(tree, `fifo-${signal}`)
      execFileSync('mkfifo', [fifo])
      const child = spawn(bin, ['--spill-dir', spill, 'grep', 'needle', fifo], { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
      expect(await waitUntil(() => processesMentioning(fifo).some((pid) => pid !== child.pid), 20_000)).toBe(true)
      child.kill(signal)
      expect(await exited).toBe(130)
      expect(stdout).toMatch(/cancelled/)
      expect(await waitUntil(() => processesMentioning(fifo).length === 0, 2000)).toBe(true)
    },
    40_000,
  )
})
