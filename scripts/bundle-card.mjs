// Bundles <dsh-search-card> after `tsc -b`: packages/search-card/dist/search-card.bundle.js, one ES module
// with Lit inside, which a plain HTML page loads with one <script type="module"> and which defines the
// element. `dsh … --format html` inlines it, so it must stand alone: no import is left for a browser to fetch.
// Then the card as an MCP App view, dist/search-card-app.bundle.js: the card, `mountSearchCardApp` and
// the MCP Apps `App` (@modelcontextprotocol/ext-apps, with the MCP SDK it needs), connected to the
// host window; `dsh mcp` inlines it in the `ui://` resource grep and glob declare.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { englishOnly } from './zod-english-only.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const card = path.join(repo, 'packages', 'search-card')

const shared = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // Browsers that run custom elements and class fields natively; Lit's own baseline.
  target: 'es2021',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
  absWorkingDir: repo,
}

await build({
  ...shared,
  entryPoints: [path.join(card, 'src', 'index.ts')],
  outfile: path.join(card, 'dist', 'search-card.bundle.js'),
})

// The handlers are set before the App connects, so the host's first tool input and result are not missed.
await build({
  ...shared,
  stdin: {
    contents: [
      "import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps'",
      "import { mountSearchCardApp } from './src/mcp-app.ts'",
      "const app = new App({ name: 'dsh-search-card', version: '1' })",
      'mountSearchCardApp(app, document.body)',
      'void app.connect(new PostMessageTransport(window.parent, window.parent))',
    ].join('\n'),
    resolveDir: card,
    loader: 'ts',
  },
  outfile: path.join(card, 'dist', 'search-card-app.bundle.js'),
  plugins: [englishOnly],
})
