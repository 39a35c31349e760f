// Every rg command the package runs, and the bench's, is written here (docs/design.md#no-value-becomes-a-flag).
import { shellCommand } from './shell-quote.js'

/** One rg run: which rg, the flags the code chose, and the values a model or a caller gave. */
export interface RgCall {
  /** The rg the load-time probe chose. */
  rg: string
  /**
   * Flags the code wrote. Each is one word starting with "-"; a value rides inside its flag
   * (`--glob=…`, `--type=…`), so nothing after it can be read as that value.
   * @default []
   */
  flags?: readonly string[]
  /** The pattern: after `-e`, so one that starts with "-" is still a pattern. */
  pattern?: string
  /**
   * Where rg's paths come from: the words given, after `--`; `'script'`, the script's positional
   * parameters (`"$@"`), which its `set --` ends with `--` and the target (`targetPrelude`); or, when
   * omitted, none, and rg works in the directory it runs in.
   */
  paths?: readonly string[] | 'script'
}

/**
 * rg's argv: `--no-config` first, so a user's RIPGREP_CONFIG_PATH cannot add flags such as `--pre`;
 * then the flags; `-e` and the pattern; `--` and the paths. For a caller that spawns rg itself (the
 * bench), which must also give it no stdin. Throws on a flag that is not one word starting with "-":
 * a code path that would let a value stand as its own word.
 */
export function rgArgv({ rg, flags = [], pattern, paths }: RgCall & { paths?: readonly string[] }): string[] {
  for (const flag of flags) {
    if (!flag.startsWith('-') || flag === '--' || flag === '-') throw new RangeError(`not an rg flag: ${JSON.stringify(flag)}`)
  }
  return [
    rg,
    '--no-config',
    ...flags,
    ...(pattern === undefined ? [] : ['-e', pattern]),
    ...(paths === undefined || paths.length === 0 ? [] : ['--', ...paths]),
  ]
}

/**
 * The same argv as one shell command, every word quoted, stdin /dev/null (rg reads stdin when it
 * thinks it has no path). With `paths: 'script'` the script's `"$@"` follows the flags and pattern.
 */
export function rgCommand({ paths, ...call }: RgCall): string {
  if (paths === 'script') return `${shellCommand(rgArgv(call))} "$@" </dev/null`
  return `${shellCommand(rgArgv({ ...call, paths: paths ?? [] }))} </dev/null`
}

/**
 * `rg --version` for the probe, the one rg run without `--no-config`: rg answers `--version` before it
 * reads any config, and a candidate that is not rg must see `--version` alone (GNU `true` answers it
 * only then), so the probe's refusal can say what the candidate is. `rg` is a shell word the probe's
 * script expands (`"$p"`, the path its lookup found), so it is not quoted here.
 */
export function rgVersionCommand(rgWord: string): string {
  return `${rgWord} --version </dev/null`
}
