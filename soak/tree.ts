// The hostile tree the soak searches: sources, awkward names and special files, written from the seed.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { isDenied } from './deny-oracle.js'
import { createRandom } from './random.js'

/** The uid and gid the unprivileged CLI calls run as: `nobody` on Debian. */
export const NOBODY_ID = 65534

/** A file that holds a needle no other file holds, so a search that names it must find it. */
export interface KnownFile {
  /** Relative to the tree root; undefined when the name is not valid UTF-8 (no string can name it). */
  relative: string | undefined
  /** The directory that holds it, relative to the root ("" for the root itself). */
  directory: string
  needle: string
  /** True when the base name holds no glob metacharacter or control byte, so a glob can name it. */
  globSafe: boolean
  /** True when `relative` passes through a symbolic link inside the root (`node_modules/pkg/index.ts`). */
  viaLink: boolean
}

/** Everything the soak made in its temp dir, and what the generators and checks need to know of it. */
export interface SoakTree {
  /** The temp dir holding the tree, the spill dirs and the config files. */
  base: string
  root: string
  spillDir: string
  /** The unprivileged user's spill dir (it cannot write the other one). */
  nobodySpillDir: string
  configDir: string
  /** Files that must never exist: any of them means a model value ran as a command. */
  canaries: string[]
  /** The marker in every denied file (and in a denied name); it must never appear in any output. */
  secretMarker: string
  /** A directory beside the tree, outside every root, that links inside the tree lead to. */
  outsideDir: string
  /** The marker in every file outside the roots (and the searches' environment); it must never appear in any output. */
  outsideMarker: string
  /** Relative paths of the denied files, links not followed, except the one whose name holds the marker. */
  deniedFiles: string[]
  known: KnownFile[]
  /** A needle only in files the unprivileged user cannot read. */
  lockedNeedle: string
  /** Relative paths of the FIFOs: a read of one blocks until a timeout or abort ends it. */
  fifos: string[]
  /** Relative paths of the directory and file chmod 000, restored before cleanup. */
  locked: string[]
}

/** Names that break naive quoting, flag parsing or line-based parsing; each becomes a file with a needle. */
const HOSTILE_NAMES: (string | Buffer)[] = [
  'with space.ts',
  ' leading-space.ts',
  'trailing-space.ts ',
  "quote'single.ts",
  'quote"double.ts',
  '$(touch canary).ts',
  '`touch canary`.ts',
  '-e',
  '--pre=x',
  '-rf.ts',
  '--',
  '-',
  'new\nline.ts',
  'tab\tname.ts',
  'carriage\rreturn.ts',
  'semi;colon|pipe&amp.ts',
  'glob*star?.ts',
  '[bracket].ts',
  '{brace,alt}.ts',
  '!bang.ts',
  '#hash.ts',
  '~tilde.ts',
  'back\\slash.ts',
  'ünïcødé.ts',
  '😀.ts',
  '\u202Eevil.ts',
  '\x1b[31mansi.ts',
  'NUL:colon:0:.ts',
  Buffer.from([0x6e, 0x6f, 0x6e, 0xff, 0xfe, 0x2e, 0x74, 0x73]),
  Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x73]),
]

/** Directories with hostile names, each holding one ordinary file. */
const HOSTILE_DIRS = ['dir with space', '-dash-dir', '$(touch canary)', '!src', 'new\nline-dir']

/**
 * Commands a search might run by name; each is a script that touches the canary. A tool that ran one
 * from the tree (a `.` or empty PATH entry, a relative command) is caught. `node`, `env`, `setpriv` and
 * `time` are left out: the soak itself starts the CLI through them.
 */
const TRAP_COMMANDS = [
  'find',
  'rg',
  'stat',
  'xargs',
  'bash',
  'sh',
  'sort',
  'head',
  'cat',
  'ls',
  'grep',
  'kill',
  'sleep',
  'timeout',
  'tr',
  'sed',
  'awk',
]

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'render', 'parse', 'value', 'index', 'buffer', 'stream', 'token', 'signal']
const MODULES = 8
const FILES_PER_MODULE = 25

