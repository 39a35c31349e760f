// What the executor can run, asked in one shell run: the first rg candidate and glob's mtime helper together.
import type { BashExecutor, Logger } from '@dsh/core'
import type { MtimeLister } from '../glob/command.js'
import { chooseMtimeLister, judgeMtimeAnswer, MTIME_ANSWER_FIELDS, MTIME_PROBE_FUNCTION } from './mtime-helper.js'
import { dependencies, probeCacheKey, type ProbeCache } from './cache.js'
import { chooseRg, judgeRgAnswer, rgProbeLines } from './ripgrep.js'
import { LOOKUP, runProbe, type ProbeChoice } from './script.js'

/** What the load-time probes chose: the rg to run, and glob's mtime helper. */
export interface ExecutorProbe {
  rg: ProbeChoice<string>
  lister: ProbeChoice<MtimeLister>
}

// The first field of the joint probe's answer, so that no other output can pass for one.
const TAG = 'dsh-probe-1'

/**
 * The joint probe script: the tag, the mtime helper's answer, its status, then the first rg
 * candidate's answer (last, since a `--version` may print anything). Fields are NUL-separated; a
 * helper answer has a fixed number of fields for its kind, then `dd` and a path when the executor has
 * a dd that gathers full blocks, and none holds a NUL (paths come from PATH).
 */
export function buildJointProbeCommand(rg: string): string {
  return [LOOKUP, MTIME_PROBE_FUNCTION, `printf '${TAG}\\0'`, 'dsh_mtime_probe; printf \'\\0%s\\0\' "$?"', rgProbeLines(rg)].join('\n')
}

/**
 * Probes the executor in one shell run, which is the start-up cost of every CLI call (a spawn and a
 * shell each): the joint script answers for the first rg candidate and the mtime helper. Only a
 * complete answer in which both are usable is taken; anything else (the first candidate is not
 * ripgrep, no helper works, a cut or odd answer, a probe that could not run) falls back to one probe
 * per candidate and one for the helper, side by side, whose answers say precisely what is wrong.
 * A broken executor fails both of those: the ripgrep probe's error is the one reported.
 */
export async function probeExecutor(
  bash: BashExecutor,
  candidates: readonly string[],
  logger: Logger,
  cache?: ProbeCache,
): Promise<ExecutorProbe> {
  // A cached answer is the joint probe's own, read as a live one is, and only while its files are unchanged.
  const slot = cache === undefined ? undefined : await probeCacheKey(bash, candidates)
  const cached = slot === undefined ? undefined : cache!.get(slot.key)
  const known = cached === undefined ? undefined : readJointAnswer(cached)
  if (known !== undefined) return known
  const answer = await jointAnswer(bash, candidates[0]!)
  const joint = answer === undefined ? undefined : readJointAnswer(answer)
  if (joint !== undefined) {
    if (slot !== undefined) cache!.set(slot.key, answer!, dependencies(joint.rg.chosen, candidates, slot.searchPath))
    return joint
  }
  const [rg, lister] = await Promise.allSettled([chooseRg(bash, candidates, logger), chooseMtimeLister(bash)])
  if (rg.status === 'rejected') throw rg.reason
  if (lister.status === 'rejected') throw lister.reason
  return { rg: rg.value, lister: lister.value }
}

/** The joint probe's answer when it ran whole and found the rg candidate; otherwise undefined. */
async function jointAnswer(bash: BashExecutor, rg: string): Promise<string | undefined> {
  try {
    const { run } = await runProbe(bash, { command: buildJointProbeCommand(rg), what: 'ripgrep' })
    // The script's status is the rg candidate's: 0 only when it was found and asked for its version.
    return run.stdout.truncated || run.exitCode !== 0 ? undefined : run.stdout.text
  } catch {
    return undefined // the separate probes run it again, and report it in their own words
  }
}

/** The joint probe's choices when its answer is complete and both are usable; otherwise undefined. */
export function readJointAnswer(answer: string): (ExecutorProbe & { rg: { available: true; chosen: string } }) | undefined {
  const fields = answer.split('\0')
  const count = fields[0] === TAG ? MTIME_ANSWER_FIELDS.get(fields[1]!) : undefined
  if (count === undefined) return undefined
  // The helper's own fields, then dd and its path when it has one (no path is "dd"), then the status.
  const end = fields[count + 2] === 'dd' ? count + 4 : count + 2
  const status = fields[end]
  if (status !== '0' && status !== '1') return undefined
  const lister = judgeMtimeAnswer(fields.slice(1, end).join('\0'), Number(status))
  const rest = fields.slice(end + 1).join('\0')
  const found = judgeRgAnswer(rest, rest === '' ? 1 : 0)
  if (!lister.available || found.verdict !== 'ripgrep') return undefined
  return { rg: { available: true, chosen: found.path }, lister }
}
