// A host process for the lifeline tests: `node child-host.mjs <killGraceMs> <command> [<go file>
// <second command>]` runs a command through the local executor the way dsh does (and, once the go
// file exists, a second one beside it), then prints the first one's exit code and the pids of its own
// children still alive (the lifeline's watcher) as JSON. The tests kill it mid-run, or let it end.
import { existsSync } from 'node:fs'
import { createLocalBash } from '@dsh/bash-local'
import { liveChildren } from './process-table.js'

const [killGraceMs, command, goFile, second] = process.argv.slice(2) as [string, string, string?, string?]
const bash = createLocalBash({ killGraceMs: Number(killGraceMs) })
const controller = new AbortController()
// As dsh does: the first Ctrl-C cancels the call; a second finds no handler and kills the process.
process.once('SIGINT', () => controller.abort())
const run = async (line: string) => bash.run(await bash.resolve({ command: line, signal: controller.signal }))

const first = run(command)
if (goFile !== undefined && second !== undefined) {
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 20))
  await run(second)
}
const result = await first
process.stdout.write(JSON.stringify({ exitCode: result.exitCode, children: liveChildren(process.pid) }))
