// Arguments as the shell passed their bytes: Node decodes argv as UTF-8 and replaces what is not.
import { isUtf8 } from 'node:buffer'
import { readFileSync } from 'node:fs'

/**
 * The position (0-based, among the last `count`) of the first argument whose bytes are not valid
 * UTF-8, read from `/proc/self/cmdline`, or undefined. Node hands such an argument over with each bad
 * byte as U+FFFD, so `dsh grep $'\xff'` would search for U+FFFD: a literal U+FFFD the user typed is
 * valid UTF-8 and passes. Where there is no /proc (macOS, a BSD), the bytes cannot be seen and nothing
 * is refused.
 */
export function firstInvalidArgument(count: number, cmdline: () => Buffer = () => readFileSync('/proc/self/cmdline')): number | undefined {
  let raw: Buffer
  try {
    raw = cmdline()
  } catch {
    return undefined
  }
  const words: Buffer[] = []
  for (let start = 0; start < raw.length;) {
    const end = raw.indexOf(0, start)
    const stop = end === -1 ? raw.length : end
    words.push(raw.subarray(start, stop))
    start = stop + 1
  }
  const args = words.slice(-count)
  if (count === 0 || args.length !== count) return undefined
  const bad = args.findIndex((word) => !isUtf8(word))
  return bad === -1 ? undefined : bad
}
