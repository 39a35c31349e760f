// Bundles the dsh command after `tsc -b`: packages/cli/dist/dsh.mjs runs bin.ts, and loads the rest of
// the program (dist/chunks/dsh-program.cjs) through V8's code cache (dist/chunks/dsh-program.cache).
//
// Loading the workspace's ~150 separate ES modules (zod's alone are ~100) costs ~70 ms on every call;
// one bundle saves most of it. Compiling the bundle's functions costs most of the rest, and Node 20
// caches compiled code only for a script (`vm.Script` `cachedData`), not for an ES module: so the
// program is a CommonJS script, and bin.ts (whose top-level await a script cannot hold) a small
// module that loads it. The cache is written by running the command once, through bin/dsh.js so that
// V8 runs with the flags it runs with for a user (a cache made under other flags is rejected). A
// missing or rejected cache only costs the compile it would have saved. @vscode/ripgrep stays
// external: it resolves its platform binary relative to its own location in node_modules.
//
// What only `dsh mcp` runs (@dsh/mcp and the MCP server SDK, ~0.6 MB) is a second script,
// dist/chunks/dsh-mcp.cjs, loaded when the CLI first imports @dsh/mcp: every other command would parse
// it for nothing. It is given the program's own @dsh/core and zod, so there is one copy of each in the
// process. The MCP client SDK (~1 MB), which only `dsh mcp --upstream` runs, is a third script,
// dist/chunks/dsh-mcp-client.cjs, loaded by the MCP chunk when a gateway first connects, with the same
// zod.
//
// So the package needs nothing at run time but @vscode/ripgrep: one tarball installs the command
// (docs/design.md#one-tarball-installs-the-command). The search card's bundle is copied beside the
// program, where the CLI reads it before looking for @dsh/search-card, and so is its MCP App view. The man page, dist/dsh.1, is
// written here too, and the index build's worker, dist/chunks/key-worker.js.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { englishOnly } from './zod-english-only.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const dist = path.join(repo, 'packages', 'cli', 'dist')
const PROGRAM = 'chunks/dsh-program.cjs'
const CACHE = 'chunks/dsh-program.cache'
const MCP = 'chunks/dsh-mcp.cjs'
const MCP_CLIENT = 'chunks/dsh-mcp-client.cjs'
const CARD_BUNDLES = ['search-card.bundle.js', 'search-card-app.bundle.js']
// The modules the MCP chunk takes from the program instead of bundling its own copies.
const SHARED_WITH_MCP = ['@dsh/core', 'zod', 'zod/v4']

