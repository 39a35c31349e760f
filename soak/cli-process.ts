// Calls through `dsh … --format json` processes: hostile command lines, random signals, peak RSS.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { constants } from 'node:os'
import { performance } from 'node:perf_hooks'
import path from 'node:path'
import type { CallUser, SoakCall, SoakConfig } from './calls.js'
import type { CallOutcome, CallOutput, ProcessEnd, ToolAnswer } from './invariants.js'
import type { Random } from './random.js'
import { NOBODY_ID, type SoakTree } from './tree.js'

// GNU time prints the child's peak RSS (%M, KiB) as its last stderr line; without it the CLI's RSS is not measured.
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined
const RSS_MARK = 'DSH_SOAK_RSS_KB='
const TIME_LINE = new RegExp(`^(${RSS_MARK}\\d+|Command terminated by signal \\d+|Command exited with non-zero status \\d+)$`, 'gm')
const SETPRIV = ['/usr/bin/setpriv', `--reuid=${NOBODY_ID}`, `--regid=${NOBODY_ID}`, '--clear-groups']
const OUTPUT_MAX_CHARS = 8 * 1024 * 1024
const CANCEL_SIGNALS: readonly NodeJS.Signals[] = ['SIGKILL', 'SIGTERM', 'SIGINT']

/** Where a CLI call runs and under what. */
export interface CliCallSetup {
  dsh: string
  tree: SoakTree
  user: CallUser
  config: SoakConfig
  configFile: string
  /** The environment's PATH, hostile or not. */
  envPath: string
  /** Extra time past the config's bound before the call counts as hung: node's start-up, a loaded machine. */
  slackMs: number
}

/** A finished CLI call: its outcome, and the process's peak RSS when /usr/bin/time measured it. */
export interface CliCallResult {
  outcome: CallOutcome
  peakRssKb: number | undefined
}

/** Runs one call as a `dsh` process in the tree; cancels it with a random signal when the call says so. */
export async function runCliCall(call: SoakCall, setup: CliCallSetup, random: Random): Promise<CliCallResult> {
  const { tree, user } = setup
  const argv = cliArgv(call, setup, random)
  const command = [...(TIME === undefined ? [] : [TIME, '-f', `${RSS_MARK}%M`]), ...(user === 'nobody' ? SETPRIV : []), setup.dsh, ...argv]
  const env = {
    PATH: setup.envPath,
    HOME: user === 'nobody' ? '/nonexistent' : (process.env.HOME ?? '/root'),
    LANG: 'C.UTF-8',
    DSH_SOAK_SECRET: tree.outsideMarker,
    // In process: a warm server would outlive the soak and serve calls of several users' trees.
    DSH_NO_DAEMON: '1',
  }
  const started = performance.now()
  // Its own process group, so a Ctrl-C meant for the soak reaches no call as a signal the soak did not send.
  const child = spawn(command[0]!, command.slice(1), { cwd: tree.root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => void (stdout.length < OUTPUT_MAX_CHARS && (stdout += chunk.toString())))
  child.stderr.on('data', (chunk: Buffer) => void (stderr.length < OUTPUT_MAX_CHARS && (stderr += chunk.toString())))
  let sent: NodeJS.Signals | undefined
  let hung = false
  const signal = (name: NodeJS.Signals, attempts = 10): void => {
    const target = TIME === undefined ? child.pid : childOf(child.pid)
    // time has not forked dsh yet: try again shortly.
    if (target === undefined) return void (attempts > 0 && child.exitCode === null && setTimeout(() => signal(name, attempts - 1), 20))
    try {
      process.kill(target, name)
      sent = name
    } catch {
      // It exited meanwhile.
    }
  }
  const cancelAt = call.cancelAfterMs === undefined ? undefined : call.cancelAfterMs * random.int(1, 6)
  const cancelSignal = random.pick(CANCEL_SIGNALS)
  const cancel = cancelAt === undefined ? undefined : setTimeout(() => signal(cancelSignal), cancelAt)
  const watchdog = setTimeout(() => ((hung = true), signal('SIGKILL')), setup.config.boundMs + setup.slackMs)
  const [exitCode, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('error', (error) => ((stderr += `spawn failed: ${error.message}\n`), resolve([127, null])))
    child.on('close', (code, name) => resolve([code, name]))
  })
  clearTimeout(cancel)
  clearTimeout(watchdog)
  const peak = new RegExp(`^${RSS_MARK}(\\d+)$`, 'm').exec(stderr)
  const end = processEnd(exitCode, exitSignal, sent, stdout, stderr)
  const { answer, views } = parseAnswer(stdout)
  const outcome: CallOutcome = {
    via: 'cli',
    user,
    call,
    argv,
    cwd: tree.root,
    config: setup.config.plugins,
    configValid: setup.config.valid,
    shortTimeout: setup.config.shortTimeout,
    spillDir: path.resolve(tree.root, spillDirOf(call, setup)),
    ...(answer === undefined ? {} : { answer }),
    outputs: [...views, { where: 'stdout', text: stdout }, { where: 'stderr', text: stderr }],
    cancelled: sent !== undefined,
    hung,
    process: end,
    ms: performance.now() - started,
  }
  return { outcome, peakRssKb: peak === null ? undefined : Number(peak[1]) }
}

