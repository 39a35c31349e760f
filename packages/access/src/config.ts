// The access policy's settings: the roots tools may look in and the paths they must never show.
import { z } from 'zod'

/** The access plugin's configuration. */
export const Config = z.strictObject({
  roots: z
    .array(z.string().min(1))
    .default(['.'])
    .describe(
      'Directories glob, grep and read may reach, relative to the session cwd (an absolute one as it is); a path must lie inside one after every symbolic link is followed. /proc, /sys and /dev are inside no root unless a root names them. The spill store\'s own files stay reachable. @default ["."]',
    ),
  deny: z
    .array(
      z
        .string()
        .min(1)
        .refine((pattern) => !pattern.startsWith('!'), 'a deny pattern must not start with "!": deny rules only exclude')
        .refine((pattern) => !pattern.includes('\0') && !pattern.includes('\n'), 'a deny pattern must not hold a NUL or a newline'),
    )
    .default([])
    .describe(
      'gitignore-style patterns, relative to each root, of paths no tool shows: glob and grep exclude them from the walk (so a denied file is never opened), read refuses them, and a symbolic link or a ".." path into one is refused too. E.g. ["**/.env", "**/*.pem", "**/id_*"]. @default []',
    ),
})

/** Validated access configuration. */
export type AccessConfig = z.output<typeof Config>
