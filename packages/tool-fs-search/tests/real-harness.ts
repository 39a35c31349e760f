// The real tier's helpers: the real loader, bash-local, spill-local and rg over temp trees, nothing faked.
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { tempDir, writeTree } from '../../../test-support/temp-tree.js'
import type { MtimeLister } from '../src/engine/glob/command.js'
import { MAX_FINDS } from '../src/engine/glob/finds.js'

export { processesMentioning, waitForNoProcess } from '../../../test-support/processes.js'
export { tempDir, writeTree }

/** What a real-executor harness is built from: the spill root and each plugin's config. */
export interface RealHarnessOptions {
  spillRoot: string
  search?: Record<string, unknown>
  bash?: Record<string, unknown>
  /** Receives the load-time warnings; silent when omitted. */
  logger?: { warn: (message: string) => void; info: (message: string) => void }
}

/** A program's path as sh finds it on this process's PATH. */
export const programOnPath = (name: string): string => execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()

/**
 * The helper this machine's probe chooses when GNU find and perl are on PATH: as many finds as this
 * process may use cores, up to MAX_FINDS, or find alone on one core (docs/design.md#glob-stats-on-every-core).
 */
export function localFindHelper(): Extract<MtimeLister, { find: string }> {
  const find = programOnPath('find')
  const cores = availableParallelism()
  return cores < 2 ? { helper: 'find', find } : { helper: 'finds', find, perl: programOnPath('perl'), count: Math.min(cores, MAX_FINDS) }
}

/** That helper as the probe answers it: its kind and fields, NUL-separated. */
export function localFindAnswer(): string {
  const helper = localFindHelper()
  return helper.helper === 'finds' ? `finds\0${helper.find}\0${helper.perl}\0${helper.count}` : `find\0${helper.find}`
}

const quiet = { warn: () => undefined, info: () => undefined }

/** Loads bash-local, spill-local, fs-local and tool-fs-search through the real loader, as a host does. */
export async function loadRealHarness(options: RealHarnessOptions): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, fsLocal, toolFsSearch],
    config: {
      'bash-local': { killGraceMs: 200, ...options.bash },
      'spill-local': { root: options.spillRoot },
      'tool-fs-search': options.search ?? {},
    },
    logger: options.logger ?? quiet,
  })
}

/** Calls a tool in a session whose working directory is `cwd`. */
export function callTool(
  harness: Harness,
  tool: 'grep' | 'glob',
  args: Record<string, unknown>,
  cwd: string,
  options: { session?: string; signal?: AbortSignal } = {},
): Promise<ToolResult> {
  return harness.registry.execute(tool, args, {
    agent: { session: { header: { id: options.session ?? 'sess-1', cwd } } },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })
}

/**
 * A spec file's scratch space: each call makes a temp dir, and all of them are removed after the
 * file's tests. A test may leave a directory locked (chmod 000), so each is unlocked first.
 */
export function scratchDirs(): (label: string) => string {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) {
      try {
        execFileSync('chmod', ['-R', 'u+rwx', dir])
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true })
    }
  })
  return (label) => {
    const dir = tempDir(label)
    dirs.push(dir)
    return dir
  }
}

/** Sets a file's access and modification time to `seconds` since the epoch (whole seconds, no nanos). */
export function setMtime(file: string, seconds: number): void {
  utimesSync(file, seconds, seconds)
}

/** The spill file a capped result's footer names, or undefined when the footer names none. */
export function spillLocator(content: string): string | undefined {
  return /stored at: (\S+)\. Use read/.exec(content)?.[1]
}

/** The content with the per-call spill locator blanked, so identical calls compare equal. */
export function withoutLocator(content: string): string {
  return content.replace(/stored at: \S+\. Use read/, 'stored at: <spill>. Use read')
}

/** The inline page of a result: everything before its first footer. */
export function pageOf(content: string): string {
  const footer = content.indexOf('\n\n(')
  return footer === -1 ? content : content.slice(0, footer)
}

/** Reads a spilled file. */
export function readSpill(locator: string): string {
  return readFileSync(locator, 'utf8')
}

// Root reads every directory, so as root the executor runs as nobody through a wrapper shell.
const isRoot = process.getuid?.() === 0
/** Whether permission bits can be made to bite: not root, or root with setpriv to run as nobody. */
export const canLock = !isRoot || existsSync('/usr/bin/setpriv')

/** What a nobody harness needs from its spec file, and the config it adds. */
export interface NobodyOptions {
  spillRoot: string
  scratchDir: (label: string) => string
  bash?: Record<string, unknown>
  search?: Record<string, unknown>
}

/**
 * A harness whose executor runs as nobody when the tests run as root, so permission bits bite. The
 * checkout may sit in a directory nobody cannot enter (CI clones into a 0700 temp dir), so nobody runs
 * a copy of the packaged rg. HOME points inside the tree: nobody cannot read root's home, and rg looks
 * there for ignore files. Lock directories after this returns: it opens the whole tree to everyone.
 */
