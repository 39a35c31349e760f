import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'

/** What a real-executor harness is built from: the spill root and each plugin's config. */
export interface RealHarnessOptions {
  spillRoot: string
  search?: Record<string, unknown>
  bash?: Record<string, unknown>
  /** Receives the load-time warnings; silent when omitted. */
  logger?: { warn: (message: string) => void; info: (message: string) => void }
}

const quiet = { warn: () => undefined, info: () => undefined }

/** Loads bash-local, spill-local and tool-fs-search through the real loader, as a host does. */
export async function loadRealHarness(options: RealHarnessOptions): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, toolFsSearch],
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

/** A fresh directory under the OS temp dir. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dsh-${label}-`))
}

/** Writes files (parents created) from a `relative path → content` table: fixtures as data. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = join(root, relative)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
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

export { processesMentioning, waitForNoProcess } from '../../../../test-support/processes.js'
