// The packages as a consumer receives them: packed tarballs, linted, installed into a fresh TypeScript
// project that runs the README's library example, and installed globally as the `dsh` command.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, scratchDir, waitUntil, writeTree } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const bin = (name: string) => join(repo, 'node_modules', '.bin', name)
const run = promisify(execFile)
const work = scratchDir('packaging')

// `npm test` sets npm_config_* (the repo's prefix among them): a nested npm must not inherit them.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')))
// From the local cache where it can: the registry only for what the cache lacks (zod, ripgrep, the MCP SDK).
const npmInstall = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']

interface Packed {
  name: string
  filename: string
  files: { path: string }[]
}

let packed: Packed[]
const tarball = (p: Packed) => join(work, 'packs', p.filename)

beforeAll(() => {
  mkdirSync(join(work, 'packs'))
  // --ignore-scripts: `npm test` has just built, and prepack's rebuild would rewrite dist/ under the
  // tests still reading it. That a plain `npm pack` builds is checked below.
  const json = execFileSync('npm', ['pack', '--workspaces', '--ignore-scripts', '--json', '--pack-destination', join(work, 'packs')], {
    cwd: repo,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  packed = JSON.parse(json.slice(json.indexOf('['))) as Packed[]
}, budgetMs(120_000))

const workspaces = readdirSync(join(repo, 'packages')).map((dir) => ({
  dir,
  pkg: JSON.parse(readFileSync(join(repo, 'packages', dir, 'package.json'), 'utf8')) as Record<string, unknown>,
}))

describe('each package is publishable', () => {
  it('packs every workspace package', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(workspaces.map((w) => w.pkg.name).sort())
  })

  it.each(workspaces.map((w) => [w.dir, w.pkg] as const))(
    'packages/%s: MIT, described, Node >= 20, zod 4 a peer (but for the browser card), built before it packs',
    (dir, pkg) => {
      expect(pkg).toMatchObject({
        license: 'MIT',
        description: expect.any(String),
        keywords: expect.arrayContaining(['ai-agent']),
        repository: { type: 'git', url: 'git+https://example.invalid/dsh-search.git', directory: `packages/${dir}` },
        engines: { node: '>=20' },
        // The search card runs in a browser page and validates nothing with zod.
        ...(dir === 'search-card' ? {} : { peerDependencies: { zod: '^4.0.0' } }),
        // A plain `npm pack` builds from clean, so no tarball lacks dist/ or carries a deleted source's output.
        scripts: { prepack: expect.stringMatching(/^rm -rf dist && tsc -b\b/) },
      })
      expect(pkg.private, 'only the root stays private').toBeUndefined()
      expect(pkg.dependencies ?? {}).not.toHaveProperty('zod')
      if (dir === 'search-card') expect(pkg).not.toHaveProperty('peerDependencies')
    },
  )

  it('each tarball holds dist with its source maps, the src they point at, a README and the LICENSE, and no build state', () => {
    const license = readFileSync(join(repo, 'LICENSE'), 'utf8')
    for (const p of packed) {
      const files = p.files.map((f) => f.path)
      expect(files, p.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']))
      expect(
        files.filter((f) => f.endsWith('.tsbuildinfo')),
        p.name,
      ).toEqual([])
      const dir = workspaces.find((w) => w.pkg.name === p.name)!.dir
      expect(readFileSync(join(repo, 'packages', dir, 'LICENSE'), 'utf8'), `packages/${dir}/LICENSE`).toBe(license)
      // Source maps resolve: each names sources under src/, and every source file ships.
      for (const map of files.filter((f) => f.endsWith('.js.map') || f.endsWith('.d.ts.map'))) {
        const { sources } = JSON.parse(readFileSync(join(repo, 'packages', dir, map), 'utf8')) as { sources: string[] }
        for (const source of sources) expect(join(dirname(map), source), `${p.name} ${map}`).toMatch(/^src\//)
      }
      const sources = execFileSync('find', ['src', '-name', '*.ts'], { cwd: join(repo, 'packages', dir), encoding: 'utf8' })
      expect(files, p.name).toEqual(expect.arrayContaining(sources.trim().split('\n')))
    }
  })

  it(
    'publint --strict and attw (esm-only) find nothing wrong in any tarball',
    async () => {
      const checks = packed.flatMap((p) => [
        run(bin('publint'), ['run', '--strict', tarball(p)], { env }).then(({ stdout }) => [p.name, 'publint', stdout] as const),
        run(bin('attw'), [tarball(p), '--profile', 'esm-only', '--format', 'ascii', '--no-emoji', '--no-color'], { env }).then(
          ({ stdout }) => [p.name, 'attw', stdout] as const,
        ),
      ])
      // Either tool exits non-zero on a problem, which rejects with its output.
      for (const [name, tool, stdout] of await Promise.all(checks)) {
        if (tool === 'publint') expect(stdout, name).toMatch(/All good!/)
        else expect(stdout, name).toMatch(/node16 \(from ESM\): OK \(ESM\)\nbundler: OK/)
      }
    },
    budgetMs(120_000),
  )
})

/** The ```ts blocks of a markdown file. */
function tsBlocks(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/```ts\n([^]*?)```/g)].map((m) => m[1]!)
}

describe('a TypeScript project that installs the tarballs', () => {
  const project = join(work, 'consumer')

  beforeAll(async () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8')
    const library = readme.slice(readme.indexOf('## Using it as a library'))
    writeTree(project, {
      'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: false, outDir: 'out', types: ['node'] },
        include: ['*.ts'],
      }),
      'library.ts': /```ts\n([^]*?)```/.exec(library)![1]!,
      ...Object.fromEntries(
        workspaces.flatMap(({ dir }) => tsBlocks(join(repo, 'packages', dir, 'README.md')).map((code, i) => [`${dir}-${i}.ts`, code])),
      ),
      'src/a.ts': '// TODO: first\n',
      'src/b.ts': 'export const b = 1 // TODO: second\n',
    })
    utimesSync(join(project, 'src', 'a.ts'), 1_700_000_000, 1_700_000_000)
    await run('npm', [...npmInstall, ...packed.map(tarball), 'zod@^4', 'typescript@5.9', '@types/node@20'], { cwd: project, env })
  }, budgetMs(180_000))

  it('holds one copy of zod, however many packages peer on it', () => {
    const copies = execFileSync('find', [join(project, 'node_modules'), '-path', '*/node_modules/zod/package.json'], { encoding: 'utf8' })
    expect(copies.trim().split('\n')).toEqual([join(project, 'node_modules', 'zod', 'package.json')])
  })

  it(
    'type-checks every README example (nodenext, skipLibCheck off) and runs the library example',
    async () => {
      await run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: project, env })
      const { stdout } = await run(process.execPath, [join(project, 'out', 'library.js')], { cwd: project, env })
      expect(stdout).toBe('2 TODO lines; the first: src/a.ts:1\nnewest .ts file: src/b.ts\n')
    },
    budgetMs(120_000),
  )
})

