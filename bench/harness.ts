import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type BashExecutor, type BashSpec, type Harness, type ToolResult } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { elapsedMs } from './processes.js'

/**
 * The search tools as `dsh` loads them (packages/cli/src/harness.ts), spilling into `spillRoot`: with the
 * file system and the access policy, through which every symbolic link below a search is judged.
 */
export function loadCliHarness(spillRoot: string): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, fsLocal, access, toolFsSearch],
    config: { [spillLocal.name]: { root: spillRoot } },
  })
}

/** One call as a session at `cwd` makes it; throws when the outcome is not the expected one. */
export async function callTool(
  harness: Harness,
  tool: 'grep' | 'glob',
  args: Record<string, string>,
  cwd: string,
  expectError?: string,
): Promise<ToolResult> {
  const result = await harness.registry.execute(tool, args, { agent: { session: { header: { id: 'bench', cwd } } } })
  if (result.isError !== (expectError !== undefined) || (expectError !== undefined && result.errorCode !== expectError)) {
    throw new Error(
      `${tool} ${JSON.stringify(args)} in ${cwd}: expected ${expectError ?? 'success'}, got ${result.errorCode ?? 'success'}: ${result.content.slice(0, 300)}`,
    )
  }
  return result
}

/** What the seam saw of the last call: the command the tool built and how long `run` took. */
export interface SeamRecord {
  spec: BashSpec
  runMs: number
}

/**
 * The same tools over a bash-local executor that records each run, kept apart from the measured
 * harness so the measured one stays the CLI's. It tells the bench the exact rg command the tool ran
 * (the overflow and glob baselines replay it) and splits a call's time into rg-through-bash and
 * tool-side. A call runs more than one script (the link scan before its search; a grep's long
 * lines' windows after it): `searchOf` names the slowest of one call's scripts, which is its search.
 */
export async function loadRecordingHarness(
  spillRoot: string,
): Promise<{ harness: Harness; searchOf: (call: () => Promise<unknown>) => Promise<SeamRecord>; totalRunMs: () => number }> {
  const local = bashLocal.createLocalBash()
  let records: SeamRecord[] = []
  let totalRunMs = 0
  const bash: BashExecutor = {
    resolve: (request) => local.resolve(request),
    run: async (spec) => {
      const started = process.hrtime.bigint()
      const result = await local.run(spec)
      const record = { spec, runMs: elapsedMs(started) }
      records.push(record)
      totalRunMs += record.runMs
      return result
    },
  }
  const harness = await loadHarness({
    plugins: [spillLocal, fsLocal, access, toolFsSearch],
    services: { bash },
    config: { [spillLocal.name]: { root: spillRoot } },
  })
  return {
    harness,
    totalRunMs: () => totalRunMs,
    searchOf: async (call) => {
      records = []
      await call()
      const slowest = records.reduce<SeamRecord | undefined>((a, b) => (a === undefined || b.runMs > a.runMs ? b : a), undefined)
      if (slowest === undefined) throw new Error('the call ran no command through the recording executor')
      return slowest
    },
  }
}
