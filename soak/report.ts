// The soak's tallies and its report, which ends with the two lines a CI job reads.
import { POLICY_KINDS, type CallOutcome, type Violation, type ViolationKind } from './invariants.js'

// Distinct calls shown for a policy violation kind: each is a different way through the policy.
const POLICY_EXAMPLES = 10

/** Counts kept while the soak runs. */
export interface SoakTally {
  inProcessCalls: number
  cliCalls: number
  nobodyCalls: number
  signalledCalls: number
  /** CLI calls whose `--spill-dir` was the workspace or `/`. */
  workspaceSpillCalls: number
  /** Probes that came back with a result, so their known answer was checked. */
  probesChecked: number
  codes: Map<string, number>
  violations: Map<ViolationKind, Violation[]>
  cliPeakRssKb: number | undefined
}

/** An empty tally. */
export function createTally(): SoakTally {
  return {
    inProcessCalls: 0,
    cliCalls: 0,
    nobodyCalls: 0,
    signalledCalls: 0,
    workspaceSpillCalls: 0,
    probesChecked: 0,
    codes: new Map(),
    violations: new Map(),
    cliPeakRssKb: undefined,
  }
}

/** Adds one finished call and the invariants it broke. */
export function recordCall(tally: SoakTally, outcome: CallOutcome, violations: readonly Violation[], peakRssKb?: number): void {
  if (outcome.via === 'in-process') tally.inProcessCalls += 1
  else tally.cliCalls += 1
  if (outcome.user === 'nobody') tally.nobodyCalls += 1
  if (outcome.via === 'cli' && outcome.cancelled) tally.signalledCalls += 1
  if (outcome.call.spillDir !== undefined) tally.workspaceSpillCalls += 1
  if (outcome.call.expect !== undefined && outcome.answer?.isError === false) tally.probesChecked += 1
  const code = `${outcome.via === 'cli' ? 'cli ' : ''}${outcomeCode(outcome)}`
  tally.codes.set(code, (tally.codes.get(code) ?? 0) + 1)
  for (const violation of violations) tally.violations.set(violation.kind, [...(tally.violations.get(violation.kind) ?? []), violation])
  if (peakRssKb !== undefined) tally.cliPeakRssKb = Math.max(tally.cliPeakRssKb ?? 0, peakRssKb)
}

/** What a call came to, as one word: the result's error code, `ok`, or how the call or its process ended. */
export function outcomeCode(outcome: CallOutcome): string {
  if (outcome.threw !== undefined) return 'threw'
  if (outcome.hung) return 'hung'
  const end = outcome.process
  if (end?.signal != null) return `killed by ${end.signal}`
  // Exit 2 is also a tool's error, which prints its JSON object; a usage error prints none.
  if (end?.exitCode === 2 && outcome.answer === undefined) return 'usage error (exit 2)'
  const code = outcome.answer === undefined ? 'no result' : (outcome.answer.errorCode ?? 'ok')
  return end?.exitCode === 130 ? `${code} (exit 130)` : code
}

/** A call as something to paste: the CLI command line, or the in-process arguments, with its config and cancel. */
export function describeOutcome(outcome: CallOutcome): string {
  const { call } = outcome
  const cancel = call.cancelAfterMs === undefined ? '' : ` cancelled after ${call.cancelAfterMs} ms`
  const config = `config ${JSON.stringify(outcome.config)}`
  if (outcome.argv !== undefined) {
    const cd = outcome.cwd === undefined ? '' : `cd ${shellWord(outcome.cwd)} && `
    const prefix = outcome.user === 'nobody' ? 'setpriv --reuid=65534 --regid=65534 --clear-groups ' : ''
    return `${cd}${prefix}dsh ${outcome.argv.map(shellWord).join(' ')}${cancel} (signal sent: ${outcome.process?.sent ?? 'none'}); ${config}`
  }
  const cwd = outcome.cwd === undefined ? '' : ` cwd ${JSON.stringify(outcome.cwd)}`
  return `registry.execute(${JSON.stringify(call.tool)}, ${shortJson(call.args)}) session ${JSON.stringify(call.session)}${cwd}${cancel}; ${config}`
}