// What bin.ts imports, served from the program script instead of bundled into the module.
const LOAD_PROGRAM = `
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Script } from 'node:vm'

const program = fileURLToPath(new URL(${JSON.stringify(`./${PROGRAM}`)}, import.meta.url))
const cache = fileURLToPath(new URL(${JSON.stringify(`./${CACHE}`)}, import.meta.url))
let cachedData
try {
  cachedData = readFileSync(cache)
} catch {
  // No cache: V8 compiles from source.
}
const script = new Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(program, 'utf8') + '\\n})', {
  filename: program,
  ...(cachedData === undefined ? {} : { cachedData }),
})
// The build runs the command once with this set, to write the code it compiled; a cache that cannot
// be written is no failure of the command.
if (process.env.DSH_WRITE_CODE_CACHE === '1') {
  process.once('exit', () => {
    try {
      writeFileSync(cache, script.createCachedData())
    } catch {
      // Left without a cache: the next call compiles from source.
    }
  })
}
const loaded = { exports: {} }
script.runInThisContext()(loaded.exports, createRequire(program), loaded, program, path.dirname(program))
export const { runCli, mayHandBack, createDshHarness, errorMessage, Config, LinkScanMemory } = loaded.exports
`
// What the CLI imports as @dsh/mcp inside the program: a module whose body runs the chunk, with the
// program's shared modules, and re-exports what it exports. The CLI imports @dsh/mcp only with
// import(), which the bundle turns into a require: so the body runs when a command first needs it.
const mcpExports = Object.keys(await import(pathToFileURL(path.join(repo, 'packages', 'mcp', 'dist', 'index.js')).href))
const LOAD_MCP = `
import * as core from '@dsh/core'
import * as zod from 'zod'
import * as zodV4 from 'zod/v4'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Script } from 'node:vm'

const shared = { '@dsh/core': core, zod, 'zod/v4': zodV4 }
// __dirname is the program's directory, where the chunk sits beside it.
const file = path.join(__dirname, ${JSON.stringify(path.basename(MCP))})
const requireNear = createRequire(file)
const wrapped = new Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'utf8') + '\\n})', { filename: file })
const chunk = { exports: {} }
wrapped.runInThisContext()(chunk.exports, (id) => (Object.hasOwn(shared, id) ? shared[id] : requireNear(id)), chunk, file, path.dirname(file))
export const { ${mcpExports.join(', ')} } = chunk.exports
`
const mcpShim = {
  name: 'dsh-mcp',
  setup(build) {
    build.onResolve({ filter: /^@dsh\/mcp$/ }, () => ({ path: 'load-mcp', namespace: 'dsh-mcp' }))
    build.onLoad({ filter: /.*/, namespace: 'dsh-mcp' }, () => ({ contents: LOAD_MCP, loader: 'js', resolveDir: repo }))
  },
}
// What the MCP chunk imports as the client SDK (always with import(), so the body runs when a gateway
// first connects): the client chunk, run with the MCP chunk's zod, its exports under their modules' names.
const CLIENT_MODULES = { client: '@modelcontextprotocol/client', stdio: '@modelcontextprotocol/client/stdio' }
const clientExports = Object.fromEntries(
  await Promise.all(Object.entries(CLIENT_MODULES).map(async ([key, id]) => [key, Object.keys(await import(id))])),
)
const LOAD_MCP_CLIENT = `
import * as zod from 'zod'
import * as zodV4 from 'zod/v4'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Script } from 'node:vm'

const shared = { zod, 'zod/v4': zodV4 }
// __dirname is the MCP chunk's directory, where the client chunk sits beside it.
const file = path.join(__dirname, ${JSON.stringify(path.basename(MCP_CLIENT))})
const requireNear = createRequire(file)
const wrapped = new Script('(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'utf8') + '\\n})', { filename: file })
const chunk = { exports: {} }
wrapped.runInThisContext()(chunk.exports, (id) => (Object.hasOwn(shared, id) ? shared[id] : requireNear(id)), chunk, file, path.dirname(file))
export const { client, stdio } = chunk.exports
`
const mcpClientShim = {
  name: 'dsh-mcp-client',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/client(\/stdio)?$/ }, (args) => ({
      path: args.path.endsWith('/stdio') ? 'stdio' : 'client',
      namespace: 'dsh-mcp-client',
    }))
    build.onResolve({ filter: /^load-mcp-client$/ }, () => ({ path: 'load', namespace: 'dsh-mcp-client' }))
    build.onLoad({ filter: /.*/, namespace: 'dsh-mcp-client' }, (args) => ({
      contents:
        args.path === 'load'
          ? LOAD_MCP_CLIENT
          : `import { ${args.path} } from 'load-mcp-client'\nexport const { ${clientExports[args.path].join(', ')} } = ${args.path}`,
      loader: 'js',
      resolveDir: repo,
    }))
  },
}

// In the chunk, a workspace package other than those shared would be a second copy with its own state.
const onlySharedWorkspace = {
  name: 'dsh-mcp-shared',
  setup(build) {
    build.onResolve({ filter: /^@dsh\// }, (args) =>
      SHARED_WITH_MCP.includes(args.path)
        ? { path: args.path, external: true }
        : { errors: [{ text: `the MCP chunk would bundle its own ${args.path}: share it from the program` }] },
    )
  },
}

const programShim = {
  name: 'dsh-program',
  setup(build) {
    build.onResolve({ filter: /^(\.\/cli\.js|\.\/harness\.js|@dsh\/core|@dsh\/tool-fs-search)$/ }, (args) =>
      args.importer.endsWith(path.join('cli', 'src', 'bin.ts')) ? { path: 'load-program', namespace: 'dsh-program' } : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'dsh-program' }, () => ({ contents: LOAD_PROGRAM, loader: 'js', resolveDir: repo }))
  },
}

