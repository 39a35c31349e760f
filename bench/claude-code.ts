// The claude-code profile's Grep modes against the rg commands they answer: `rg -l` and `rg -C 3`.
import * as access from '@dsh/access'
import * as bashLocal from '@dsh/bash-local'
import { loadHarness, type Harness } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
import { rgArgv } from '../packages/tool-fs-search/src/engine/rg-command.js'
import type { CaseResult, Corpus } from './cases.js'
import { runInterleaved, type Contender, type Rounds } from './measure.js'
import { drainProcess, elapsedMs } from './processes.js'

/** The tools as `dsh --profile claude-code` loads them, spilling into `spillRoot`. */
export function loadClaudeHarness(spillRoot: string): Promise<Harness> {
  return loadHarness({
    plugins: [bashLocal, spillLocal, fsLocal, access, toolFsSearch],
    config: { [spillLocal.name]: { root: spillRoot }, [toolFsSearch.name]: { profile: 'claude-code' } },
  })
}

/** One Grep mode and the rg flags that print the same thing. */
interface ModeCase {
  name: string
  args: Record<string, unknown>
  rgFlags: string[]
}

/** files_with_matches (newest first, through the mtime helper) vs `rg -l`; content with -C 3 vs `rg -C 3`. */
export const CLAUDE_CODE_CASES: readonly ModeCase[] = [
  { name: 'Grep files_with_matches', args: { output_mode: 'files_with_matches' }, rgFlags: ['-l'] },
  { name: 'Grep content -C 3', args: { output_mode: 'content', '-C': 3 }, rgFlags: ['-n', '--context=3'] },
]

/** One mode through the registry vs its rg, interleaved; the pattern is the corpus's medium one. */
export async function claudeGrepCase(harness: Harness, rg: string, corpus: Corpus, mode: ModeCase, rounds: Rounds): Promise<CaseResult> {
  const pattern = corpus.patterns.medium
  const argv = rgArgv({ rg, flags: ['--no-heading', '--with-filename', ...mode.rgFlags], pattern, paths: [corpus.root] })
  let total = 0
  let lines = 0
  const contenders: Contender[] = [
    {
      label: 'tool',
      run: async () => {
        const started = process.hrtime.bigint()
        const result = await harness.registry.execute(
          'Grep',
          { pattern, ...mode.args },
          { agent: { session: { header: { id: 'bench', cwd: corpus.root } } } },
        )
        if (result.isError) throw new Error(`Grep ${JSON.stringify(mode.args)}: ${result.content.slice(0, 300)}`)
        total = (result.value as { total: number }).total
        return elapsedMs(started)
      },
    },
    {
      label: 'rg',
      run: async () => {
        const run = await drainProcess(argv)
        lines = run.stdoutLines
        return run.ms
      },
    },
  ]
  const times = await runInterleaved(contenders, rounds)
  const detail = `\`${pattern}\`: tool ${total.toLocaleString('en')} entries; rg ${lines.toLocaleString('en')} lines`
  return { corpus: corpus.name, name: mode.name, detail, labels: ['tool', 'rg'], times }
}
