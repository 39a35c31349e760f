// Random soak calls and configs: hostile arguments, probes with a known answer, and small random caps.
import path from 'node:path'
import { DENY } from './deny-oracle.js'
import type { Random } from './random.js'
import type { KnownFile, SoakTree } from './tree.js'

/** The tools the soak calls, as the dsh profile names them. */
export type ToolName = 'glob' | 'grep' | 'read'

/** The tool surfaces a config registers (tool-fs-search's and tool-fs's `profile`). */
export type Profile = 'dsh' | 'claude-code'

/** A tool's registered name: Claude Code's surface names them Glob, Grep and Read. */
export type RegisteredName = ToolName | 'Glob' | 'Grep' | 'Read'

/** Who a call runs as: the soak's own user (root), or `nobody` (CLI only), for whom the locked paths are unreadable. */
export type CallUser = 'root' | 'nobody'

/**
 * What a successful result must show. `match`: the call names a file that holds `text` (`viaLink`:
 * through a symbolic link inside the root). `all`: every one of `texts`, unless the result says it is
 * a partial one. `incomplete`: the answer lies only in paths the caller cannot read, so the result
 * must say it is incomplete.
 */
export type Expectation = { kind: 'match'; text: string; viaLink: boolean } | { kind: 'all'; texts: string[] } | { kind: 'incomplete' }

/** One tool call, as the in-process and the CLI runners both make it. */
export interface SoakCall {
  tool: RegisteredName
  /** Usually the tool's argument object; sometimes not even an object (in process only). */
  args: unknown
  /** The session id that owns spilled results; hostile too. */
  session: string
  expect?: Expectation
  /** Cancel this long after the start: an AbortController in process, a signal to the CLI. */
  cancelAfterMs?: number
  /** CLI only, as the unprivileged user: `--spill-dir` names the workspace (`.`) or the file system root (`/`). */
  spillDir?: WorkspaceSpillDir
}

/** A spill root that holds the roots themselves, so its exemption must not reopen what the policy hides. */
export type WorkspaceSpillDir = '.' | '/'

/** A config for every plugin `dsh` loads, and how long a call under it may take before it counts as hung. */
export interface SoakConfig {
  plugins: Record<string, unknown>
  /** The slowest a call may be: the longer tool timeout plus the kill grace (the caller adds its slack). */
  boundMs: number
  /** False for the few configs a plugin must refuse (the CLI then exits 2). */
  valid: boolean
  profile: Profile
  /**
   * Tool timeouts of 1-250 ms and no small caps: a result is then complete, an error, or
   * says it is partial, and a probe for several needles checks which.
   */
  shortTimeout: boolean
}

/**
 * Random caps, small enough that every call pages, spills and prunes, or (`shortTimeout`) default caps
 * under timeouts shorter than most searches. Tool timeouts are always set, so a FIFO read ends.
 */
