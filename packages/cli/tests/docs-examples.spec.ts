// Every example output in README.md and docs/guide.md is what dsh prints: each transcript (a bare ```
// block whose first line starts with `$ `) runs in bash, with the built `dsh` first on the PATH, in the
// small project the guide describes, and must print what the page shows. So no count, order or
// message on those pages can go stale.
import { copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { budgetMs, tempDir, writeTree } from './io.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const binDir = join(repo, 'node_modules', '.bin')
const work = tempDir('docs-examples')
const project = join(work, 'project')
const other = join(work, 'other-project')
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The project the guide's examples run in, oldest file first (glob and Grep list newest first). */
const PROJECT: [string, string][] = [
  ['caps.json', '{"tool-fs-search": {"grepMaxMatches": 2}}\n'],
  ['docs/notes.md', '# Notes\n\nTODO: document the config file.\n'],
  [
    'src/parse.ts',
    "export function parse(text: string) {\n  const lines = text.split('\\n')\n  // Blank lines and comments are skipped.\n  // todo: accept JSON5\n  return lines.filter((line) => line.trim() !== '' && !line.startsWith('#'))\n}\n",
  ],
  [
    'src/config.ts',
    "import { parse } from './parse.js'\n\nexport function load(text: string) {\n  // TODO: cache the parsed config\n  return parse(text)\n}\n\nexport function save() {\n  // TODO: write atomically\n}\n",
  ],
]

/** The second project the gateway example's upstream dsh searches. */
const OTHER = { 'src/args.ts': `${'// The arguments a model sends.\n'.repeat(8)}export const MAX_RESULTS_CEILING = 50\n` }

/** The markdown files whose examples are checked, and the section of each whose bare blocks are diagrams. */
const PAGES = [
  { page: 'README.md', diagrams: '## Architecture' },
  { page: 'docs/guide.md', diagrams: undefined },
]

interface Block {
  lang: string
  body: string
  section: string
}

/** The fenced blocks of a markdown page (indented ones in lists too), each with the `##` section it is in. */
function blocksOf(markdown: string): Block[] {
  return [...markdown.matchAll(/^( *)```(\S*)\n([^]*?)^\1```$/gm)].map((m) => {
    const before = markdown.slice(0, m.index)
    const section = [...before.matchAll(/^## .+$/gm)].at(-1)?.[0] ?? ''
    return { lang: m[2]!, body: m[3]!.replace(new RegExp(`^${m[1]!}`, 'gm'), ''), section }
  })
}

interface Step {
  command: string
  expected: string
}

/** bash's own verdict on whether `command` is complete, so a command may span lines. */
const isComplete = (command: string) => spawnSync('bash', ['-n', '-c', command]).status === 0

/** A transcript's commands (each `$ ` line and the lines that complete it) and what each prints. */
function stepsOf(transcript: string): Step[] {
  const lines = transcript.replace(/\n$/, '').split('\n')
  const steps: Step[] = []
  let i = 0
  while (i < lines.length) {
    let command = lines[i++]!.slice(2)
    while (!isComplete(command) && i < lines.length) command += `\n${lines[i++]!}`
    const output: string[] = []
    while (i < lines.length && !lines[i]!.startsWith('$ ')) output.push(lines[i++]!)
    // A blank line may part one command's output from the next command.
    steps.push({ command, expected: output.join('\n').replace(/\n+$/, '') })
  }
  return steps
}

// A spilled result's path: the state dir differs (the pages show ~/.local/state) and the name is random.
const SPILL_PATH = /(?:\/[\w.-]+)+\/dsh\/spill\/[\w-]+\/[\w-]+\.txt/g

// The gateway example sleeps while upstreams start and calls run; a loaded test machine gets longer.
const SLEEP_FACTOR = 3

/** Runs one command as a reader would, stderr interleaved with stdout as a terminal shows them. */
function runInShell(command: string): string {
  const run = spawnSync(
    'bash',
    ['-c', `exec 2>&1\n${command.replace(/\bsleep (\d+)/g, (_, s: string) => `sleep ${Number(s) * SLEEP_FACTOR}`)}`],
    {
      cwd: project,
      encoding: 'utf8',
      timeout: budgetMs(60_000),
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, XDG_STATE_HOME: join(work, 'state') },
    },
  )
  return run.stdout.replace(/\n$/, '')
}

/** Whether `actual` is `expected`, where `…` in `expected` stands for any text (the pages shorten with it). */
function agrees(actual: string, expected: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^]*?')
  return new RegExp(`^${pattern}$`).test(actual)
}

const pages = PAGES.map(({ page, diagrams }) => ({ page, diagrams, blocks: blocksOf(readFileSync(join(repo, page), 'utf8')) }))
const transcripts = pages.flatMap(({ page, blocks }) =>
  blocks.filter((b) => b.lang === '' && b.body.startsWith('$ ')).map((b, i) => ({ name: `${page} ${b.section} #${i + 1}`, body: b.body })),
)

beforeAll(() => {
  writeTree(project, Object.fromEntries(PROJECT))
  PROJECT.forEach(([path], i) => utimesSync(join(project, path), 1_700_000_000 + i, 1_700_000_000 + i))
  mkdirSync(join(project, 'docs', 'examples'))
  copyFileSync(join(repo, 'docs', 'examples', 'tool-catalog.json'), join(project, 'docs', 'examples', 'tool-catalog.json'))
  writeTree(other, OTHER)
  // The guide's mcpServers file, with its placeholders filled in and the HTTP server (which no test can reach) left out.
  const guide = pages.find((p) => p.page === 'docs/guide.md')!
  const servers = guide.blocks.find((b) => b.lang === 'json' && b.body.includes('"mcpServers"') && b.body.includes('"other"'))!
  const file = JSON.parse(servers.body.replaceAll('/ABS/dsh', join(binDir, 'dsh')).replaceAll('/path/to/other/project', other)) as {
    mcpServers: Record<string, unknown>
  }
  delete file.mcpServers.docs
  writeFileSync(join(project, 'servers.json'), JSON.stringify(file))
})

describe('the example outputs in README.md and docs/guide.md', () => {
  it('are all transcripts: a bare block outside the diagrams starts with "$ "', () => {
    const untested = pages.flatMap(({ page, diagrams, blocks }) =>
      blocks.filter((b) => b.lang === '' && !b.body.startsWith('$ ') && b.section !== diagrams).map((b) => `${page} ${b.section}`),
    )
    expect(untested).toEqual([])
    expect(transcripts.length).toBeGreaterThanOrEqual(10)
  })

  it('reads a shortened output as a pattern, and a wrong count as wrong', () => {
    expect(agrees('Found 3 matches in 2 files', 'Found 3 matches …')).toBe(true)
    expect(agrees('Found 3 of 9 matches', 'Found 3 of 6 matches')).toBe(false)
    expect(agrees('a.ts\nb.ts\nc.ts', 'a.ts\n…')).toBe(true)
    expect(agrees('a (b) [c]', 'a (b) [c]')).toBe(true)
  })

  // A spilled result's path on a page stands for the one this run saved, in later commands and
  // transcripts too (the transcripts run in page order).
  const spills = new Map<string, string>()
  it.each(transcripts)(
    '$name prints what the page shows',
    ({ body }) => {
      const place = (text: string) => text.replace(SPILL_PATH, (path) => spills.get(path) ?? path)
      for (const { command, expected } of stepsOf(body)) {
        const actual = runInShell(place(command))
        const shown = expected.match(SPILL_PATH) ?? []
        const saved = actual.match(SPILL_PATH) ?? []
        shown.forEach((path, i) => spills.set(path, spills.get(path) ?? saved[i] ?? path))
        const wanted = place(expected)
        if (!agrees(actual, wanted)) expect(`$ ${command}\n${actual}`).toBe(`$ ${command}\n${wanted}`)
      }
    },
    120_000,
  )
})
