// The read tool's budgets, kept out of the model-facing schema.
import { z } from 'zod'

const positiveInt = () => z.number().int().positive()

/** Bytes at the start of a file checked for a NUL byte (binary); git's check reads the first 8000. */
export const BINARY_SNIFF_BYTES = 8192

/** The read tool's configuration. */
export const Config = z.strictObject({
  profile: z
    .enum(['dsh', 'claude-code'])
    .default('dsh')
    .describe(
      "The tool surface: `dsh` registers read(path, offset?, limit?); `claude-code` registers Claude Code's Read(file_path, offset?, limit?). @default dsh",
    ),
  readMaxLines: positiveInt()
    .max(100_000)
    .default(2000)
    .describe("Lines shown when a call gives no limit, and the most a call may ask for; Claude Code's Read tool default. @default 2000"),
  readMaxLineBytes: positiveInt()
    .max(1_000_000)
    .default(2000)
    .describe(
      "Bytes of one line shown; a longer line is cut on a character boundary and marked. Claude Code's Read cuts lines at 2000 characters; this counts bytes. @default 2000",
    ),
  readMaxBytes: positiveInt()
    .max(10_000_000)
    .default(50_000)
    .describe(
      'Bytes of line text shown per call, numbering excluded: the page ends before the line that would pass it, and always shows at least one line. @default 50000',
    ),
  timeoutMs: positiveInt()
    .max(3_600_000)
    .default(30_000)
    .describe('Tool-call timeout: aborts the read and closes the file. @default 30000'),
})

/** Validated read configuration. */
export type ReadConfig = z.output<typeof Config>
