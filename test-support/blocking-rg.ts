// An rg that prints its real output and then blocks, as an rg still walking a tree too big to finish does.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** How the blocking rg ends a search's output. */
export interface BlockingRgOptions {
  /** Bytes printed after rg's own output, as if the next record had been cut off mid-write. @default '' */
  tail?: string | Buffer
}

/**
 * Writes `<dir>/rg`, an rg whose searches never finish: a timeout always fires after their output,
 * however loaded the machine, and no test needs a FIFO or a tree too big to search. For a search (its
 * arguments hold `--null`, as every search script's do and no probe's or window fetch's) it runs
 * `realRg`, prints `tail`, then waits ten minutes; anything else is `realRg` itself. In glob's pipeline
 * (the script's status pipe, fd 3, is open) it exits once rg has, so the mtime helper passes the
 * whole listing on, and leaves a subshell holding fd 3, so the script still waits for it. The waiting
 * rg and that subshell both keep this file's path in their command line: a test can look for them.
 */
export function writeBlockingRg(dir: string, realRg: string, { tail = '' }: BlockingRgOptions = {}): string {
  const rg = join(dir, 'rg')
  // printf's octal escapes carry any byte, a NUL included, through the script's quoting.
  const printed = [...Buffer.from(tail)].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('')
  const real = `'${realRg.replaceAll("'", "'\\''")}'`
  const script = [
    '#!/bin/sh',
    `case " $* " in *" --null "*) ;; *) exec ${real} "$@" ;; esac`,
    `${real} "$@"`,
    'status=$?',
    `printf '${printed}'`,
    'if (: >&3) 2>/dev/null; then',
    '  (sleep 600; :) >/dev/null 2>&1 </dev/null &',
    '  exit $status',
    'fi',
    'sleep 600',
    '',
  ].join('\n')
  writeFileSync(rg, script, { mode: 0o755 })
  return rg
}
