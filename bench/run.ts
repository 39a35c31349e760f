// `npm run bench [-- --quick]`: builds the packages, then measures the tools against ripgrep itself.
// The measuring code is imported after the build, since it imports the packages' dist/.
import { ensureBuilt } from './build.js'

const args = process.argv.slice(2)
const unknown = args.filter((arg) => arg !== '--quick')
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown argument ${unknown.join(' ')}; usage: npm run bench [-- --quick]\n`)
  process.exit(2)
}
// Every dsh process the bench starts runs in process unless its case says otherwise (the start case
// measures the warm server in a runtime directory of its own): no server outlives the run.
process.env.DSH_NO_DAEMON = '1'
ensureBuilt()
const { runBench } = await import('./bench.js')
await runBench(args.includes('--quick'))