export function randomConfig(random: Random, options: { hostilePath: string | undefined; invalid: boolean }): SoakConfig {
  const profile: Profile = random.chance(0.25) ? 'claude-code' : 'dsh'
  const shortTimeout = random.chance(0.15)
  const maybe = <T>(value: () => T): T | undefined => (!shortTimeout && random.chance(0.7) ? value() : undefined)
  const timeout = (): number => (shortTimeout ? random.int(1, 250) : random.chance(0.5) ? random.int(2000, 5000) : random.int(200, 2000))
  const searchTimeoutMs = timeout()
  const readTimeoutMs = timeout()
  const killGraceMs = maybe(() => random.int(100, 2000))
  const search = {
    profile,
    timeoutMs: searchTimeoutMs,
    grepMaxMatches: maybe(() => random.int(1, 50)),
    globMaxResults: maybe(() => random.int(1, 50)),
    grepMaxMatchesPerFile: maybe(() => random.int(1, 50)),
    grepMaxLineBytes: maybe(() => random.int(16, 2000)),
    inlineMaxBytes: maybe(() => random.int(20, 5000)),
    rawOutputMaxBytes: maybe(() => random.int(500, 2_000_000)),
  }
  // An invalid value a plugin must refuse at load: the CLI reports it as a usage error.
  if (options.invalid)
    Object.assign(search, random.pick([{ grepMaxMatches: 0 }, { timeoutMs: -1 }, { unknownField: true }, { rawOutputMaxBytes: 'big' }]))
  const plugins: Record<string, unknown> = {
    'tool-fs-search': search,
    'tool-fs': {
      profile,
      timeoutMs: readTimeoutMs,
      readMaxLineBytes: maybe(() => random.int(64, 2000)),
      readMaxBytes: maybe(() => random.int(256, 50_000)),
    },
    'spill-local': {
      maxBytesPerOwner: maybe(() => random.int(1, 20_000)),
      maxAgeMs: maybe(() => random.int(1000, 120_000)),
      // The grace the spill check relies on: a reported file lives at least this long.
      minAgeMs: random.int(20_000, 600_000),
    },
    access: { deny: [...DENY] },
    // A PATH that starts with the searched tree: its trap scripts run if a tool resolves a helper by name.
    'bash-local': { killGraceMs, ...(options.hostilePath === undefined ? {} : { envSet: { PATH: options.hostilePath } }) },
  }
  return {
    plugins: JSON.parse(JSON.stringify(plugins)) as Record<string, unknown>,
    boundMs: Math.max(searchTimeoutMs, readTimeoutMs) + (killGraceMs ?? 2000),
    valid: !options.invalid,
    profile,
    shortTimeout,
  }
}

/** Who makes a call and under what config; for a CLI call as the unprivileged user, maybe a workspace spill dir. */
export interface CallContext {
  user: CallUser
  inProcess: boolean
  config: SoakConfig
  /** Set: the call tries to reach what the policy hides, with `--spill-dir` naming the workspace. */
  spillDir?: WorkspaceSpillDir
}

/**
 * A call, named and shaped for the config's profile: a probe with a known answer about a third of the
 * time (under a short timeout, often one for several needles), an attempt on what the policy hides
 * about a quarter, else hostile arguments.
 */
export function randomCall(random: Random, tree: SoakTree, context: CallContext): SoakCall {
  const { user, inProcess, config } = context
  const draw = random.float()
  const call: Omit<SoakCall, 'session'> =
    context.spillDir !== undefined
      ? { ...policyCall(random, tree), spillDir: context.spillDir }
      : config.shortTimeout && draw < 0.4
        ? completeProbe(random, tree)
        : draw < 0.3
          ? probeCall(random, tree, user, config.shortTimeout)
          : draw < 0.55
            ? policyCall(random, tree)
            : hostileCall(random, tree, inProcess)
  const session = random.chance(0.8) ? random.pick(['s1', 's2', 'cli']) : random.pick(hostileSessions(tree, inProcess))
  const touchesFifo = tree.fifos.some((fifo) => JSON.stringify(call.args ?? null).includes(path.basename(fifo)))
  const cancel = random.chance(touchesFifo ? 0.5 : 0.25)
  return forProfile({ ...call, session, ...(cancel ? { cancelAfterMs: random.int(0, 300) } : {}) }, config.profile, random)
}

/**
 * The call as the profile names it: Claude Code's Read takes `file_path`, and its Grep takes `glob`
 * for include and an output mode (content for a probe, whose needle is in a line).
 */
function forProfile(call: SoakCall, profile: Profile, random: Random): SoakCall {
  if (profile === 'dsh') return call
  const tool = ({ glob: 'Glob', grep: 'Grep', read: 'Read' } as const)[call.tool as ToolName]
  if (typeof call.args !== 'object' || call.args === null || Array.isArray(call.args)) return { ...call, tool }
  const { path: target, include, ...rest } = call.args as Record<string, unknown>
  const args: Record<string, unknown> = { ...rest }
  if (target !== undefined) args[tool === 'Read' ? 'file_path' : 'path'] = target
  if (tool === 'Grep') {
    if (include !== undefined) args.glob = include
    args.output_mode = call.expect === undefined ? random.pick(['content', 'content', 'files_with_matches', 'count']) : 'content'
  }
  return { ...call, tool, args }
}

