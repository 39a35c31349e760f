// A child process for the cross-process tests: `node child-saver.mjs <options JSON> <owner> <count>`
// saves `count` texts at once through one store and prints their locators as a JSON array.
import { createLocalSpillStore, type LocalSpillOptions } from '@dsh/spill-local'

const [options, owner, count] = process.argv.slice(2) as [string, string, string]
const store = createLocalSpillStore(JSON.parse(options) as LocalSpillOptions)
const saved = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    store.saveText({
      owner,
      source: { toolName: 'grep', callId: `c${i}`, label: 'result' },
      text: `${process.pid} ${i}\n`.repeat(10),
      filename: 'grep-results.txt',
    }),
  ),
)
process.stdout.write(JSON.stringify(saved.map((s) => s.locator)))
