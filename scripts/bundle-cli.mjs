// Bundles the dsh command (packages/cli/dist/dsh.mjs and its chunks/) after `tsc -b`.
// Loading the workspace's ~150 separate ES modules (zod's alone are ~100) costs ~70 ms on every
// call; a bundle saves most of it. What only `dsh mcp` needs (the MCP SDK, ~0.6 MB) is split into a
// chunk that other commands never parse: 40–90 ms off every other call. @vscode/ripgrep stays
// external: it resolves its platform binary relative to its own location in node_modules.
import { rmSync } from 'node:fs'
import { build } from 'esbuild'

// Chunk names carry a content hash: clear the last build's, or they pile up in every package.
rmSync(new URL('../packages/cli/dist/chunks', import.meta.url), { recursive: true, force: true })

await build({
  entryPoints: [new URL('../packages/cli/src/bin.ts', import.meta.url).pathname],
  outdir: new URL('../packages/cli/dist', import.meta.url).pathname,
  entryNames: 'dsh',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@vscode/ripgrep'],
  // Bundled CommonJS dependencies may call require; give the ES module one.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
})