/**
 * A call whose answer is known: a needle in a named file, or in files only root can read. Under a short
 * timeout no file is named through a link, so that a miss is told apart as a partial result.
 */
function probeCall(random: Random, tree: SoakTree, user: CallUser, shortTimeout: boolean): Omit<SoakCall, 'session'> {
  if (user === 'nobody' && random.chance(0.3)) {
    const expect = { kind: 'incomplete' } as const
    if (random.chance(0.4))
      return { tool: 'glob', args: { pattern: random.pick(['**/locked-inner.ts', 'locked-inner.ts', '**/*.ts']) }, expect }
    return { tool: 'grep', args: { pattern: tree.lockedNeedle, ...(random.chance(0.5) ? { path: '.' } : {}) }, expect }
  }
  const file = random.pick(shortTimeout ? tree.known.filter((known) => !known.viaLink) : tree.known)
  const tool = random.pick<ToolName>(
    file.globSafe ? ['grep', 'grep', 'glob', 'read'] : file.relative === undefined ? ['grep'] : ['grep', 'grep', 'read'],
  )
  if (tool === 'glob') return globProbe(random, file)
  if (tool === 'read') return readProbe(random, tree, file)
  return grepProbe(random, tree, file)
}

function grepProbe(random: Random, tree: SoakTree, file: KnownFile): Omit<SoakCall, 'session'> {
  const needle = file.needle
  const pattern = random.pick([
    needle,
    `${needle.slice(0, -1)}[X]`,
    `(?i)${needle.toLowerCase()}`,
    `\\b${needle}\\b`,
    `${needle}|NEVER_IN_THE_TREE`,
    `^${needle}`,
  ])
  const onFile = file.relative !== undefined && random.chance(0.5)
  const args: Record<string, string> = { pattern }
  if (onFile) {
    args.path = random.pick([file.relative!, `./${file.relative!}`, path.join(tree.root, file.relative!), `src/../${file.relative!}`])
  } else {
    const dir =
      file.directory === '' ? undefined : random.pick([file.directory, `${file.directory}/`, path.join(tree.root, file.directory)])
    if (dir !== undefined || random.chance(0.5)) args.path = dir ?? random.pick(['.', tree.root, './'])
    const include = file.globSafe
      ? random.pick([
          undefined,
          path.posix.basename(file.relative!),
          `*${path.posix.extname(file.relative!)}`,
          ...(file.directory === '' ? [] : [`${file.directory}/**`, `${file.directory}/*${path.posix.extname(file.relative!)}`]),
        ])
      : undefined
    if (include !== undefined && args.path === undefined) args.include = include
  }
  return { tool: 'grep', args, expect: { kind: 'match', text: needle, viaLink: file.viaLink } }
}

function globProbe(random: Random, file: KnownFile): Omit<SoakCall, 'session'> {
  const name = path.posix.basename(file.relative!)
  const withPath = file.directory !== '' && random.chance(0.4)
  const args = withPath
    ? { pattern: random.pick([name, `**/${name}`]), path: file.directory }
    : // A path whose first directory starts with "!" would be a negated glob, which glob refuses.
      { pattern: random.pick([name, `**/${name}`, ...(file.relative!.startsWith('!') ? [] : [file.relative!])]) }
  return { tool: 'glob', args, expect: { kind: 'match', text: name, viaLink: file.viaLink } }
}

