// Bundles the dsh command into one file (packages/cli/dist/dsh.mjs) after `tsc -b`.
// Loading the workspace's ~150 separate ES modules (zod's alone are ~100) costs ~70 ms on every
// call; one file saves most of it. @vscode/ripgrep stays external: it resolves its platform binary
// relative to its own location in node_modules.
import { build } from 'esbuild'

await build({
  entryPoints: [new URL('../packages/cli/src/bin.ts', import.meta.url).pathname],
  outfile: new URL('../packages/cli/dist/dsh.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@vscode/ripgrep'],
  // Bundled CommonJS dependencies may call require; give the ES module one.
  banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  logLevel: 'warning',
})
