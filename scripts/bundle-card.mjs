// Bundles <dsh-search-card> after `tsc -b`: packages/search-card/dist/search-card.bundle.js, one ES module
// with Lit inside, which a plain HTML page loads with one <script type="module"> and which defines the
// element. `dsh … --format html` inlines it, so it must stand alone: no import is left for a browser to fetch.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const repo = fileURLToPath(new URL('..', import.meta.url))
const card = path.join(repo, 'packages', 'search-card')

await build({
  entryPoints: [path.join(card, 'src', 'index.ts')],
  outfile: path.join(card, 'dist', 'search-card.bundle.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // Browsers that run custom elements and class fields natively; Lit's own baseline.
  target: 'es2021',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
  absWorkingDir: repo,
})