function readProbe(random: Random, tree: SoakTree, file: KnownFile): Omit<SoakCall, 'session'> {
  const args: Record<string, unknown> = { path: random.pick([file.relative!, `./${file.relative!}`, path.join(tree.root, file.relative!)]) }
  if (random.chance(0.3)) args.offset = 1
  if (random.chance(0.3)) args.limit = random.int(1, 2000)
  return { tool: 'read', args, expect: { kind: 'match', text: file.needle, viaLink: file.viaLink } }
}

/** A probe for several known files at once, for a short timeout: a result missing some must say it is partial. */
function completeProbe(random: Random, tree: SoakTree): Omit<SoakCall, 'session'> {
  const candidates = tree.known.filter((file) => file.globSafe && !file.viaLink && file.relative!.startsWith('src/'))
  const files = [...new Set(Array.from({ length: 3 }, () => random.pick(candidates)))]
  if (random.chance(0.5)) {
    const needles = files.map((file) => file.needle)
    return { tool: 'grep', args: { pattern: needles.join('|') }, expect: { kind: 'all', texts: needles } }
  }
  const names = files.map((file) => path.posix.basename(file.relative!))
  return { tool: 'glob', args: { pattern: `**/{${names.join(',')}}` }, expect: { kind: 'all', texts: names } }
}

/**
 * A call on what the policy hides: a denied file by another spelling or through a link, a denied
 * directory reopened by an include or a glob, a link out of the roots. Its output must hold neither
 * marker, and no argument holds one (an error that echoed it would be no leak).
 */
function policyCall(random: Random, tree: SoakTree): Omit<SoakCall, 'session'> {
  const pools = policyPools(tree)
  // A kind of target first (denied by name, through a link, outside): the few outside paths are tried as often as the many denied.
  const pick = (groups: readonly (readonly string[])[]): string => random.pick(random.pick(groups))
  const tool = random.pick<ToolName>(['read', 'grep', 'grep', 'glob'])
  if (tool === 'read') return { tool, args: { path: pick(pools.files) } }
  const args: Record<string, string> = { pattern: tool === 'grep' ? random.pick(pools.patterns) : pick(pools.globs) }
  const where = random.float()
  if (tool === 'grep' && where < 0.45) {
    args.include = pick(pools.globs)
    if (random.chance(0.3)) args.path = random.pick(['.', './', tree.root])
  } else if (where < 0.8) args.path = pick(pools.dirs)
  else if (tool === 'grep') args.path = pick(pools.files)
  return { tool, args }
}