describe('each library package installs alone, as its README says', () => {
  const library = workspaces.filter((w) => w.dir !== 'cli')

  it.each(library.map((w) => [w.dir, w.pkg] as const))(
    'packages/%s: the README installs its tarball with those it needs',
    async (dir, pkg) => {
      const readme = readFileSync(join(repo, 'packages', dir, 'README.md'), 'utf8')
      const line = /^npm install ((?:\.\/\S+\.tgz ?)+)(.*?) +#/m.exec(readme)
      expect(line, `packages/${dir}/README.md names its tarballs`).not.toBeNull()
      const project = join(work, `alone-${dir}`)
      writeTree(project, { 'package.json': JSON.stringify({ name: `alone-${dir}`, private: true, type: 'module' }) })
      // The README's globs, run by a shell in the directory that holds the tarballs, installed into the project.
      const words = `${line![1]!} ${line![2]!}`.trim()
      await run('sh', ['-c', `npm ${npmInstall.join(' ')} --prefix "$1" ${words}`, 'sh', project], { cwd: join(work, 'packs'), env })
      const { stdout } = await run(
        process.execPath,
        ['--input-type=module', '-e', `console.log(Object.keys(await import(${JSON.stringify(pkg.name)})).length > 0)`],
        {
          cwd: project,
          env,
        },
      )
      expect(stdout).toBe('true\n')
    },
    budgetMs(120_000),
  )
})

/** Bytes in the files under `dir`, as `du --apparent-size` counts them: what an install puts on disk. */
function treeBytes(dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size
  }
  return bytes
}

