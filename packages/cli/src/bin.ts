// The `dsh` executable: everything else lives in runCli, which tests drive directly.
import { createRequire } from 'node:module'
import { runCli } from './cli.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }
// A reader that closes early (`dsh grep x | head -1`) is not an error: stop quietly, as other tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit()
})
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  version,
  stdio: { stdin: process.stdin, stdout: process.stdout },
})
