// read end to end: the real loader, the real fs-local provider and real files in a temp directory.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadHarness, type Harness, type ToolResult } from '@dsh/core'
import * as access from '@dsh/access'
import * as fsLocal from '@dsh/fs-local'
import { createLocalSpillStore } from '@dsh/spill-local'
import * as toolFs from '@dsh/tool-fs'
import { scratchDir } from '../../../test-support/temp-tree.js'

const tree = scratchDir('tool-fs-real')

let harness: Harness
beforeAll(async () => {
  harness = await loadHarness({ plugins: [fsLocal, toolFs] })
})

/** Calls read as an agent whose session cwd is `cwd`. */
function read(args: Record<string, unknown>, cwd = tree): Promise<ToolResult> {
  return harness.registry.execute('read', args, { agent: { session: { header: { id: 's', cwd } } } })
}

/** The file's lines as the page shows them: the numbering and the footers taken off. */
function textOf(content: string): string[] {
  return content
    .split('\n\n')[0]!
    .split('\n')
    .map((line) => line.replace(/^ {0,5}\d+\t/, ''))
}

describe('read over real files', () => {
  it('pages a 5,000-line file to its end with the offsets the footers give', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`)
    writeFileSync(join(tree, 'long.txt'), `${lines.join('\n')}\n`)
    const seen: string[] = []
    const footers: string[] = []
    let offset: number | undefined = 1
    while (offset !== undefined) {
      const result = await read({ path: 'long.txt', offset })
      expect(result.isError).toBe(false)
      seen.push(...textOf(result.content))
      footers.push(result.content.split('\n\n')[1]!)
      offset = (result.value as { nextOffset?: number }).nextOffset
    }
    expect(seen).toEqual(lines)
    expect(footers).toEqual([
      `(Showing lines 1–2000 of ${tree}/long.txt; the file continues. To read on, call read with offset=2001.)`,
      `(Showing lines 2001–4000 of ${tree}/long.txt; the file continues. To read on, call read with offset=4001.)`,
      `(Showing lines 4001–5000 of ${tree}/long.txt, the end of the file.)`,
    ])
    expect(await read({ path: 'long.txt', offset: 5001 })).toMatchObject({
      isError: true,
      errorCode: 'FS_OFFSET_PAST_END',
      content: `offset 5001 is past the end: ${tree}/long.txt has 5000 lines; call read with an offset from 1 to 5000.`,
    })
  })

  it('ends a page at readMaxBytes and goes on from there', async () => {
    // 40 lines of 1,500 bytes: 33 of them fit in 50,000 bytes.
    const lines = Array.from({ length: 40 }, (_, i) => String(i + 1).padEnd(1500, 'x'))
    writeFileSync(join(tree, 'wide.txt'), `${lines.join('\n')}\n`)
    const first = await read({ path: 'wide.txt' })
    expect(textOf(first.content)).toEqual(lines.slice(0, 33))
    expect(first.content).toMatch(
      /\(Showing lines 1–33 of .*: this page reached its 50000-byte limit, and the file continues\. To read on, call read with offset=34\.\)$/,
    )
    expect(textOf((await read({ path: 'wide.txt', offset: 34 })).content)).toEqual(lines.slice(33))
  })

  it.each(['with\nnewline.txt', 'with space.txt', 'it\'s "quoted".txt', '$(touch CANARY).txt', '`touch CANARY`.txt', '-rf'])(
    'reads the file named %j as one literal name',
    async (name) => {
      const text = `inside ${JSON.stringify(name)}`
      writeFileSync(join(tree, name), `${text}\n`)
      for (const path of [name, join(tree, name)]) {
        expect(await read({ path })).toMatchObject({ isError: false, content: `     1\t${text}`, value: { path: join(tree, name) } })
      }
      expect(existsSync(join(tree, 'CANARY'))).toBe(false)
    },
  )

  it('resolves ../ against the session cwd', async () => {
    mkdirSync(join(tree, 'sub'), { recursive: true })
    writeFileSync(join(tree, 'up.txt'), 'from above\n')
    expect(await read({ path: '../up.txt' }, join(tree, 'sub'))).toMatchObject({
      isError: false,
      content: '     1\tfrom above',
      value: { path: join(tree, 'up.txt') },
    })
  })

  it('shows bytes that are not valid UTF-8 as U+FFFD and says so', async () => {
    writeFileSync(join(tree, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    expect((await read({ path: 'latin1.txt' })).content).toBe(
      '     1\tcaf\ufffd\n\n(Some bytes in these lines are not valid UTF-8; they are shown as U+FFFD.)',
    )
  })

  it('cuts a long line and marks it', async () => {
    writeFileSync(join(tree, 'minified.js'), `${'é'.repeat(1500)}\n`)
    expect((await read({ path: 'minified.js' })).content).toBe(`     1\t${'é'.repeat(1000)} … [line cut at 2000 bytes]`)
  })

  it('says an empty file is empty', async () => {
    writeFileSync(join(tree, 'empty.txt'), '')
    expect(await read({ path: 'empty.txt' })).toMatchObject({ isError: false, content: `${tree}/empty.txt is empty.` })
  })

  it.each([
    [
      'a binary file',
      'image.png',
      'FS_BINARY',
      `${tree}/image.png is a binary file (it has a NUL byte in its first 8192 bytes); its contents are not shown.`,
    ],
    ['a directory', 'sub', 'FS_IS_DIRECTORY', `${tree}/sub is a directory, not a file; list its files with glob.`],
    [
      'a missing path',
      'nope/missing.txt',
      'FS_NOT_FOUND',
      `${tree}/nope/missing.txt does not exist. Check the path, or find the file with glob.`,
    ],
  ])('refuses %s with a message that says what to do', async (_case, path, errorCode, content) => {
    writeFileSync(join(tree, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]))
    mkdirSync(join(tree, 'sub'), { recursive: true })
    expect(await read({ path })).toMatchObject({ isError: true, errorCode, content })
  })

  it('reads the file a spill store names in its footer', async () => {
    const store = createLocalSpillStore({ root: join(tree, 'spill') })
    const { locator } = await store.saveText({
      owner: 's',
      source: { toolName: 'grep', callId: 'c', label: 'result' },
      text: 'a.ts\nLine 1: hit\n',
      filename: 'grep-results.txt',
    })
    expect(await read({ path: locator })).toMatchObject({ isError: false, content: '     1\ta.ts\n     2\tLine 1: hit' })
  })
})

describe('read with the real access policy', () => {
  it('reads inside the session cwd, refuses outside it and refuses a denied file or a link to one', async () => {
    const work = join(tree, 'policy-work')
    mkdirSync(work)
    writeFileSync(join(work, 'ok.txt'), 'fine\n')
    writeFileSync(join(work, '.env'), 'SECRET=1\n')
    symlinkSync(join(work, '.env'), join(work, 'innocent.txt'))
    const guarded = await loadHarness({ plugins: [fsLocal, access, toolFs], config: { access: { deny: ['**/.env'] } } })
    const call = (path: string) => guarded.registry.execute('read', { path }, { agent: { session: { header: { id: 's', cwd: work } } } })
    expect(await call('ok.txt')).toMatchObject({ isError: false, content: '     1\tfine' })
    expect(await call('.env')).toMatchObject({ isError: true, errorCode: 'FS_DENIED' })
    expect(await call('innocent.txt')).toMatchObject({ isError: true, errorCode: 'FS_DENIED' })
    expect((await call('innocent.txt')).content).not.toContain('SECRET')
    expect(await call('../long.txt')).toMatchObject({ isError: true, errorCode: 'ACCESS_OUTSIDE_ROOTS' })
    expect(await call('/proc/self/environ')).toMatchObject({ isError: true, errorCode: 'ACCESS_OUTSIDE_ROOTS' })
  })
})
