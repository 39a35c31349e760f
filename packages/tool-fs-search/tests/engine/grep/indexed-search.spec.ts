// The index's route in a grep script, run by a real sh with real rg: named files in batches, the rest walked, rg's statuses kept.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { fileListCommand, grepSelection, indexedSearch, type IndexRoute } from '../../../src/engine/grep/command.js'
import { NO_LINKS } from '../../../src/engine/links.js'
import { EXIT_NO_XARGS } from '../../../src/engine/script-exit.js'
import { scratchDir, writeTree } from '../../../../../test-support/temp-tree.js'

const { rgPath } = createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath: string }
const OUTPUT = ['--null', '--with-filename', '--color=never', '--count']

function run(dir: string, script: string, env: NodeJS.ProcessEnv = process.env): { status: number | null; out: string; err: string } {
  const ran = spawnSync('/bin/sh', ['-c', `cd ${dir} && set -- -- . && {\n${script}\n}`], { env, encoding: 'latin1' })
  return { status: ran.status, out: ran.stdout, err: ran.stderr }
}

/** rg's `--count --null` records, sorted: `path NUL count` each. */
function counts(out: string): string[] {
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace('\0', ' '))
    .sort()
}

function names(dir: string, file: string, paths: string[]): string {
  const at = join(dir, '..', `${file}.named`)
  writeFileSync(at, Buffer.from(paths.map((p) => `${p}\0`).join(''), 'latin1'))
  return at
}

function ignores(dir: string, file: string, lines: string[]): string {
  const at = join(dir, '..', `${file}.ignore`)
  writeFileSync(at, `*\n${lines.join('\n')}\n`)
  return at
}

