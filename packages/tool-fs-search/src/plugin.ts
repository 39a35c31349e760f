// The tool-fs-search plugin: probes the executor, then registers glob, grep and their prompt sections.
import type { PluginContext } from '@dsh/core'
import type { SearchConfig } from './config.js'
import { createGlobTool } from './dsh/glob/tool.js'
import { createGrepTool } from './dsh/grep/tool.js'
import { LinkScanMemory } from './engine/link-scan-memory.js'
import { PROCESS_FILE_LISTS } from './engine/rg-file-lists.js'
import { createSearchWarmUp } from './engine/warm-up.js'
import type { ProbeCache } from './engine/probe/cache.js'
import { probeExecutor } from './engine/probe/executor.js'
import { warnAboveOutputCap } from './engine/probe/output-cap.js'
import { packagedRgPath, rgCandidates } from './engine/probe/ripgrep.js'
import { SEARCH_PROMPT_SECTIONS } from './dsh/prompts.js'
import { createClaudeGlobTool } from './claude-code/glob-tool.js'
import { createClaudeGrepTool } from './claude-code/grep-tool.js'
import { CLAUDE_CODE_PROMPT_SECTIONS } from './claude-code/prompts.js'

/** The plugin's name: its config key. */
export const name = 'tool-fs-search'

declare module '@dsh/core' {
  interface Services {
    /** Remembers the executor probe's answer across harnesses; a host whose executor runs on this machine may provide one. */
    probeCache: ProbeCache
    /**
     * Link scans remembered across harnesses (the warm server builds one a call); a host whose executor
     * and file system are this machine's may provide one. Used when its settle time is the config's.
     */
    linkScanMemory: LinkScanMemory
  }
}

/**
 * Services the plugin needs; `spillStore`, `access`, `fs`, `searchIndex`, `probeCache` and
 * `linkScanMemory` are optional and read with `ctx.get`.
 */
export const inject = ['tools', 'systemPrompt', 'bash', 'toolAvailability'] as const

type SearchPluginContext = PluginContext<(typeof inject)[number]>

/**
 * Registers grep when the executor can run ripgrep, and glob when it can also run an mtime helper,
 * each with its prompt section. A tool it cannot register is withheld with the reason, which a warning
 * repeats; it warns too when the executor keeps less output than the configured cap. The
 * `claude-code` profile registers Glob and Grep instead (docs/design.md#claude-codes-tool-surface).
 */
export async function apply(ctx: SearchPluginContext, config: SearchConfig): Promise<void> {
  const claude = config.profile === 'claude-code'
  const candidates = rgCandidates(config.rgPath, await packagedRgPath())
  const { rg, lister } = await probeExecutor(ctx.bash, candidates, ctx.logger, ctx.get('probeCache'))
  if (!rg.available) return withhold(ctx, claude ? ['Glob', 'Grep'] : ['glob', 'grep'], rg.reason)
  await warnAboveOutputCap(ctx.bash, config, ctx.logger)
  const shared = ctx.get('linkScanMemory')
  const linkScans = !config.rememberLinkScans
    ? undefined
    : shared?.settleMs === config.linkScanSettleMs && shared.watchTrees === config.watchLinkScans
      ? shared
      : new LinkScanMemory(config.linkScanSettleMs, Date.now, config.watchLinkScans)
  const search = {
    bash: ctx.bash,
    rg: rg.chosen,
    config,
    spillStore: () => ctx.get('spillStore'),
    access: () => ctx.get('access'),
    fs: () => ctx.get('fs'),
    searchIndex: () => ctx.get('searchIndex'),
    linkScans: () => linkScans,
    rgFileLists: () => PROCESS_FILE_LISTS,
  }
  // A host's own warm-up stands.
  if (ctx.get('searchWarmUp') === undefined) ctx.provide('searchWarmUp', createSearchWarmUp(search))
  if (claude) {
    // Grep lists files newest first through the same helper as Glob, so both need it.
    if (!lister.available) return withhold(ctx, ['Glob', 'Grep'], lister.reason)
    ctx.tools.register(createClaudeGlobTool(createGlobTool({ ...search, lister: lister.chosen })))
    ctx.tools.register(createClaudeGrepTool({ ...search, lister: lister.chosen }))
    for (const section of CLAUDE_CODE_PROMPT_SECTIONS) ctx.systemPrompt.add(section)
    return
  }
  if (lister.available) ctx.tools.register(createGlobTool({ ...search, lister: lister.chosen }))
  else withhold(ctx, ['glob'], lister.reason)
  ctx.tools.register(createGrepTool(search))
  for (const section of SEARCH_PROMPT_SECTIONS) if (lister.available || section.tool !== 'glob') ctx.systemPrompt.add(section)
}

/** Records tools the executor cannot run, for a host to tell a person why, and warns. */
function withhold(ctx: SearchPluginContext, tools: readonly string[], reason: string): void {
  ctx.logger.warn(`tool-fs-search: ${tools.join(' and ')} ${tools.length === 1 ? 'is' : 'are'} not registered: ${reason}`)
  for (const name of tools) ctx.toolAvailability.withhold({ name, reason })
}
