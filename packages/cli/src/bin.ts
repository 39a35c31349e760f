// The `dsh` executable: everything else lives in runCli, which tests drive directly.
import { createRequire } from 'node:module'
import { errorMessage } from '@dsh/core'
import { runCli } from './cli.js'
import { firstInvalidArgument } from './raw-argv.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

/** Ends the process with status 2, an error (EXIT.error), after one line on stderr: a broken environment is no place for a stack trace. */
function fail(what: string, error: unknown): never {
  process.stderr.write(`dsh: ${what}: ${errorMessage(error)}\n`)
  process.exit(2)
}

// A reader that closes early (`dsh grep x | head -1`) is not an error: stop quietly, as other tools do.
// Any other write failure (a full disk, /dev/full) is, and says so in one line.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit()
  fail('cannot write the output', error)
})

// Node hands an argument whose bytes are not UTF-8 over with U+FFFD in their place: refuse it, not search for U+FFFD.
const invalid = firstInvalidArgument(process.argv.length - 2)
if (invalid !== undefined) {
  process.stderr.write(`dsh: argument ${invalid + 1} is not valid UTF-8 (the shell passed raw bytes); pass text as UTF-8\n`)
  process.exit(2)
}

let cwd: string
try {
  cwd = process.cwd()
} catch (error) {
  fail('the current directory cannot be read (was it deleted?); cd to another directory', error)
}
try {
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd,
    version,
    stdio: { stdin: process.stdin, stdout: process.stdout },
    terminal: { isTTY: process.stdout.isTTY === true, env: process.env },
  })
} catch (error) {
  // A file as stdout writes synchronously, so its failure arrives here rather than as an event.
  if ((error as NodeJS.ErrnoException).syscall === 'write') fail('cannot write the output', error)
  throw error
}
