// The `dsh` executable: everything else lives in runCli, which tests drive directly.
import { createRequire } from 'node:module'
import { runCli } from './cli.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), version })