/** The call's `--spill-dir`: the workspace or `/` when the call says so, else the user's own spill dir. */
function spillDirOf(call: SoakCall, setup: CliCallSetup): string {
  return call.spillDir ?? (setup.user === 'nobody' ? setup.tree.nobodySpillDir : setup.tree.spillDir)
}

/** The command line after `dsh`: the shared options, then the tool's arguments as words, `--name=value` or after `--`. */
function cliArgv(call: SoakCall, setup: CliCallSetup, random: Random): string[] {
  const common = ['--format', 'json', '--config', setup.configFile, '--spill-dir', spillDirOf(call, setup), `--session=${call.session}`]
  if (random.chance(0.5)) common.push('--cwd', setup.tree.root)
  const args = call.args as Record<string, unknown>
  // Required properties, then an optional `path`: Read's is `file_path`, and required.
  const shape = call.tool === 'read' ? ['path'] : call.tool === 'Read' ? ['file_path'] : ['pattern', 'path']
  const positionals = shape.filter((name) => name in args)
  const flags = Object.keys(args).filter((name) => !positionals.includes(name))
  const word = (name: string): string => String(args[name])
  const style = random.pick(['after-dashes', 'equals', 'bare'] as const)
  const tail: string[] = []
  for (const name of flags) tail.push(...(random.chance(0.5) ? [`--${name}=${word(name)}`] : [`--${name}`, word(name)]))
  if (style === 'equals') tail.push(...positionals.map((name) => `--${name}=${word(name)}`))
  // "bare": a value that starts with "-" is then read as an option, which must be a usage error (exit 2).
  else tail.push(...(style === 'after-dashes' ? ['--'] : []), ...positionals.map(word))
  if (random.chance(0.03)) tail.unshift(random.pick(['--bogus', '-x', '--offset']))
  return [call.tool, ...common, ...tail]
}

/** How the process ended; under /usr/bin/time the child's death by signal is read from time's own line. */
function processEnd(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  sent: NodeJS.Signals | undefined,
  stdout: string,
  stderr: string,
): ProcessEnd {
  const bySignal = /^Command terminated by signal (\d+)$/m.exec(stderr)
  const name = bySignal === null ? signal : signalName(Number(bySignal[1]))
  return { exitCode: name === null ? exitCode : null, signal: name, sent, stdout, stderr: stderr.replace(TIME_LINE, '').trimEnd() }
}

/** The result `--format json` printed, and its card views (`meta`, `view`) apart, so a leak names which held it. */
function parseAnswer(stdout: string): { answer: ToolAnswer | undefined; views: CallOutput[] } {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch {
    return { answer: undefined, views: [] }
  }
  if (typeof parsed !== 'object' || parsed === null) return { answer: undefined, views: [] }
  const { isError, errorCode, content, meta, view } = parsed as Record<string, unknown>
  const views = [
    { where: 'json meta', text: JSON.stringify(meta ?? null) },
    { where: 'json view', text: JSON.stringify(view ?? null) },
  ]
  if (typeof isError !== 'boolean' || typeof content !== 'string') return { answer: undefined, views }
  const found = foundIn(view)
  return {
    answer: { isError, content, ...(typeof errorCode === 'string' ? { errorCode } : {}), ...(found === undefined ? {} : { found }) },
    views,
  }
}

/** A search card's count and whether it saw everything; undefined for a result without a card (read). */
function foundIn(view: unknown): ToolAnswer['found'] {
  if (typeof view !== 'object' || view === null) return undefined
  const { total, incomplete } = view as Record<string, unknown>
  return typeof total === 'number' && typeof incomplete === 'boolean' ? { total, incomplete } : undefined
}

function signalName(number: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, value]) => value === number)
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null
}

/** The pid of `parent`'s child, from /proc (this kernel has no /proc/PID/task/TID/children). */
function childOf(parent: number | undefined): number | undefined {
  if (parent === undefined) return undefined
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The fields after the command name, which may hold spaces and parentheses: state, then ppid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) return Number(entry)
    } catch {
      // Exited while we looked.
    }
  }
  return undefined
}