rmSync(path.join(dist, 'chunks'), { recursive: true, force: true })
rmSync(path.join(dist, 'dsh.mjs'), { force: true })
rmSync(path.join(dist, 'dsh-client.mjs'), { force: true })
rmSync(path.join(dist, 'dsh-client.cjs'), { force: true })
const shared = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', absWorkingDir: repo }
await build({
  ...shared,
  stdin: {
    contents: [
      // The warm server asks mayHandBack whether a call may be handed back (dsh index).
      "export { mayHandBack, runCli } from './packages/cli/src/cli.ts'",
      // The warm server loads the index of the tree it was started in through the program's own copy.
      "export { createDshHarness } from './packages/cli/src/harness.ts'",
      "export { errorMessage } from '@dsh/core'",
      // What the warm server takes besides runCli: zod and the link scan, not bundled into dsh.mjs twice.
      "export { Config, LinkScanMemory } from '@dsh/tool-fs-search'",
    ].join('\n'),
    resolveDir: repo,
    loader: 'ts',
  },
  outfile: path.join(dist, PROGRAM),
  format: 'cjs',
  external: ['@vscode/ripgrep'],
  // A script run by vm.Script has no loader for import(): `import('@vscode/ripgrep')` becomes a require.
  supported: { 'dynamic-import': false },
  // Nor has it import.meta: the CLI finds @dsh/search-card's bundle from its own URL, the script's file.
  banner: { js: "var importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': 'importMetaUrl' },
  plugins: [englishOnly, mcpShim],
})
await build({
  ...shared,
  entryPoints: [path.join(repo, 'packages', 'mcp', 'src', 'index.ts')],
  outfile: path.join(dist, MCP),
  format: 'cjs',
  external: SHARED_WITH_MCP.filter((name) => !name.startsWith('@dsh/')),
  supported: { 'dynamic-import': false },
  plugins: [onlySharedWorkspace, mcpClientShim],
})
await build({
  ...shared,
  stdin: {
    contents: Object.entries(CLIENT_MODULES)
      .map(([key, id]) => `export * as ${key} from '${id}'`)
      .join('\n'),
    resolveDir: repo,
    loader: 'js',
  },
  outfile: path.join(dist, MCP_CLIENT),
  format: 'cjs',
  external: ['zod', 'zod/v4'],
  supported: { 'dynamic-import': false },
})
for (const bundle of CARD_BUNDLES) {
  copyFileSync(path.join(repo, 'packages', 'search-card', 'dist', bundle), path.join(dist, 'chunks', bundle))
}
await build({
  ...shared,
  entryPoints: [path.join(repo, 'packages', 'cli', 'src', 'bin.ts')],
  outfile: path.join(dist, 'dsh.mjs'),
  format: 'esm',
  plugins: [programShim],
})

// The index build's worker (docs/design.md#an-index-chooses-files-rg-decides-matches): @dsh/index-local
// starts it from key-worker.js beside its own module, which in the program is the program's script.
await build({
  ...shared,
  entryPoints: [path.join(repo, 'packages', 'index-local', 'src', 'key-worker.ts')],
  outfile: path.join(dist, 'chunks', 'key-worker.js'),
  format: 'esm',
})

// The thin client (docs/design.md#a-warm-server): bin/dsh.js loads it first, and the program only when
// the warm server does not take the call. Node builtins only, and CommonJS, so that a served call
// starts no ES module loader (bin/dsh.js is CommonJS too).
await build({
  ...shared,
  entryPoints: [path.join(repo, 'packages', 'cli', 'src', 'daemon', 'entry.ts')],
  outfile: path.join(dist, 'dsh-client.cjs'),
  format: 'cjs',
  // A script has no import.meta: the client's createRequire takes its own file's path instead.
  define: { 'import.meta.url': '__filename' },
})

// dsh(1), from the tools a default harness registers (as `dsh --help` lists them): npm links it into
// the man path of a global install (package.json "man").
{
  const cli = (file) => import(pathToFileURL(path.join(dist, file)).href)
  const [{ createDshHarness }, { manPage }, { BUILTIN_SHAPES }] = await Promise.all([
    cli('harness.js'),
    cli('man-page.js'),
    cli('builtin-args.js'),
  ])
  const harness = await createDshHarness({ config: {} })
  const { version } = JSON.parse(readFileSync(path.join(repo, 'packages', 'cli', 'package.json'), 'utf8'))
  writeFileSync(path.join(dist, 'dsh.1'), manPage({ tools: harness.registry.list(), builtins: BUILTIN_SHAPES, version }))
}

// One grep of a small tree compiles what most calls run: the harness, the probes, a search and its page.
const tree = mkdtempSync(path.join(os.tmpdir(), 'dsh-code-cache-'))
try {
  for (let i = 0; i < 20; i += 1) writeFileSync(path.join(tree, `f${i}.ts`), `const value${i} = ${i}\n// needle ${i}\n`)
  const run = spawnSync(path.join(repo, 'packages', 'cli', 'bin', 'dsh.js'), ['grep', 'needle', '--cwd', tree, '--spill-dir', tree], {
    // In this process: the warm server would compile the code, not this run.
    env: { ...process.env, DSH_WRITE_CODE_CACHE: '1', DSH_NO_DAEMON: '1' },
    encoding: 'utf8',
  })
  if (run.status !== 0)
    process.stderr.write(`bundle-cli: no code cache (dsh grep exited ${run.status}): ${run.stderr}${run.error?.message ?? ''}\n`)
} finally {
  rmSync(tree, { recursive: true, force: true })
}