export async function nobodyHarness(tree: string, options: NobodyOptions): Promise<Harness> {
  let shellPath = '/bin/bash'
  let search = {}
  if (isRoot) {
    const bin = options.scratchDir('shell')
    shellPath = join(bin, 'nobody-bash')
    writeFileSync(shellPath, '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups /bin/bash "$@"\n', { mode: 0o755 })
    const rg = join(bin, 'rg')
    copyFileSync((await import('@vscode/ripgrep')).rgPath, rg)
    chmodSync(rg, 0o755)
    search = { rgPath: rg }
    chmodSync(bin, 0o755)
    execFileSync('chmod', ['-R', 'a+rX', tree])
  }
  const envSet = { HOME: tree, ...(options.bash?.envSet as Record<string, string> | undefined) }
  return loadRealHarness({
    spillRoot: options.spillRoot,
    bash: { shellPath, ...options.bash, envSet },
    search: { ...search, ...options.search },
  })
}

/** The mtime of the oldest file in the mtime tree. */
export const MTIME_BASE = 1_700_000_000

/**
 * Five `.txt` files named out of mtime order, with a tie between tie-b and tie-a, and sixty `.log`
 * files over six directories whose mtimes repeat every three files.
 */
export function writeMtimeTree(tree: string): void {
  const mtimes: Record<string, number> = {
    'c-old.txt': MTIME_BASE,
    'a-mid.txt': MTIME_BASE + 10,
    'tie-b.txt': MTIME_BASE + 20,
    'tie-a.txt': MTIME_BASE + 20,
    'b-new.txt': MTIME_BASE + 30,
  }
  for (const [name, seconds] of Object.entries(mtimes)) {
    writeTree(tree, { [name]: 'needle\n' })
    setMtime(join(tree, name), seconds)
  }
  for (let dir = 0; dir < 6; dir += 1) {
    for (let file = 0; file < 10; file += 1) {
      const name = `many/d${dir}/f${file}.log`
      writeTree(tree, { [name]: 'hit\nmiss\nhit\n' })
      setMtime(join(tree, name), MTIME_BASE + (file % 3))
    }
  }
}

/** Ten one-match files f0…f9.txt, newest last, and a directory whose files match 30, 1 and 2 times. */
export function writeCapsTree(tree: string): void {
  for (let i = 0; i < 10; i += 1) {
    writeTree(tree, { [`f${i}.txt`]: `needle ${i}\n` })
    setMtime(join(tree, `f${i}.txt`), 1_700_000_000 + i)
  }
  writeTree(tree, {
    'big/many.log': Array.from({ length: 30 }, (_, i) => `hit ${i}`).join('\n'),
    'big/one.log': 'hit\n',
    'big/two.log': 'hit\nhit\n',
  })
}

/** A name that is not valid UTF-8, a line that is not, a 5 MB line, and a small file beside it. */
export function writeBytesTree(tree: string): void {
  writeFileSync(Buffer.concat([Buffer.from(`${tree}/bad`), Buffer.from([0xff]), Buffer.from('.txt')]), 'needle\n')
  writeTree(tree, {
    'content.txt': Buffer.concat([Buffer.from('needle '), Buffer.from([0xc3, 0x28, 0xfe]), Buffer.from(' end\nclean needle\n')]),
    'minified.js': `${'x'.repeat(2_500_000)}needle${'y'.repeat(2_500_000)}\n`,
    'small.js': 'const needle = 1\n',
  })
}

/** A name with a newline, plain names at two depths, and a binary file. */
export const NAMES_TREE = {
  'line\nbreak.txt': 'needle\n',
  'plain.txt': 'needle\n',
  'sub/inner.txt': 'needle\n',
  'blob.bin': Buffer.concat([Buffer.from('needle\0'), Buffer.alloc(64)]),
}

/** Path-shaped patterns' tree: a package with nested sources, a sibling, and a top-level src. */
export const SHAPED_TREE = {
  'pkg/src/a.ts': 'needle\n',
  'pkg/src/deep/b.ts': 'needle\n',
  'pkg/src/c.js': 'needle\n',
  'pkg/deep/d.ts': 'needle\n',
  'sibling/e.ts': 'needle\n',
  'src/top.ts': 'needle\n',
}

// A file name holding ESC and DEL.
const ESC_NAME = 'e\u001bx\u007f.txt'

/** Lines a repository could use to forge output: the cut marker's text, a long line, terminal controls. */
export const FORGE_TREE = {
  'marker.txt': 'needle […line cut]\n',
  'long.txt': `needle ${'x'.repeat(3000)}\n`,
  'esc.txt': 'needle \u001b[31mred\u001b[0m\rLine 9: fake\u0007\n',
  [ESC_NAME]: 'needle\n',
}
