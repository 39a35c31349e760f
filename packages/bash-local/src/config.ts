// bash-local's options: defaults and ceilings for every limit a request can ask for.
import { describeIssues } from '@dsh/core'
import { z } from 'zod'
import { BashError } from './errors.js'

const KiB = 1024
const MiB = 1024 * KiB
// setTimeout turns a delay above 2^31 - 1 ms into 1 ms, so no duration may exceed it.
const MAX_TIMER_MS = 2 ** 31 - 1
// V8 cannot build a string past ~512 Mi UTF-16 units (ERR_STRING_TOO_LONG); half that leaves room.
const MAX_CAPTURE_BYTES = 256 * MiB
// The ring that keeps the stderr tail is allocated whole, so its ceiling stays small.
const MAX_STDERR_BYTES = 16 * MiB
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const durationMs = z.number().int().positive().max(MAX_TIMER_MS)

/** The local executor's options: the plugin's `Config`, also accepted by `createLocalBash`. */
export const Config = z
  .strictObject({
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Working directory when a request names none; a relative request workdir resolves against it, and a relative value here against the process cwd. @default the process cwd',
      ),
    shellPath: z
      .string()
      .min(1)
      .default('/bin/bash')
      .describe(
        'The shell run as `<shellPath> -c <command>`; an absolute path so no PATH entry can substitute another shell (use "bash" where /bin/bash is absent, e.g. NixOS). @default "/bin/bash"',
      ),
    defaultTimeoutMs: durationMs
      .default(120_000)
      .describe("Wall-clock limit for a request that names none; Claude Code's Bash tool default (2 minutes). @default 120000"),
    maxTimeoutMs: durationMs
      .default(600_000)
      .describe("Ceiling on a request's timeoutMs; Claude Code's Bash tool maximum (10 minutes). @default 600000"),
    defaultStdoutMaxBytes: z
      .number()
      .int()
      .positive()
      .max(MAX_CAPTURE_BYTES)
      .default(1 * MiB)
      .describe(
        'Stdout bytes kept (the head) for a request that names none; 1 MiB is far more than a model reads inline. @default 1048576',
      ),
    maxStdoutMaxBytes: z
      .number()
      .int()
      .positive()
      .max(MAX_CAPTURE_BYTES)
      .default(64 * MiB)
      .describe(
        "Ceiling on a request's stdoutMaxBytes; 64 MiB admits the grep tool's 20,000,000-byte raw cap (Claude Code's rg buffer) with room. At most 256 MiB, since V8 strings stop near 512 Mi units. @default 67108864",
      ),
    defaultStderrMaxBytes: z
      .number()
      .int()
      .positive()
      .max(MAX_STDERR_BYTES)
      .default(64 * KiB)
      .describe(
        'Stderr bytes kept (the tail) for a request that names none; the end of an error message is the informative part. @default 65536',
      ),
    maxStderrMaxBytes: z
      .number()
      .int()
      .positive()
      .max(MAX_STDERR_BYTES)
      .default(1 * MiB)
      .describe(
        "Ceiling on a request's stderrMaxBytes; the tail buffer is allocated whole, so this stays modest (at most 16 MiB). @default 1048576",
      ),
    killGraceMs: durationMs
      .default(2_000)
      .describe(
        'After SIGTERM to the process group (on timeout, on abort, or to background jobs still holding the output pipes once the shell exits), how long before SIGKILL; enough to flush and remove temp files, short enough that a cancelled call returns promptly. @default 2000',
      ),
    env: z
      .array(z.string().regex(ENV_NAME))
      .default([])
      .describe(
        "Names of further parent variables passed to commands beyond the built-in allowlist (PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, the LC_* locale categories, TZ, TMPDIR). Named explicitly, so passed even when the name looks secret (GITHUB_TOKEN for `gh`): naming one is the operator's decision. @default []",
      ),
    envSet: z
      .record(z.string().regex(ENV_NAME), z.string().regex(/^[^\0]*$/))
      .default({})
      .describe('Variables set to fixed values for every command; they override the parent and the allowlist. @default {}'),
  })
  .superRefine((config, ctx) => {
    for (const [key, max] of [
      ['defaultTimeoutMs', 'maxTimeoutMs'],
      ['defaultStdoutMaxBytes', 'maxStdoutMaxBytes'],
      ['defaultStderrMaxBytes', 'maxStderrMaxBytes'],
    ] as const) {
      if (config[key] > config[max]) ctx.addIssue({ code: 'custom', path: [key], message: `must not exceed ${max} (${config[max]})` })
    }
  })

/** Options for `createLocalBash`, as a host writes them (every field optional). */
export type LocalBashOptions = z.input<typeof Config>

/** Options after defaults. */
export type LocalBashSettings = z.output<typeof Config>

/** Validates options with `Config`, throwing `BASH_INVALID_CONFIG` that names each bad field. */
export function parseLocalBashOptions(options: LocalBashOptions | undefined): LocalBashSettings {
  const parsed = Config.safeParse(options ?? {})
  if (parsed.success) return parsed.data
  throw new BashError('BASH_INVALID_CONFIG', `bash-local: invalid options: ${describeIssues(parsed.error)}`, { cause: parsed.error })
}