/** Targets for policyCall, each pool in groups: denied by name or spelling, through a link, out of the roots. */
function policyPools(tree: SoakTree): { files: string[][]; dirs: string[][]; globs: string[][]; patterns: string[] } {
  const outside = path.join(tree.outsideDir, 'canary.txt')
  const files = [
    [
      ...tree.deniedFiles,
      ...tree.deniedFiles.map((file) => `./${file}`),
      ...tree.deniedFiles.map((file) => path.join(tree.root, file)),
      ...tree.deniedFiles.map((file) => `src/../${file}`),
      // Other spellings: the NFC form of the NFD name, other cases (no such files on a case-sensitive disk).
      's\u00e9cret.txt',
      'se\u0301cret-nfc.md',
      'secret.txt',
      'SECRETS/token.txt',
      'Secrets/token.txt',
    ],
    // Links with innocent names, and paths through links.
    [
      'innocent.txt',
      'alias/token.txt',
      'alias/nested/deep.key',
      'alias/../secrets/token.txt',
      'node_modules/sneaky/token.txt',
      'mod02-alias/SecretKeys.ts',
      'keys-dir-link/server.pem',
      'env-link.txt',
      'pem-link',
      'up-loop/Secret.txt',
      'up-loop/secrets/token.txt',
      'deep/a/b/root/SECRET.TXT',
      'src/mod04/parent/../secrets/token.txt',
    ],
    // Out of the roots, and nowhere.
    [
      'outside-secret.txt',
      'outside-link/canary.txt',
      'outside-abs/canary.txt',
      'outside-link/sub/deep.ts',
      'store/pkg@1/escape/canary.txt',
      'node_modules/pkg/escape/canary.txt',
      outside,
      '../outside/canary.txt',
      `${tree.root}/../outside/canary.txt`,
      'dangling',
      'dangling-abs',
      'src/mod06/gone.ts',
    ],
  ]
  const dirs = [
    [
      '.',
      'secrets',
      'secrets/',
      './secrets',
      'secrets/nested',
      'alias',
      'alias/',
      'alias/nested',
      'alias/..',
      'node_modules',
      'node_modules/sneaky',
      'node_modules/pkg',
      'store',
      'mod02-alias',
      'src/mod02',
      'config',
      'docs',
    ],
    ['up-loop', 'up-loop/secrets', 'deep/a/b/root', 'src/mod04/parent', 'alias', 'node_modules/sneaky'],
    [
      'outside-link',
      'outside-abs',
      'store/pkg@1/escape',
      'node_modules/pkg/escape',
      tree.outsideDir,
      '..',
      tree.base,
      'dangling',
      'dangling-abs',
      'loop-a',
    ],
  ]
  const globs = [
    [
      'secrets/**',
      './secrets/**',
      '**/secrets/**',
      'alias/**',
      'alias/../secrets/**',
      'secrets/*',
      'secrets/**/*',
      './secrets/*',
      '**/secrets/*',
      '**/secrets/**/*',
      'SECRETS/**',
      // Claude Code's Grep takes a list; for dsh's include these are one odd glob.
      'secrets/** alias/**',
      '*.ts,secrets/**',
    ],
    [
      'alias/*',
      'alias/**/*',
      'alias/../secrets/*',
      'node_modules/sneaky/*',
      'node_modules/**/*',
      'up-loop/secrets/*',
      'deep/a/b/root/*',
      'mod02-alias/*',
    ],
    [
      '**/secret*',
      '**/Secret*',
      '**/SECRET*',
      'Secret.txt',
      'SECRET.TXT',
      '*.TXT',
      '*.txt',
      '*.md',
      '**/*.PEM',
      '.ENV',
      '**/.ENV',
      'se\u0301cret*',
      's\u00e9cret*',
      '**/*cret*',
      'p\u00e4sse*',
      'pa\u0308sse*',
      '**/*.key',
      '**/*SOAK*',
      '**/*',
      '*',
    ],
    ['outside-link/**', 'outside-link/*', 'outside-abs/*', 'store/pkg@1/escape/*', 'node_modules/pkg/escape/*', 'up-loop/outside-link/*'],
  ]
  const patterns = ['SOAK(SECRET|OUTSIDE)', 'SOAKSECRET', 'SOAKOUTSIDE', '(?i)soaksecret', '.', 'TOKEN|KEY|PASS', '-----BEGIN']
  return { files, dirs, globs, patterns }
}

/** Arguments a model could send by mistake or by malice: bad regexes, flags, shell, paths out of the tree, bounds. */
function hostileCall(random: Random, tree: SoakTree, inProcess: boolean): Omit<SoakCall, 'session'> {
  const tool = random.pick<ToolName>(['glob', 'grep', 'grep', 'read'])
  const pools = hostilePools(tree)
  const text = (pool: readonly string[]): string => (random.chance(0.1) ? randomText(random) : random.pick(pool))
  // In process a model's JSON may carry a lone surrogate or a NUL; an argv word can carry neither.
  const usable = (value: string): string => (inProcess || !(/[\uD800-\uDFFF]/u.test(value) || value.includes('\0')) ? value : 'x')
  const optional = (pool: readonly string[], probability: number): string | undefined =>
    random.chance(probability) ? usable(text(pool)) : undefined
  let args: Record<string, unknown>
  if (tool === 'grep')
    args = { pattern: usable(text(pools.patterns)), path: optional(pools.paths, 0.6), include: optional(pools.includes, 0.3) }
  else if (tool === 'glob') args = { pattern: usable(text(pools.globs)), path: optional(pools.paths, 0.4) }
  else
    args = {
      path: usable(text(pools.paths)),
      offset: random.chance(0.5) ? random.pick(NUMBERS) : undefined,
      limit: random.chance(0.5) ? random.pick(NUMBERS) : undefined,
    }
  for (const key of Object.keys(args)) if (args[key] === undefined) delete args[key]
  if (inProcess && random.chance(0.05))
    return {
      tool,
      args: random.pick<unknown>([
        null,
        'pattern',
        [],
        { ...args, extra: true },
        { pattern: 5 },
        { pattern: ['a'] },
        { path: {} },
        { pattern: 'a', path: null },
      ]),
    }
  return { tool, args }
}

