// spill-local's options: where files go and how long they are kept.
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { describeIssues } from '@dsh/core'
import { z } from 'zod'
import { SpillError } from './errors.js'

const MINUTE_MS = 60 * 1000
const DAY_MS = 24 * 60 * MINUTE_MS
const MiB = 1024 * 1024

/** The store's options: the plugin's `Config`, also accepted by `createLocalSpillStore`. */
export const Config = z.strictObject({
  root: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Directory that holds one subdirectory per owner (session). The store writes only into owner directories it created (marked by a .dsh-spill-owner file), so the root may hold other things. A per-user state dir, not the shared temp dir, so another user cannot pre-create or read it, and spilled results outlive a reboot for the rest of a session. @default "$XDG_STATE_HOME/dsh/spill", else "~/.local/state/dsh/spill"',
    ),
  maxAgeMs: z
    .number()
    .int()
    .positive()
    .default(7 * DAY_MS)
    .describe('After a save, files of that owner older than this are deleted; a week covers a resumed session. @default 604800000'),
  maxBytesPerOwner: z
    .number()
    .int()
    .positive()
    .default(256 * MiB)
    .describe(
      "After a save, an owner's oldest files are deleted until its total fits; 256 MiB holds a dozen of the grep tool's largest results. Files younger than minAgeMs are kept, so the total may pass this for that long. @default 268435456",
    ),
  minAgeMs: z
    .number()
    .int()
    .nonnegative()
    .default(10 * MINUTE_MS)
    .describe(
      'Retention never deletes a file younger than this, whatever maxAgeMs and maxBytesPerOwner say, so a result another call has just reported survives the saves that run beside it; 10 minutes lets a model page through it. 0 turns the grace off. @default 600000',
    ),
})

/** Options for `createLocalSpillStore`, as a host writes them. */
export type LocalSpillOptions = z.input<typeof Config>

/** Options after defaults, with the root decided. */
export type LocalSpillSettings = Omit<z.output<typeof Config>, 'root'> & { root: string }

/** Validates options with `Config` and decides the root, throwing `SPILL_INVALID_CONFIG` for a bad field. */
export function parseLocalSpillOptions(options: LocalSpillOptions): LocalSpillSettings {
  const parsed = Config.safeParse(options)
  if (!parsed.success) {
    throw new SpillError('SPILL_INVALID_CONFIG', `spill-local: invalid options: ${describeIssues(parsed.error)}`, { cause: parsed.error })
  }
  return { ...parsed.data, root: resolve(parsed.data.root ?? defaultRoot()) }
}

/** `$XDG_STATE_HOME/dsh/spill`; the XDG spec ignores a relative XDG_STATE_HOME and defaults it to ~/.local/state. */
function defaultRoot(): string {
  const stateHome = process.env.XDG_STATE_HOME
  const base = stateHome !== undefined && isAbsolute(stateHome) ? stateHome : join(homedir(), '.local', 'state')
  return join(base, 'dsh', 'spill')
}
