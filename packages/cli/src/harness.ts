// The plugins `dsh` loads and how command-line options reach their config.
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness, type Logger } from '@dsh/core'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'

/** Every plugin `dsh` loads, in load order: the executor and the store before the tools that use them. */
export const DSH_PLUGINS = [bashLocal, spillLocal, toolFsSearch] as const

/** What `createDshHarness` takes: the config file's object and the command-line overrides. */
export interface DshHarnessOptions {
  config: Record<string, unknown>
  spillDir?: string
  logger?: Logger
}

/** Loads the plugins `dsh` serves, with `--spill-dir` applied over the config file. */
export async function createDshHarness(options: DshHarnessOptions): Promise<Harness> {
  const config = { ...options.config }
  if (options.spillDir !== undefined) {
    config[spillLocal.name] = { ...(config[spillLocal.name] as object | undefined), root: options.spillDir }
  }
  return loadHarness({ plugins: DSH_PLUGINS, config, ...(options.logger === undefined ? {} : { logger: options.logger }) })
}