/** Offsets and limits: zero, negative, fractional, huge, past every cap, and not numbers at all. */
const NUMBERS: readonly unknown[] = [
  0,
  -1,
  1,
  2,
  1.5,
  2000,
  2001,
  100_000,
  1e12,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  -0,
  NaN,
  Infinity,
  -Infinity,
  '5',
  null,
  true,
]

function hostilePools(tree: SoakTree): { patterns: string[]; paths: string[]; includes: string[]; globs: string[] } {
  const canary = tree.canaries[0]!
  const shell = [
    `$(touch ${canary})`,
    `\`touch ${canary}\``,
    `; touch ${canary}`,
    `'; touch ${canary}; '`,
    `"; touch ${canary}; "`,
    `| touch ${canary}`,
    `&& touch ${canary}`,
    `\ntouch ${canary}\n`,
    '$(touch canary)',
    '`touch canary`',
    `\${IFS}touch\${IFS}${canary}`,
    `--pre=${path.join(tree.root, 'find')}`,
    '--pre=touch',
  ]
  const flags = [
    '-e',
    '--pre=x',
    '--pre',
    '-f/proc/self/environ',
    '--files',
    '-L',
    '--follow',
    '--no-ignore',
    '-uuu',
    '-g!*.env',
    '--glob=**',
    '--ignore-file=/etc/passwd',
    '--',
    '-',
    '-0',
    '--json',
  ]
  const patterns = [
    ...shell,
    ...flags,
    '(',
    ')',
    '[',
    '[z-a]',
    'a{2,1}',
    '\\',
    '*',
    '+a',
    '?',
    '(?P<',
    '\\p{NotAProperty}',
    '(?<=a)b',
    '(a)\\1',
    '(?i',
    '\\u{110000}',
    'x{99999}',
    '(\\w{100}){100}',
    'const',
    'SOAKNEEDLE',
    'SOAKNEEDLE\\d+X',
    '.',
    '^',
    '$',
    '\\w+',
    '(?s).',
    '\\x00',
    'SOAKSECRET',
    'SOAKSECRET-[0-9a-f]+',
    'API_KEY',
    'PRIVATE',
    '-----BEGIN',
    tree.lockedNeedle,
    'hostile',
    '\\n',
    'a\nb',
    '\n',
    '\r',
    '\t',
    ' ',
    '😀',
    'ünïcødé',
    '\u202E',
    '\uFEFF',
    '\uD800',
    'a\uDC00b',
    '\uDBFF\uDFFF',
    '',
    '\0',
    'a\0b',
    'x'.repeat(8192),
    'x'.repeat(8193),
    '(a|b)*'.repeat(1365),
    'var a1=function',
  ]
  const paths = [
    '.',
    '..',
    '../',
    '../..',
    '/',
    '/etc',
    '/etc/passwd',
    '/proc/self/environ',
    '/proc/self/cwd',
    '/proc/1/root',
    '/dev/zero',
    '/dev/stdin',
    '/sys',
    ...tree.fifos,
    'src/../pipe.fifo',
    path.join(tree.root, tree.fifos[0]!),
    'locked',
    'locked/locked-inner.ts',
    'locked-file.ts',
    '.env',
    'config/.env',
    './.env',
    'src/../.env',
    'src/mod01/.env',
    'keys/server.pem',
    'deep/a/b/client.pem',
    'env-link.txt',
    'pem-link',
    'keys-dir-link',
    'keys-dir-link/server.pem',
    'config',
    'outside-dir',
    'outside-file',
    'outside-dir/passwd',
    'loop-a',
    'self-loop',
    'up-loop/up-loop/src',
    'spill-link',
    tree.spillDir,
    tree.base,
    tree.configDir,
    canary,
    `${tree.root}/../canary`,
    'minified.js',
    'blob.bin',
    'long.txt',
    'empty.ts',
    'latin1-content.txt',
    'ignored',
    'ignored/skip.ts',
    'src',
    'src/mod03',
    'docs/',
    '-e',
    '--pre=x',
    '-',
    '--',
    'with space.ts',
    'new\nline.ts',
    '$(touch canary).ts',
    'new\nline-dir',
    '!src',
    'find',
    'rg',
    'nonexistent',
    'nonexistent/deeper',
    'x'.repeat(4096),
    'x'.repeat(4097),
    'a/'.repeat(2048),
    '~',
    '~root',
    '',
    ' ',
    'src\0x',
    '\uD800',
    'src/\uDFFF',
    ...shell,
  ]
  const includes = [
    './!src/*.ts',
    '**/.env',
    '*.pem',
    '.env',
    '!*.ts',
    '*.ts',
    '*.{ts,js}',
    'src/',
    'src/**',
    'src',
    '{',
    '[',
    '**/',
    '/',
    '../*',
    '/etc/*',
    '*,*',
    '**/*.pem',
    'keys/*',
    '**',
    '.*',
    '\n',
    '\uD800',
    'x'.repeat(4096),
    '*.fifo',
    'locked/**',
    'outside-dir/**',
    ...flags,
    ...shell,
  ]
  const globs = [
    '**/*',
    '*',
    '**/.env',
    '*.pem',
    '**/*.pem',
    '.env',
    '../*',
    '../**',
    '/etc/*',
    '/**',
    '!*.ts',
    '**/../*',
    '{',
    '[',
    '[!a]*',
    '**/**/**/**/*',
    '*'.repeat(4096),
    '*'.repeat(4097),
    '\n',
    'with space.ts',
    '**/new\nline.ts',
    '😀*',
    '\uD800',
    'locked/*',
    'pipe.fifo',
    '**/*.fifo',
    'outside-dir/*',
    'up-loop/**',
    'keys-dir-link/*',
    'spill-link/**',
    '**/*.ts',
    '**/SOAK*',
    '',
    ...flags,
    ...shell,
  ]
  return { patterns, paths, includes, globs }
}

/** A short run of characters from the classes that break parsers: quotes, shell, regex, controls, wide and odd Unicode. */
function randomText(random: Random): string {
  const alphabet = [
    'a',
    'Z',
    '0',
    ' ',
    '"',
    "'",
    '`',
    '$',
    '(',
    ')',
    '{',
    '}',
    '[',
    ']',
    '*',
    '?',
    '\\',
    '/',
    '.',
    '-',
    '!',
    ';',
    '|',
    '&',
    '\n',
    '\t',
    '\r',
    '\x1b',
    'é',
    '😀',
    '\u202E',
    '\uFFFD',
    ':',
    ',',
    '#',
    '~',
  ]
  const length = random.int(1, random.chance(0.1) ? 3000 : 40)
  let text = ''
  for (let i = 0; i < length; i++) text += random.pick(alphabet)
  return text
}

function hostileSessions(tree: SoakTree, inProcess: boolean): string[] {
  return [
    '',
    '.',
    '..',
    '../escape',
    'a/b',
    '/abs',
    `$(touch ${tree.canaries[0]!})`,
    '-e',
    'x'.repeat(300),
    'new\nline',
    'ünï',
    ...(inProcess ? ['\uD800', 'a\0b'] : []),
  ]
}
