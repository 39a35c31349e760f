// The model-facing argument schema: read(path, offset?, limit?).
import { z } from 'zod'

/** read(path, offset?, limit?); `limit` is capped by the configured page length. */
export function readArgs(maxLines: number) {
  return z.strictObject({
    path: z.string().min(1).describe('The file to read: an absolute path, or one relative to the working directory.'),
    offset: z.number().int().min(1).optional().describe('1-based number of the first line to show. Default: 1.'),
    limit: z.number().int().min(1).max(maxLines).optional().describe(`How many lines to show at most. Default and maximum: ${maxLines}.`),
  })
}

/** A read call's validated arguments. */
export type ReadArgs = z.output<ReturnType<typeof readArgs>>
