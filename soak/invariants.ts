// The invariants every soak call must keep, judged from what the call put out.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import type { CallUser, SoakCall } from './calls.js'
import type { SoakTree } from './tree.js'

/** A tool result as the registry returns it or `dsh --format json` prints it. */
export interface ToolAnswer {
  isError: boolean
  errorCode?: string
  content: string
  spilledTo?: string
  /** From `dsh --format json`'s search card: how many results, and whether the search saw everything. */
  found?: { total: number; incomplete: boolean }
}

/** How a CLI process ended. */
export interface ProcessEnd {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The signal the soak sent it, if any: a random cancel, or the hang watchdog's SIGKILL. */
  sent: NodeJS.Signals | undefined
  stdout: string
  /** Without the lines /usr/bin/time adds. */
  stderr: string
}

/** One text a call put out besides its content, and where it came from (`meta`, `view`, `stdout`…). */
export interface CallOutput {
  where: string
  text: string
}

/** What one call did, from either runner. */
export interface CallOutcome {
  via: 'in-process' | 'cli'
  user: CallUser
  call: SoakCall
  /** The command line, for a CLI call. */
  argv?: readonly string[]
  /** The session cwd (in process) or the directory the process ran in (CLI), for the repro. */
  cwd?: string
  /** The config the call ran under, for the repro. */
  config: Record<string, unknown>
  /** False when a plugin must refuse the config: the CLI must then exit 2. */
  configValid: boolean
  /** The config's timeouts are 1-250 ms: a result may then be partial, if it says so. */
  shortTimeout: boolean
  /** The spill store's root, absolute: a spill the result reports must lie in it. */
  spillDir: string
  /** The result, when a whole one came back. */
  answer?: ToolAnswer
  /** Every other text the call put out (result value, meta and view, stdout, stderr), scanned for the markers. */
  outputs: CallOutput[]
  /** The soak aborted or signalled the call before it ended. */
  cancelled: boolean
  /** The call outlived its timeout, kill grace and slack. */
  hung: boolean
  /** What `registry.execute` threw, when it broke its promise never to. */
  threw?: string
  process?: ProcessEnd
  ms: number
}

/** The kinds of broken invariant the soak counts. */
export type ViolationKind =
  | 'in-process-throw'
  | 'hung'
  | 'error-without-code'
  | 'missed-known-match'
  | 'missed-through-link'
  | 'unmarked-partial'
  | 'known-match-error'
  | 'incomplete-not-said'
  | PolicyViolationKind
  | 'canary'
  | 'spill-missing'
  | 'spill-outside-store'
  | 'cli-exit'
  | 'cli-stack-trace'
  | 'cli-bad-json'

/** A denied byte (the secret marker) or an outside-root byte (the outside marker) in anything a call put out. */
export type PolicyViolationKind = 'denied-byte' | 'outside-byte'

/** The kinds the `policy violations` line counts. */
export const POLICY_KINDS: ReadonlySet<ViolationKind> = new Set<PolicyViolationKind>(['denied-byte', 'outside-byte'])

/** One broken invariant and the call that broke it. */
export interface Violation {
  kind: ViolationKind
  detail: string
  outcome: CallOutcome
}

// A probe may fail without showing its needle only when it was stopped (timeout, abort) or its raw
// output passed the configured cap: each is an error a model can act on, not a false "no matches".
const EXCUSED_CODES = new Set(['SEARCH_ABORTED', 'TOOL_TIMEOUT', 'TOOL_ABORTED', 'FS_ABORTED', 'SEARCH_RAW_OUTPUT_OVERFLOW'])
const EXIT_STATUSES = new Set([0, 1, 2, 130])
// What a result cut short by its timeout must say (another worker is making a timeout return one).
const PARTIAL = /partial result/i
// A result that says links were not followed has not silently missed a file reached through one.
const LINK_NOTE = /symbolic link|symlink/i
// The footer of a capped result: "… stored at: /path/file.txt. Use read …".
const SPILL_FOOTER = /stored at: (\/.+?)\. Use read/g
const STACK_LINE = /^ {4}at /m

/** Every invariant the outcome breaks. Removes a canary it finds, so that the next call to make one is caught too. */
export function checkOutcome(outcome: CallOutcome, tree: SoakTree): Violation[] {
  const found: Violation[] = []
  const flag = (kind: ViolationKind, detail: string): void => void found.push({ kind, detail, outcome })
  const { answer } = outcome
  if (outcome.threw !== undefined) flag('in-process-throw', outcome.threw)
  if (outcome.hung) flag('hung', `no result after ${Math.round(outcome.ms)} ms`)
  if (answer?.isError === true && answer.errorCode === undefined) flag('error-without-code', answer.content.slice(0, 200))
  if (answer !== undefined) checkExpectation(outcome, answer, flag)
  const spills = answer === undefined ? [] : checkSpills(answer, outcome.spillDir, flag)
  checkPolicy([{ where: 'content', text: answer?.content ?? '' }, ...outcome.outputs, ...spills], tree, flag)
  for (const canary of tree.canaries) {
    if (!existsSync(canary)) continue
    flag('canary', `${canary} exists after this call`)
    rmSync(canary, { force: true })
  }
  if (outcome.process !== undefined) checkProcess(outcome.process, answer, outcome.configValid, flag)
  return found
}