/** Writes the tree, spill and config dirs into a fresh temp dir; world-readable except the locked paths. */
export function createHostileTree(seed: number): SoakTree {
  const random = createRandom(seed ^ 0x7ee)
  const base = mkdtempSync(path.join(tmpdir(), 'dsh-soak-'))
  // The unprivileged CLI calls must reach the tree and their config files through the temp dir.
  chmodSync(base, 0o755)
  const root = path.join(base, 'tree')
  const tree: SoakTree = {
    base,
    root,
    spillDir: path.join(base, 'spill'),
    nobodySpillDir: path.join(base, 'spill-nobody'),
    configDir: path.join(base, 'configs'),
    canaries: [path.join(base, 'canary'), path.join(root, 'canary')],
    secretMarker: `SOAKSECRET-${seed.toString(16)}${Math.floor(random.float() * 2 ** 32).toString(16)}`,
    outsideDir: path.join(base, 'outside'),
    outsideMarker: `SOAKOUTSIDE-${seed.toString(16)}${Math.floor(random.float() * 2 ** 32).toString(16)}`,
    deniedFiles: [],
    known: [],
    lockedNeedle: 'SOAKLOCKEDNEEDLE',
    fifos: ['pipe.fifo', 'src/mod03/queue.fifo'],
    locked: ['locked', 'locked-file.ts'],
  }
  mkdirSync(tree.spillDir, { mode: 0o700 })
  mkdirSync(tree.nobodySpillDir, { mode: 0o700 })
  chownSync(tree.nobodySpillDir, NOBODY_ID, NOBODY_ID)
  mkdirSync(tree.configDir, { mode: 0o755 })
  let needles = 0
  const write = (relative: string | Buffer, data: string | Buffer, known = false): void => {
    // The oracle decides what is denied, and a denied file is exactly one that holds the marker.
    const denied = isDenied(Buffer.from(relative).toString('utf8'))
    if (denied !== String(data).includes(tree.secretMarker))
      throw new Error(
        `soak tree: ${JSON.stringify(String(relative))} is ${denied ? '' : 'not '}denied, so it must ${denied ? '' : 'not '}hold the marker`,
      )
    // Buffers throughout: a name that is not valid UTF-8 has no string form.
    const file = Buffer.concat([Buffer.from(`${root}/`), Buffer.from(relative)])
    mkdirSync(file.subarray(0, file.lastIndexOf('/')), { recursive: true })
    writeFileSync(file, data)
    if (!known) return
    const needle = String(data).slice(0, String(data).indexOf(' '))
    const utf8 = Buffer.isBuffer(relative) ? undefined : relative
    const base = path.posix.basename(Buffer.from(relative).toString('latin1'))
    tree.known.push({
      relative: utf8,
      directory: utf8 === undefined ? '' : path.posix.dirname(utf8).replace(/^\.$/, ''),
      needle,
      globSafe: utf8 !== undefined && /^[\w.-]+$/.test(base),
      viaLink: false,
    })
  }
  const nextNeedle = (): string => `SOAKNEEDLE${needles++}X`

  for (let m = 0; m < MODULES; m++) {
    for (let f = 0; f < FILES_PER_MODULE; f++) {
      const lines = [`${nextNeedle()} module m${m} file ${f}`]
      for (let l = 0; l < 30; l++) lines.push(`  const v${l} = ${random.pick(WORDS)}(${random.int(0, 1e6)}) // ${random.pick(WORDS)}`)
      write(`src/mod${pad(m)}/m${pad(m)}f${pad(f)}.ts`, `${lines.join('\n')}\n`, true)
    }
  }
  for (let d = 0; d < 20; d++) write(`docs/page-${pad(d)}.md`, `${nextNeedle()} page\n\n# Page ${d}\n${random.pick(WORDS)} text\n`, true)
  for (const name of HOSTILE_NAMES) write(name, `${nextNeedle()} hostile name\nconst x = 1\n`, true)
  for (const dir of HOSTILE_DIRS) write(`${dir}/inner.ts`, `${nextNeedle()} hostile directory\n`, true)

  // A minified bundle: one 2.5 MB line, longer than every line budget; its needle leads the line.
  const chunks = [`${nextNeedle()} `]
  for (let i = 0; chunks.length < 60_000; i++) chunks.push(`var a${i}=function(){return ${i}};const c${i}=a${i}();`)
  write('minified.js', `${chunks.join('')}\n`, true)
  write(
    'long.txt',
    `${nextNeedle()} long file\n${Array.from({ length: 30_000 }, (_, i) => `line ${i + 2} ${random.pick(WORDS)}`).join('\n')}\n`,
    true,
  )
  write('empty.ts', '')
  write('no-newline.ts', `${nextNeedle()} no trailing newline`, true)
  write('crlf.ts', `${nextNeedle()} crlf\r\nconst y = 2\r\n`, true)
  write('latin1-content.txt', Buffer.concat([Buffer.from(`${nextNeedle()} caf`), Buffer.from([0xe9, 0xff, 0x0a])]), true)
  const blob = Buffer.alloc(64 * 1024)
  for (let b = 0; b < blob.length; b++) blob[b] = random.float() < 0.1 ? 0 : random.int(0, 255)
  Buffer.from('SOAKNEEDLEBINARY const').copy(blob, 4096)
  write('blob.bin', blob)

  // Denied files: their marker must never reach any output.
  const deny = (relative: string, wrap: (secret: string) => string): void => {
    write(relative, wrap(`${tree.secretMarker}-${tree.deniedFiles.length}`))
    tree.deniedFiles.push(relative)
  }
  deny('.env', (secret) => `API_KEY=${secret}\n`)
  deny('config/.env', (secret) => `DB_PASSWORD=${secret}\n`)
  deny('src/mod01/.env', (secret) => `TOKEN=${secret}\n`)
  deny('keys/server.pem', (secret) => `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`)
  deny('deep/a/b/client.pem', (secret) => `-----BEGIN CERTIFICATE-----\n${secret}\n-----END CERTIFICATE-----\n`)
  write('notes.pem.txt', `${nextNeedle()} not a pem: the deny rule names *.pem\n`, true)
  // Names a rule hides only when case and Unicode normal form are folded (see deny-oracle.ts).
  deny('.ENV', (secret) => `API_KEY=${secret}\n`)
  deny('config/Server.PEM', (secret) => `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`)
  deny('Secret.txt', (secret) => `password: ${secret}\n`)
  deny('SECRET.TXT', (secret) => `PASSWORD: ${secret}\n`)
  deny('docs/secret-plan.md', (secret) => `# Plan\n\n${secret}\n`)
  deny('src/mod02/SecretKeys.ts', (secret) => `export const KEY = '${secret}'\n`)
  deny('se\u0301cret.txt', (secret) => `nfd name: ${secret}\n`)
  deny('s\u00e9cret-nfc.md', (secret) => `nfc name: ${secret}\n`)
  deny('p\u00e4sse.txt', (secret) => `pass: ${secret}\n`)
  // A denied directory, which include globs and a link alias try to reopen.
  deny('secrets/token.txt', (secret) => `TOKEN=${secret}\n`)
  deny('secrets/nested/deep.key', (secret) => `KEY=${secret}\n`)
  // Its name holds the marker too, so a listing that shows it leaks; no call names it (an error would echo it).
  write(`secrets/${tree.secretMarker}-name.txt`, `${tree.secretMarker}-named\n`)

  // pnpm's layout: packages live in a store that node_modules links to.
  write('store/pkg@1/index.ts', `${nextNeedle()} store package\n`, true)
  write('store/pkg@1/lib/util.ts', `${nextNeedle()} store package lib\n`, true)

  write('.ignore', 'ignored/\n')
  write('ignored/skip.ts', 'ignored by .ignore\n')
  for (const name of TRAP_COMMANDS) {
    write(name, `#!/bin/sh\ntouch '${tree.canaries[0]}'\n`)
    chmodSync(path.join(root, name), 0o755)
  }

  const link = (target: string, name: string): void => {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    symlinkSync(target, path.join(root, name))
  }
  link('/etc', 'outside-dir')
  link('/etc/hostname', 'outside-file')
  link(tree.spillDir, 'spill-link')
  link('.env', 'env-link.txt')
  link('keys/server.pem', 'pem-link')
  link('keys', 'keys-dir-link')
  link('loop-b', 'loop-a')
  link('loop-a', 'loop-b')
  link('self-loop', 'self-loop')
  link('.', 'up-loop')
  link('..', 'src/mod04/parent')
  link('../../..', 'deep/a/b/root')
  // Links inside the root to known files (pnpm's node_modules, an alias): a search through one must not silently miss.
  const linkKnown = (target: string, name: string, resolved: string): void => {
    link(target, name)
    for (const known of tree.known.filter((k) => !k.viaLink && (k.relative === resolved || k.relative?.startsWith(`${resolved}/`)))) {
      const relative = `${name}${known.relative!.slice(resolved.length)}`
      if (isDenied(relative)) throw new Error(`soak tree: ${relative}, a link path to a known file, is denied`)
      const directory = path.posix.dirname(relative).replace(/^\.$/, '')
      tree.known.push({ ...known, relative, directory, globSafe: /^[\w.-]+$/.test(path.posix.basename(relative)), viaLink: true })
    }
  }
  linkKnown('../store/pkg@1', 'node_modules/pkg', 'store/pkg@1')
  linkKnown('../store/pkg@1/index.ts', 'node_modules/pkg-main.ts', 'store/pkg@1/index.ts')
  linkKnown('src/mod02', 'mod02-alias', 'src/mod02')
  // Links with innocent names into denied places: the policy judges where a link leads.
  link('secrets', 'alias')
  link('../secrets', 'node_modules/sneaky')
  link('Secret.txt', 'innocent.txt')
  // Links out of the roots, to the outside canary.
  link('../outside', 'outside-link')
  link(tree.outsideDir, 'outside-abs')
  link('../outside/canary.txt', 'outside-secret.txt')
  link('../../../outside', 'store/pkg@1/escape')
  // Dangling links.
  link('does-not-exist', 'dangling')
  link('/nonexistent-dsh-soak/target', 'dangling-abs')
  link('missing.ts', 'src/mod06/gone.ts')
  for (const fifo of tree.fifos) {
    const made = spawnSync('mkfifo', [path.join(root, fifo)])
    if (made.status !== 0) throw new Error(`mkfifo ${fifo} failed: ${made.stderr.toString()}`)
  }

  mkdirSync(path.join(tree.outsideDir, 'sub'), { recursive: true })
  writeFileSync(path.join(tree.outsideDir, 'canary.txt'), `${tree.outsideMarker}-canary, outside every root\n`)
  writeFileSync(path.join(tree.outsideDir, `${tree.outsideMarker}-name.txt`), 'a name outside every root\n')
  writeFileSync(path.join(tree.outsideDir, 'sub', 'deep.ts'), `export const OUTSIDE = '${tree.outsideMarker}-deep'\n`)

  write('locked/locked-inner.ts', `${tree.lockedNeedle} in a directory only root can read\n`)
  write('locked-file.ts', `${tree.lockedNeedle} in a file only root can read\n`)
  for (const locked of tree.locked) chmodSync(path.join(root, locked), 0o000)
  return tree
}

/** Restores the locked paths' modes (so the tree can be deleted) and removes the temp dir. */
export function removeHostileTree(tree: SoakTree): void {
  for (const locked of tree.locked) chmodSync(path.join(tree.root, locked), 0o755)
  rmSync(tree.base, { recursive: true, force: true })
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
