// Which mtime helper glob runs: GNU finds (>= 4.9), GNU stat, or any stat that prints whole seconds, resolved once in the executor.
import type { BashExecutor } from '@dsh/core'
import { DD_BLOCK, type MtimeLister } from '../glob/command.js'
import { FINDS_PROBE_PROGRAM, MAX_FINDS } from '../glob/finds.js'
import { shellCommand } from '../shell-quote.js'
import { LOOKUP, runProbe, type ProbeChoice } from './script.js'

/**
 * The sh function `dsh_mtime_probe`, which prints the first mtime helper that works, its kind and its
 * programs' absolute paths separated by NULs: `finds` when GNU find reads a NUL-separated list
 * (findutils >= 4.9) and a perl that would run several at once says it may use two cores or more, with
 * how many (docs/design.md#glob-stats-on-every-core); `find` for that find alone; `stat` when GNU stat
 * prints nanoseconds with `--printf`; `stat-lines` with `-c` (BusyBox, GNU) or `-f` (BSD) when xargs
 * -0 feeds a stat that prints whole seconds and sh pairs them with the names
 * (docs/design.md#glob-without-gnu-tools). When none works it prints `none` and the programs it found,
 * and returns 1. After a helper it prints `dd` and dd's path when a dd passes its input on in full
 * blocks (`iflag=fullblock`: GNU, BusyBox), which the glob script then gathers the helper's output
 * with (docs/design.md#glob-output-arrives-in-large-blocks). Needs LOOKUP.
 */
export const MTIME_PROBE_FUNCTION = (() => {
  const seconds = (option: string, format: string) => `dsh_seconds "$(printf '/\\000' | "$x" -0 "$s" ${option} ${format} -- 2>/dev/null)"`
  return [
    `dsh_seconds() { case $1 in ''|*[!0-9]*) return 1 ;; esac; }`,
    'dsh_mtime_probe() {',
    '  dsh_lookup find; f=$dsh_path; dsh_lookup xargs; x=$dsh_path; dsh_lookup stat; s=$dsh_path; dsh_lookup sh; sh=$dsh_path',
    `  if [ -n "$f" ] && "$f" -files0-from /dev/null -maxdepth 0 >/dev/null 2>&1; then`,
    // perl prints the whole `finds` answer, or nothing: then the answer is find alone.
    `    { dsh_lookup perl && "$dsh_path" -e ${shellCommand([FINDS_PROBE_PROGRAM])} -- "$f" "$dsh_path" 2>/dev/null; } || printf 'find\\0%s' "$f"`,
    `  elif [ -n "$x" ] && [ -n "$s" ] && "$s" --printf='%.9Y' -- / >/dev/null 2>&1; then printf 'stat\\0%s\\0%s' "$x" "$s"`,
    `  elif [ -n "$x" ] && [ -n "$s" ] && [ -n "$sh" ] && ${seconds('-c', '%Y')}; then printf 'stat-lines\\0%s\\0%s\\0%s\\0-c' "$x" "$s" "$sh"`,
    `  elif [ -n "$x" ] && [ -n "$s" ] && [ -n "$sh" ] && ${seconds('-f', '%m')}; then printf 'stat-lines\\0%s\\0%s\\0%s\\0-f' "$x" "$s" "$sh"`,
    `  else printf 'none\\0%s\\0%s\\0%s\\0%s' "$f" "$x" "$s" "$sh"; return 1; fi`,
    // One run of dd that copies nothing, under the options the glob script gives it: a dd that lacks
    // one (BSD has no iflag) fails it. No command substitution or pipe: each would fork the shell.
    `  dsh_lookup dd && "$dsh_path" if=/dev/null of=/dev/null bs=${DD_BLOCK} iflag=fullblock status=none 2>/dev/null && printf '\\0dd\\0%s' "$dsh_path"`,
    '  return 0',
    '}',
  ].join('\n')
})()

/** The mtime helper probe script: `dsh_mtime_probe`'s answer, and its status as the script's. */
export function buildMtimeProbeCommand(): string {
  return [LOOKUP, MTIME_PROBE_FUNCTION, 'dsh_mtime_probe'].join('\n')
}

/** How many NUL-separated fields follow each kind of answer. */
export const MTIME_ANSWER_FIELDS: ReadonlyMap<string, number> = new Map([
  ['find', 1],
  ['finds', 3],
  ['stat', 2],
  ['stat-lines', 4],
  ['none', 4],
])

const NEEDS =
  'glob lists files newest first, and reads modification times in the bash executor with GNU find (>= 4.9), or xargs -0 and sh with a stat that prints them (GNU, BusyBox or BSD stat)'

/**
 * Resolves glob's mtime helper once, to absolute paths, in the executor's environment; when none
 * works, says which programs it found and how to fix it.
 */
export async function chooseMtimeLister(bash: BashExecutor): Promise<ProbeChoice<MtimeLister>> {
  const { run } = await runProbe(bash, { command: buildMtimeProbeCommand(), what: 'mtime helper' })
  if (run.stdout.truncated) return { available: false, reason: `${NEEDS}; the probe's answer was cut by the executor.` }
  return judgeMtimeAnswer(run.stdout.text, run.exitCode!)
}

/** Reads the helper probe's answer (`dsh_mtime_probe`'s output and status), whole. */
export function judgeMtimeAnswer(text: string, exitCode: number): ProbeChoice<MtimeLister> {
  const [helper, ...fields] = text.split('\0')
  if (exitCode === 0) {
    // dd, when it is there, follows the helper's fields.
    const dd = fields.length >= 2 && fields.at(-2) === 'dd' ? fields.splice(-2)[1]! : undefined
    const chosen = helperChoice(helper, fields)
    if (chosen !== undefined && (dd === undefined || absolute([dd])))
      return { available: true, chosen: dd === undefined ? chosen : { ...chosen, dd } }
  }
  if (helper === 'none' && fields.length === 4) {
    const tried = ['find', 'xargs', 'stat', 'sh'].map((name, i) => `${name} (${fields[i] === '' ? 'not found' : fields[i]})`)
    return { available: false, reason: `${NEEDS}; tried ${tried.join(', ')}. Install GNU findutils (>= 4.9) or coreutils.` }
  }
  return { available: false, reason: `${NEEDS}; the probe printed ${JSON.stringify(text.slice(0, 80))}.` }
}

const absolute = (programs: readonly string[]): boolean => programs.every((program) => program.startsWith('/'))

/** The helper a probe's fields name, or undefined when they do not name one by absolute paths. */
function helperChoice(helper: string | undefined, fields: readonly string[]): MtimeLister | undefined {
  // Each kind is checked for its field count before its fields are read.
  const [first, second, third, option] = fields as [string, string, string, string]
  if (helper === 'find' && fields.length === 1 && absolute(fields)) return { helper, find: first }
  if (helper === 'finds' && fields.length === 3 && absolute([first, second]) && /^[0-9]$/.test(third)) {
    const count = Number(third)
    if (count >= 2 && count <= MAX_FINDS) return { helper, find: first, perl: second, count }
  }
  if (helper === 'stat' && fields.length === 2 && absolute(fields)) return { helper, xargs: first, stat: second }
  if (helper === 'stat-lines' && fields.length === 4 && absolute([first, second, third]) && (option === '-c' || option === '-f')) {
    return { helper, xargs: first, stat: second, sh: third, formatOption: option }
  }
  return undefined
}