describe('the indexed rg of a grep script', () => {
  const root = scratchDir('indexed-search')
  const dir = join(root, 'tree')
  writeTree(dir, {
    'a.txt': 'hit\nhit\n',
    'b.txt': 'miss\n',
    'sub/c.txt': 'hit\n',
    'sub/d.txt': 'miss\n',
    '-dash.txt': 'hit\n',
    'line\nbreak.txt': 'hit\n',
  })
  const search = (route: IndexRoute) =>
    indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern: 'hit' }, route)

  it('searches the named files by name and walks the rest, each once, whatever their names', () => {
    const namedFile = names(dir, 'both', ['./a.txt', './b.txt', './-dash.txt', './line\nbreak.txt'])
    const ignoreFile = ignores(dir, 'both', ['!/sub/', '!/sub/c.txt'])
    const ran = run(dir, search({ namedFile, ignoreFile }))
    expect(ran.err).toBe('')
    expect(ran.status).toBe(0)
    expect(counts(ran.out.replace('./line\nbreak.txt', './line-break.txt'))).toEqual([
      './-dash.txt 1',
      './a.txt 2',
      './line-break.txt 1',
      './sub/c.txt 1',
    ])
  })

  it('walks nothing when every candidate is named', () => {
    const ran = run(dir, search({ namedFile: names(dir, 'only', ['./sub/c.txt', './b.txt']) }))
    expect(counts(ran.out)).toEqual(['./sub/c.txt 1'])
    // rg's "no match" of the walk it did not run: the output says what matched.
    expect(ran.status).toBe(1)
  })

  it('keeps rg statuses: none found is 1, and a named file that cannot be read makes it 2 with its message', () => {
    expect(
      run(dir, search({ namedFile: names(dir, 'none', ['./b.txt']), ignoreFile: ignores(dir, 'none', ['!/sub/', '!/sub/d.txt']) })).status,
    ).toBe(1)
    const gone = run(dir, search({ namedFile: names(dir, 'gone', ['./a.txt', './gone.txt']), ignoreFile: ignores(dir, 'gone', []) }))
    expect(gone.status).toBe(2)
    expect(gone.err).toMatch(/\.\/gone\.txt: No such file or directory/)
    expect(counts(gone.out)).toEqual(['./a.txt 2'])
    // The walk's own error is rg's 2 as well, with the named files' finds kept.
    const locked = join(dir, 'locked')
    mkdirSync(locked, { recursive: true })
    chmodSync(locked, 0)
    try {
      const walked = run(
        dir,
        search({ namedFile: names(dir, 'lock', ['./a.txt']), ignoreFile: ignores(dir, 'lock', ['!/locked/', '!/locked/**']) }),
      )
      expect(walked.status).toBe(process.getuid?.() === 0 ? 1 : 2)
      expect(counts(walked.out)).toEqual(['./a.txt 2'])
    } finally {
      chmodSync(locked, 0o755)
    }
  })

  it('rejects a pattern rg rejects once, as a full scan does, whether or not anything is left to walk', () => {
    const bad = (route: IndexRoute) =>
      run(dir, indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern: 'a\\nb' }, route))
    const full = run(dir, indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern: 'a\\nb' }))
    expect(full.status).toBe(2)
    for (const ignoreFile of [ignores(dir, 'bad', ['!/sub/', '!/sub/d.txt']), undefined]) {
      const both = bad({ namedFile: names(dir, 'bad', ['./a.txt']), ...(ignoreFile === undefined ? {} : { ignoreFile }) })
      expect(both.status).toBe(2)
      expect(both.err).toBe(full.err)
      expect(both.out).toBe('')
    }
  })

  it('rejects it once however many batches the names take, with GNU or BusyBox xargs', () => {
    const pattern = 'a\\nb'
    const full = run(dir, indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern }))
    // 6,000 names of 64 bytes: three batches or more of 128 KiB.
    const namedFile = names(
      dir,
      'bad-many',
      Array.from({ length: 6000 }, (_, i) => `./${String(i).padStart(61, 'x')}`),
    )
    const script = indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern }, { namedFile })
    const busybox = join(root, 'busybox-bin')
    mkdirSync(busybox, { recursive: true })
    writeFileSync(join(busybox, 'xargs'), '#!/bin/sh\nexec busybox xargs "$@"\n')
    chmodSync(join(busybox, 'xargs'), 0o755)
    for (const path of [process.env.PATH, `${busybox}:${process.env.PATH}`]) {
      const ran = run(dir, `ulimit -s 1024\n${script}`, { ...process.env, PATH: path })
      expect(ran.status).toBe(2)
      expect(ran.err).toBe(full.err)
    }
  })

  it("keeps rg's statuses where xargs, as BSD's, exits 1 for a failed batch and for one that stopped it", () => {
    // GNU's xargs with BSD's exit statuses.
    const bsd = join(root, 'bsd-bin')
    mkdirSync(bsd, { recursive: true })
    const gnu = spawnSync('/bin/sh', ['-c', 'command -v xargs'], { encoding: 'utf8' }).stdout.trim()
    writeFileSync(join(bsd, 'xargs'), `#!/bin/sh\n${gnu} "$@"; s=$?\ncase $s in 123|124|125) exit 1 ;; esac\nexit $s\n`)
    chmodSync(join(bsd, 'xargs'), 0o755)
    const env = { ...process.env, PATH: `${bsd}:${process.env.PATH}` }
    const namedFile = names(dir, 'bsd', ['./a.txt', './sub/c.txt'])
    const ignoreFile = ignores(dir, 'bsd', ['!/sub/', '!/sub/d.txt'])
    const pattern = 'a\\nb'
    const full = run(dir, indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern }))
    const rejected = run(
      dir,
      indexedSearch({ rg: rgPath, selection: grepSelection(NO_LINKS), output: OUTPUT, pattern }, { namedFile, ignoreFile }),
      env,
    )
    expect(rejected.status).toBe(2)
    expect(rejected.err).toBe(full.err)
    // A named file that is gone: 2, not rg's "no match", and the rest searched.
    const gone = run(dir, search({ namedFile: names(dir, 'bsd-gone', ['./a.txt', './gone.txt']), ignoreFile }), env)
    expect(gone.status).toBe(2)
    expect(gone.err).toContain('gone.txt')
    expect(gone.err).not.toContain('dsh:')
    expect(counts(gone.out)).toEqual(['./a.txt 2'])
  })

  it('searches nothing for an empty list of names, where xargs runs its command once with none', () => {
    const ran = run(dir, search({ namedFile: names(dir, 'empty', []) }))
    expect(ran).toEqual({ status: 1, out: '', err: '' })
  })

  it('is the plain walk without a named file, with the ignore file when there is one', () => {
    expect(search({})).not.toContain('xargs')
    expect(search({})).not.toContain('--ignore-file')
    expect(search({ ignoreFile: '/i' })).toContain("'--ignore-file=/i'")
  })

  it('names in batches of up to 1 MiB where the stack limit allows, of 128 KiB below it', () => {
    // An rg that prints how many names each batch gave it.
    const fake = join(root, 'count-rg')
    writeFileSync(fake, '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done\nshift\necho "batch $#"\n')
    chmodSync(fake, 0o755)
    // 6,000 names of 64 bytes: 384 KB.
    const many = Array.from({ length: 6000 }, (_, i) => `./${String(i).padStart(61, 'x')}`)
    const script = indexedSearch({ rg: fake, selection: [], output: ['--count'], pattern: 'hit' }, { namedFile: names(dir, 'many', many) })
    const batches = (stack: string) => {
      const ran = run(dir, `ulimit -s ${stack}\n${script}`)
      expect(ran.err).toBe('')
      const sizes = ran.out
        .trim()
        .split('\n')
        .map((line) => Number(line.replace('batch ', '')))
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(many.length)
      return sizes.length
    }
    expect(batches('4096')).toBeGreaterThanOrEqual(3)
    // The hard limit is as high as the soft one may go.
    const hard = spawnSync('/bin/sh', ['-c', 'ulimit -Hs'], { encoding: 'utf8' }).stdout.trim()
    expect(batches(hard)).toBe(hard === 'unlimited' || Number(hard) >= 8192 ? 1 : 3)
  })

  it('exits with what kept xargs or sh from running, and says so', () => {
    const namedFile = names(dir, 'noxargs', ['./a.txt'])
    const ran = run(dir, search({ namedFile }), { PATH: '/nonexistent' })
    expect(ran.status).toBe(127)
    expect(ran.err).toContain('xargs exited with status 127: a batch of named files was not searched')
    // An rg that kills the sh of its batch (and takes the pattern on /dev/null): xargs' 125.
    const killer = join(root, 'killer-rg')
    writeFileSync(killer, '#!/bin/sh\ncase "$*" in */dev/null) exit 1 ;; esac\nkill -KILL "$PPID"\n')
    chmodSync(killer, 0o755)
    const killed = run(dir, indexedSearch({ rg: killer, selection: [], output: OUTPUT, pattern: 'hit' }, { namedFile }))
    expect(killed.status).toBe(125)
    expect(killed.err).toBe('dsh: xargs exited with status 125: a batch of named files was not searched\n')
  })
})

describe("the grep script's file list", () => {
  const root = scratchDir('file-list')
  const dir = join(root, 'tree')
  writeTree(dir, {
    '.gitignore': 'ignored/\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    'a.txt': '',
    '.hidden/b.txt': '',
    'ignored/c.txt': '',
  })
  const list = (env?: NodeJS.ProcessEnv) => run(dir, fileListCommand(rgPath, grepSelection(NO_LINKS), ["printf 'D\\0'"]), env)

  it("is rg's walk with the search's selection: hidden files, not ignored ones nor the VCS directory", () => {
    const ran = list()
    expect(ran.status).toBe(0)
    expect(ran.out.split('\0').slice(1, -1).sort()).toEqual(['./.gitignore', './.hidden/b.txt', './a.txt'])
  })

  it('exits with its own status when the executor has no xargs to name files with', () => {
    expect(list({ PATH: '/nonexistent' }).status).toBe(EXIT_NO_XARGS)
  })
})