describe('dsh installed globally from its one tarball (docs/design.md#one-tarball-installs-the-command)', () => {
  const prefix = join(work, 'global')
  const tree = join(work, 'tree')
  // No rg on this PATH: grep and glob must run the ripgrep the package carries.
  const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`

  beforeAll(async () => {
    writeTree(tree, { 'a.txt': 'needle\n', 'sub/b.txt': 'needle again\n' })
    const cli = packed.find((p) => p.name === '@dsh/cli')!
    await run('npm', [...npmInstall, '--global', '--prefix', prefix, tarball(cli)], { cwd: work, env })
  }, budgetMs(180_000))

  it('installs @dsh/cli and @vscode/ripgrep alone, in at most 40 MB', () => {
    const installed = execFileSync(
      'find',
      [
        join(prefix, 'lib'),
        '-name',
        'package.json',
        '-path',
        '*/node_modules/*/package.json',
        '-not',
        '-path',
        '*/node_modules/*/node_modules/*/*/*',
      ],
      { encoding: 'utf8' },
    )
    const names = installed
      .trim()
      .split('\n')
      // A package's own manifest, not one inside it (bin/package.json says only that bin/ is CommonJS).
      .filter((file) => /\/node_modules\/(@[^/]+\/)?[^/]+\/package\.json$/.test(file))
      .map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name)
    expect(names.filter((name) => !name.startsWith('@vscode/ripgrep')).sort()).toEqual(['@dsh/cli'])
    // npm links the man page the build wrote into the prefix's man path.
    const man = readFileSync(join(prefix, 'share', 'man', 'man1', 'dsh.1'), 'utf8')
    expect(man).toMatch(/^\.TH DSH 1 /)
    expect(man).toContain('dsh grep PATTERN [PATH] [\\-\\-include INCLUDE]')
    const bytes = treeBytes(prefix)
    console.info(`dsh installed from its one tarball: ${(bytes / 1e6).toFixed(1)} MB in ${prefix}`)
    expect(bytes).toBeLessThanOrEqual(40e6)
  })

  /** Runs the installed `dsh` from `/`, far from any project. */
  const dsh = (...argv: string[]) => {
    const result = spawnSync(join(prefix, 'bin', 'dsh'), ['--spill-dir', join(work, 'spill'), ...argv], {
      cwd: '/',
      env: { ...env, PATH },
      encoding: 'utf8',
      timeout: budgetMs(30_000),
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }

  it('greps and globs from / with the packaged ripgrep', () => {
    expect(spawnSync('sh', ['-c', 'command -v rg'], { env: { PATH } }).status, 'a system rg would hide the packaged one').not.toBe(0)
    // Paths show relative to the session's cwd, here /.
    const shown = tree.slice(1)
    expect(dsh('grep', 'needle', tree, '--format', 'lines')).toEqual({
      code: 0,
      stdout: `${shown}/a.txt:1:needle\n${shown}/sub/b.txt:1:needle again\n`,
      stderr: '',
    })
    expect(dsh('glob', '**/*.txt', tree, '--format', 'lines').stdout.split('\n').sort()).toEqual([
      '',
      `${shown}/a.txt`,
      `${shown}/sub/b.txt`,
    ])
  })

  it('prints a search card page with the card bundle it carries', () => {
    const page = dsh('grep', 'needle', tree, '--format', 'html')
    expect(page).toMatchObject({ code: 0, stderr: '' })
    expect(page.stdout).toContain('<dsh-search-card></dsh-search-card>')
    const card = packed.find((p) => p.name === '@dsh/search-card')!
    expect(card.files.map((f) => f.path)).toContain('dist/search-card.bundle.js')
    const bundle = readFileSync(join(repo, 'packages', 'search-card', 'dist', 'search-card.bundle.js'), 'utf8')
    expect(page.stdout).toContain(bundle.slice(0, 200))
  })

  it('serves the tools over MCP on stdio', () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
    const result = spawnSync(join(prefix, 'bin', 'dsh'), ['mcp'], {
      cwd: '/',
      env: { ...env, PATH },
      input: messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
      encoding: 'utf8',
      timeout: budgetMs(30_000),
    })
    expect(result.status).toBe(0)
    const replies = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { tools?: { name: string }[] } })
    expect(replies.find((r) => r.id === 2)?.result.tools?.map((t) => t.name)).toEqual(['glob', 'grep', 'read'])
  })

  it(
    'fronts an upstream MCP server with the client SDK its bundle carries',
    async () => {
      // How long waiting may take, from how long this machine takes to start dsh: the gateway starts
      // the upstream (a second dsh) and connects to it, a few starts' work.
      const started = performance.now()
      expect(dsh('--version').code).toBe(0)
      const within = 40 * (performance.now() - started)
      const upstream = join(work, 'upstream.json')
      writeTree(work, {
        'upstream.json': JSON.stringify({ mcpServers: { inner: { command: join(prefix, 'bin', 'dsh'), args: ['mcp'] } } }),
      })
      const child = spawn(join(prefix, 'bin', 'dsh'), ['mcp', '--upstream', upstream], { cwd: '/', env: { ...env, PATH } })
      const closed = new Promise((resolve) => child.once('close', resolve))
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      })
      send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      // tool_search says the upstream is still connecting until it is: ask again until it answers with its tools.
      let id = 1
      const loaded = await waitUntil(() => {
        if (stdout.includes('mcp__inner__grep')) return true
        if (id === 1 || stdout.includes(`"id":${id}}`)) {
          id += 1
          send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'tool_search', arguments: { query: 'inner grep' } } })
        }
        return false
      }, within)
      child.stdin.end()
      await closed
      expect(loaded, stdout).toBe(true)
      expect(stdout).toMatch(/Loaded \d+ tools?[^"]*mcp__inner__grep/)
    },
    budgetMs(120_000),
  )
})
