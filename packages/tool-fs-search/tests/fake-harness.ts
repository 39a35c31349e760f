// The registry tier's helpers: the real loader and registry over a fake bash executor.
import { loadHarness } from '@dsh/core'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { FakeBash, isProbe, type MemorySpill, type Scripted } from './fake-bash.js'

/** The rgPath every fake harness is configured with. */
export const RG = '/opt/rg'

/** The session every fake call runs in. */
export const agent = { session: { header: { id: 'sess-1', cwd: '/work/repo' } } }

/**
 * Loads the plugin over a fake executor that answers the probes as a healthy one does and every search
 * from `script`; `grep` and `glob` call the tools in `agent`'s session.
 */
export async function fakeHarness(
  script: (command: string) => Scripted | Promise<Scripted>,
  config: Record<string, unknown> = {},
  spillStore?: MemorySpill,
) {
  const bash = new FakeBash((command) => (isProbe(command) ? {} : script(command)))
  const harness = await loadHarness({
    plugins: [toolFsSearch],
    services: { bash, ...(spillStore === undefined ? {} : { spillStore }) },
    config: { 'tool-fs-search': { rgPath: RG, ...config } },
  })
  return {
    bash,
    harness,
    grep: (args: Record<string, unknown>, options = {}) => harness.registry.execute('grep', args, { agent, callId: 'call-7', ...options }),
    glob: (args: Record<string, unknown>, options = {}) => harness.registry.execute('glob', args, { agent, callId: 'call-9', ...options }),
  }
}