/**
 * Everything the soak learned; the last three lines are exactly `leaked processes: N`, `changed files: N`
 * and `policy violations: N`.
 */
export function formatReport(
  tally: SoakTally,
  end: { seed: number; minutes: number; soakPeakRssKb: number; leaked: readonly string[]; changed: readonly string[] },
): string {
  const lines: string[] = []
  for (const [kind, violations] of tally.violations) {
    // A policy kind shows one call per distinct tool and arguments, so each way through is named once.
    const shown = POLICY_KINDS.has(kind) ? distinctCalls(violations).slice(0, POLICY_EXAMPLES) : violations.slice(0, 3)
    const which = POLICY_KINDS.has(kind)
      ? `${distinctCalls(violations).length} distinct calls, first ${shown.length}`
      : `first ${shown.length}`
    lines.push(`violation ${kind} (${violations.length}; ${which}):`)
    for (const violation of shown) lines.push(`  ${violation.detail}`, `    repro: ${describeOutcome(violation.outcome)}`)
  }
  for (const leaked of end.leaked) lines.push(`leaked: ${leaked}`)
  for (const changed of end.changed) lines.push(`changed: ${changed}`)
  const codes = [...tally.codes].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ${n}`)
  const violations = [...tally.violations].map(([kind, list]) => `${kind} ${list.length}`)
  const policy = [...tally.violations].filter(([kind]) => POLICY_KINDS.has(kind)).reduce((sum, [, list]) => sum + list.length, 0)
  const mb = (kb: number): string => `${(kb / 1024).toFixed(0)} MB`
  lines.push(
    `seed ${end.seed} (repeat: npm run soak -- --minutes ${end.minutes} --seed ${end.seed}; timing still varies)`,
    `calls: ${tally.inProcessCalls} in process, ${tally.cliCalls} CLI (${tally.nobodyCalls} as uid 65534, ${tally.signalledCalls} signalled, ${tally.workspaceSpillCalls} with --spill-dir . or /); ${tally.probesChecked} known answers checked`,
    `results by code: ${codes.join(', ') || 'none'}`,
    `invariant violations: ${violations.length === 0 ? 'none' : violations.join(', ')}`,
    `peak RSS: soak ${mb(end.soakPeakRssKb)}, dsh CLI ${tally.cliPeakRssKb === undefined ? 'not measured (no /usr/bin/time)' : `max ${mb(tally.cliPeakRssKb)}`}`,
    `leaked processes: ${end.leaked.length}`,
    `changed files: ${end.changed.length}`,
    `policy violations: ${policy}`,
  )
  return `${lines.join('\n')}\n`
}

/** The first violation of each distinct call: the tool, its arguments and the spill dir, whichever runner made it. */
function distinctCalls(violations: readonly Violation[]): Violation[] {
  const seen = new Map<string, Violation>()
  for (const violation of violations) {
    const { tool, args, spillDir } = violation.outcome.call
    const key = JSON.stringify([tool, args, spillDir ?? null])
    if (!seen.has(key)) seen.set(key, violation)
  }
  return [...seen.values()]
}

// POSIX single quotes take every byte literally; a quote itself closes, escapes and reopens.
function shellWord(word: string): string {
  if (word.length > 120) return `${shellWord(word.slice(0, 40))}…(${word.length} chars)`
  return /^[\w./=:@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

/** JSON with long strings shown by length, so a repro line stays readable. */
function shortJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.length > 120
      ? `${item.slice(0, 40)}…(${item.length} chars)`
      : typeof item === 'number' && !Number.isFinite(item)
        ? `<${item}>`
        : item,
  )
}
