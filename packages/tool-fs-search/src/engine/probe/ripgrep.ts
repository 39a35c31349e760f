// Which ripgrep the tools run: each candidate probed in the executor, the first real rg chosen.
import type { BashExecutor, BashRunResult, BashSpec, Logger } from '@dsh/core'
import { rgVersionCommand } from '../rg-command.js'
import { shellCommand } from '../shell-quote.js'
import { LOOKUP, runProbe, type ProbeChoice } from './script.js'

/** The packaged ripgrep (`@vscode/ripgrep`), or undefined where its platform package is missing. */
export async function packagedRgPath(): Promise<string | undefined> {
  try {
    return (await import('@vscode/ripgrep')).rgPath
  } catch {
    return undefined
  }
}

/** The rg commands to try, in order (docs/design.md#which-ripgrep): configured, packaged, then `rg` on PATH. */
export function rgCandidates(configured: string | undefined, packaged: string | undefined): string[] {
  return [...new Set([configured, packaged, 'rg'].filter((c): c is string => c !== undefined))]
}

/** The sh that probes one candidate: its absolute path, a NUL, then what its `--version` prints; nothing, with status 1, when it is not found. */
export function rgProbeLines(rg: string): string {
  return [
    `dsh_lookup ${shellCommand([rg])} && {`,
    `  p=$dsh_path; v=$(${rgVersionCommand('"$p"')} 2>/dev/null)`,
    `  printf '%s\\0%s' "$p" "$v"`,
    '}',
  ].join('\n')
}

/** The rg probe script for one candidate. */
export function buildProbeCommand(rg: string): string {
  return [LOOKUP, rgProbeLines(rg)].join('\n')
}

/** What one candidate's probe says: ripgrep at an absolute path, nothing runnable, or something that is not ripgrep. */
type RgVerdict = { verdict: 'ripgrep'; path: string } | { verdict: 'absent' } | { verdict: 'refused'; reason: string }

/**
 * Reads a candidate's probe answer (`rgProbeLines`' output and status), whole. An rgPath of /bin/true
 * also "exists"; only rg answers `--version` with its own name.
 */
export function judgeRgAnswer(out: string, exitCode: number): RgVerdict {
  const nul = out.indexOf('\0')
  const path = nul === -1 ? out : out.slice(0, nul)
  if (exitCode !== 0 || !path.startsWith('/')) return { verdict: 'absent' }
  const version = nul === -1 ? '' : out.slice(nul + 1)
  if (/^ripgrep \d/.test(version)) return { verdict: 'ripgrep', path }
  return { verdict: 'refused', reason: `not ripgrep: "--version" printed ${JSON.stringify(version.split('\n')[0]!.slice(0, 80))}` }
}

/** Reads a candidate's own probe run. A cut output is never trusted: a prefix of one path can name another program. */
function judgeRgProbe(run: BashRunResult, spec: BashSpec): RgVerdict {
  if (run.stdout.truncated)
    return { verdict: 'refused', reason: `the probe's output was cut at ${spec.stdoutMaxBytes} bytes by the executor` }
  return judgeRgAnswer(run.stdout.text, run.exitCode!)
}

/**
 * Probes each candidate through the executor (docs/design.md#the-bash-seam): a remote executor has no
 * packaged binary, so only the executor can say what it can run. Chooses the absolute path of the
 * first candidate that is ripgrep, or says what it tried and how to fix it when none is. A probe that
 * cannot start, times out, is aborted or has no exit code is a broken executor, not a missing rg: it throws.
 */
export async function chooseRg(bash: BashExecutor, candidates: readonly string[], logger: Logger): Promise<ProbeChoice<string>> {
  const tried: string[] = []
  for (const rg of candidates) {
    const { run, spec } = await runProbe(bash, { command: buildProbeCommand(rg), what: 'ripgrep', subject: ` for ${rg}` })
    const judged = judgeRgProbe(run, spec)
    if (judged.verdict === 'ripgrep') {
      if (tried.length > 0) logger.warn(`tool-fs-search: using ${judged.path}; not runnable in the executor: ${tried.join(', ')}`)
      return { available: true, chosen: judged.path }
    }
    tried.push(judged.verdict === 'refused' ? `${rg} (${judged.reason})` : rg)
  }
  return {
    available: false,
    reason: `ripgrep is not runnable in the bash executor (tried ${tried.join(', ')}). Install ripgrep (e.g. apt-get install ripgrep), or set rgPath in the tool-fs-search config to an rg binary.`,
  }
}
