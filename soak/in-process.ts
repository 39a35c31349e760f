// Calls through `createDshHarness` in this process: the CLI's own plugins, random aborts, a hang watchdog.
import { performance } from 'node:perf_hooks'
import { createDshHarness } from '@dsh/cli'
import type { Harness, Logger, ToolResult } from '@dsh/core'
import type { SoakCall, SoakConfig } from './calls.js'
import type { CallOutcome } from './invariants.js'
import type { SoakTree } from './tree.js'

/** The plugins `dsh` loads, under a random config, spilling into the tree's spill dir. */
export function loadSoakHarness(config: SoakConfig, tree: SoakTree, logger: Logger): Promise<Harness> {
  return createDshHarness({ config: config.plugins, spillDir: tree.spillDir, logger })
}

/**
 * Runs one call in the tree's session. A call still pending `slackMs` past its config's bound counts
 * as hung and is left behind (its promise is still caught), so one stuck call cannot stop the soak.
 */
export async function runInProcess(
  harness: Harness,
  config: SoakConfig,
  call: SoakCall,
  tree: SoakTree,
  slackMs: number,
): Promise<CallOutcome> {
  const controller = new AbortController()
  let cancelled = false
  const cancel =
    call.cancelAfterMs === undefined ? undefined : setTimeout(() => ((cancelled = true), controller.abort()), call.cancelAfterMs)
  const agent = { session: { header: { id: call.session, cwd: tree.root } } }
  const started = performance.now()
  const execution: Promise<{ result: ToolResult } | { error: unknown }> = harness.registry
    .execute(call.tool, call.args, { signal: controller.signal, agent })
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    )
  let watchdog: NodeJS.Timeout | undefined
  const hang = new Promise<'hung'>((resolve) => (watchdog = setTimeout(() => resolve('hung'), config.boundMs + slackMs)))
  const settled = await Promise.race([execution, hang])
  clearTimeout(cancel)
  clearTimeout(watchdog)
  const outcome: CallOutcome = {
    via: 'in-process',
    user: 'root',
    call,
    cwd: tree.root,
    config: config.plugins,
    configValid: config.valid,
    shortTimeout: config.shortTimeout,
    spillDir: tree.spillDir,
    outputs: [],
    cancelled,
    hung: settled === 'hung',
    ms: performance.now() - started,
  }
  if (settled === 'hung') return outcome
  if ('error' in settled) {
    const error = settled.error
    return { ...outcome, threw: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
  const { result } = settled
  const view = harness.registry.present(call.tool, call.args, result)
  return {
    ...outcome,
    answer: {
      isError: result.isError,
      content: result.content,
      ...(result.errorCode === undefined ? {} : { errorCode: result.errorCode }),
      ...(result.spilledTo === undefined ? {} : { spilledTo: result.spilledTo }),
    },
    // The value never reaches a model, but a host may log it and a UI shows the view: neither may hold a secret.
    outputs: [
      { where: 'value', text: JSON.stringify(result.value ?? null) },
      { where: 'presentation meta', text: JSON.stringify(result.meta ?? null) },
      { where: 'result view', text: JSON.stringify(view ?? null) },
    ],
  }
}