/**
 * A probe's known answer must be in a success, unless the result says it is partial (a short timeout)
 * or, for a file reached through a link, says links were not followed.
 */
function checkExpectation(outcome: CallOutcome, answer: ToolAnswer, flag: (kind: ViolationKind, detail: string) => void): void {
  const expect = outcome.call.expect
  if (expect === undefined) return
  if (answer.isError) {
    if (expect.kind !== 'incomplete' && !EXCUSED_CODES.has(answer.errorCode ?? ''))
      flag('known-match-error', `${answer.errorCode}: ${answer.content.slice(0, 300)}`)
    return
  }
  if (expect.kind === 'incomplete') {
    if (!/could not read|incomplete/i.test(answer.content)) flag('incomplete-not-said', answer.content.slice(0, 300))
    return
  }
  const absent = (expect.kind === 'match' ? [expect.text] : expect.texts).filter((text) => !answer.content.includes(text))
  if (absent.length === 0 || PARTIAL.test(answer.content)) return
  const detail = `${absent.map((text) => JSON.stringify(text)).join(', ')} not in: ${answer.content.slice(0, 300)}`
  if (outcome.shortTimeout) flag('unmarked-partial', `under a timeout of at most 250 ms, ${detail}`)
  else if (expect.kind === 'match' && expect.viaLink) {
    if (!LINK_NOTE.test(answer.content)) flag('missed-through-link', detail)
  } else flag('missed-known-match', detail)
}

/** Checks each spill the result reports lies in its store and exists; returns their texts, to scan for the markers. */
function checkSpills(answer: ToolAnswer, spillDir: string, flag: (kind: ViolationKind, detail: string) => void): CallOutput[] {
  const locators = new Set([...answer.content.matchAll(SPILL_FOOTER)].map((match) => match[1]!))
  if (answer.spilledTo !== undefined) locators.add(answer.spilledTo)
  const saved: CallOutput[] = []
  for (const locator of locators) {
    const relative = path.relative(spillDir, path.resolve(locator))
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) flag('spill-outside-store', locator)
    if (!existsSync(locator)) {
      flag('spill-missing', locator)
      continue
    }
    saved.push({ where: `spill file ${locator}`, text: readFileSync(locator, 'utf8') })
  }
  return saved
}

/** One policy violation per marker found, naming every place that held it. */
function checkPolicy(texts: readonly CallOutput[], tree: SoakTree, flag: (kind: ViolationKind, detail: string) => void): void {
  const markers: [PolicyViolationKind, string][] = [
    ['denied-byte', tree.secretMarker],
    ['outside-byte', tree.outsideMarker],
  ]
  for (const [kind, marker] of markers) {
    const places = texts.filter((output) => output.text.includes(marker))
    if (places.length > 0) flag(kind, `in ${places.map((place) => place.where).join(', ')}: ${excerptAround(places[0]!.text, marker)}`)
  }
}

function checkProcess(
  end: ProcessEnd,
  answer: ToolAnswer | undefined,
  configValid: boolean,
  flag: (kind: ViolationKind, detail: string) => void,
): void {
  if (STACK_LINE.test(end.stderr)) flag('cli-stack-trace', end.stderr.slice(0, 600))
  if (end.signal !== null) {
    if (end.sent === undefined) flag('cli-exit', `killed by ${end.signal}, which the soak did not send`)
    return
  }
  const status = end.exitCode ?? -1
  if (!EXIT_STATUSES.has(status)) flag('cli-exit', `exit ${status}; stderr: ${end.stderr.slice(0, 300)}`)
  if (status === 130 && end.sent === undefined) flag('cli-exit', 'exit 130 (interrupted) with no signal sent')
  if (!configValid && status !== 2 && end.sent === undefined) flag('cli-exit', `exit ${status} under a config dsh must refuse (exit 2)`)
  if ((status === 0 || status === 1) && answer === undefined)
    flag('cli-bad-json', `exit ${status} with stdout ${JSON.stringify(end.stdout.slice(0, 300))}`)
  if (answer !== undefined && status !== 130) {
    const expected = expectedStatus(answer)
    if (status !== expected)
      flag('cli-exit', `exit ${status}, not ${expected}, for ${JSON.stringify({ isError: answer.isError, found: answer.found })}`)
  }
}

/**
 * rg's statuses (docs/design.md#the-exit-status-says-what-was-found): 2 for an error, and for a search
 * that found nothing without seeing everything; 1 for a complete search that found nothing; else 0.
 */
function expectedStatus({ isError, found }: ToolAnswer): number {
  if (isError) return 2
  if (found === undefined || found.total > 0) return 0
  return found.incomplete ? 2 : 1
}

function excerptAround(text: string, needle: string): string {
  const at = text.indexOf(needle)
  return JSON.stringify(text.slice(Math.max(0, at - 120), at + needle.length + 40))
}
