import { describe, expect, it } from 'vitest'
import {
  AccessError,
  CoreError,
  FsError,
  loadHarness,
  type AccessGrant,
  type AccessPolicy,
  type AccessRequest,
  type FsErrorCode,
  type ToolExecContext,
} from '@dsh/core'
import * as toolFs from '@dsh/tool-fs'
import { Config } from '../src/config.js'
import { executeRead } from '../src/read.js'
import { FakeFs, window, type ReadScript } from './fake-fs.js'

const agent = { session: { header: { id: 'sess-1', cwd: '/work/repo' } } }
const FILE = '/work/repo/a.txt'

async function harnessWith(script?: ReadScript, config: Record<string, unknown> = {}) {
  const fs = new FakeFs(script)
  const harness = await loadHarness({ plugins: [toolFs], services: { fs }, config: { 'tool-fs': config } })
  return {
    fs,
    harness,
    read: (args: Record<string, unknown>, options = {}) => harness.registry.execute('read', args, { agent, callId: 'call-1', ...options }),
  }
}

/** A script that waits for the request's signal and then fails as a provider does. */
const untilAborted: ReadScript = (request) =>
  new Promise((_resolve, reject) =>
    request.signal?.addEventListener('abort', () => reject(new FsError('FS_ABORTED', `reading ${request.path} was cancelled`))),
  )

describe('read through the registry with a fake file system', () => {
  it('numbers lines like cat -n and asks the seam for the configured window', async () => {
    const { fs, read } = await harnessWith(() => window(['first', '\tindented', '']))
    const result = await read({ path: 'a.txt' })
    expect(result).toMatchObject({ isError: false, content: '     1\tfirst\n     2\t\tindented\n     3\t' })
    expect(result.value).toEqual({ path: FILE, offset: 1, lines: 3, lineTexts: ['first', '\tindented', ''], totalLines: 3 })
    expect(fs.requests).toEqual([
      { path: FILE, offset: 1, limit: 2000, maxLineBytes: 2000, maxBytes: 50_000, binarySniffBytes: 8192, signal: expect.any(AbortSignal) },
    ])
  })

  it("hands the call's own AbortSignal to the seam", async () => {
    const fs = new FakeFs()
    const exec: ToolExecContext = { signal: new AbortController().signal, name: 'read', callId: 'c', agent }
    await executeRead({ fs, access: () => undefined }, Config.parse({}), { path: FILE }, exec)
    expect(fs.requests[0]!.signal).toBe(exec.signal)
  })

  it('passes offset and limit through, and numbers from the offset', async () => {
    const { fs, read } = await harnessWith((r) => window(['x', 'y'], { first: r.offset, stoppedBy: 'limit' }))
    const result = await read({ path: FILE, offset: 41, limit: 2 })
    expect(fs.requests[0]).toMatchObject({ offset: 41, limit: 2 })
    expect(result.content).toBe(
      `    41\tx\n    42\ty\n\n(Showing lines 41–42 of ${FILE}; the file continues. To read on, call read with offset=43.)`,
    )
    expect(result.value).toEqual({ path: FILE, offset: 41, lines: 2, lineTexts: ['x', 'y'], nextOffset: 43 })
  })

  it.each([
    ['a relative path against the session cwd', 'src/b.ts', '/work/repo/src/b.ts'],
    ['a path that climbs out of the cwd', '../other/c.ts', '/work/other/c.ts'],
    ['an absolute path, normalized', '/srv//x/./y/../z.txt', '/srv/x/z.txt'],
    [
      'a spill locator',
      '/root/.local/state/dsh/spill/sess-1/0001-grep-results.txt',
      '/root/.local/state/dsh/spill/sess-1/0001-grep-results.txt',
    ],
  ])('resolves %s', async (_case, path, resolved) => {
    const { fs, read } = await harnessWith()
    await read({ path })
    expect(fs.requests[0]!.path).toBe(resolved)
  })

  it('reads an absolute path in a call without a session, and refuses a relative one there', async () => {
    const { fs, read } = await harnessWith()
    expect(await read({ path: FILE }, { agent: undefined })).toMatchObject({ isError: false })
    expect(await read({ path: 'a.txt' }, { agent: undefined })).toMatchObject({
      isError: true,
      errorCode: 'FS_INVALID_PATH',
      content: 'a.txt is relative and this call has no working directory; give an absolute path.',
    })
    expect(fs.requests).toHaveLength(1)
  })

  it('refuses a path with a NUL character without asking the seam', async () => {
    const { fs, read } = await harnessWith()
    expect(await read({ path: 'a\0b' })).toMatchObject({
      isError: true,
      errorCode: 'FS_INVALID_PATH',
      content: 'the path contains a NUL character, which no file name can hold.',
    })
    expect(fs.requests).toEqual([])
  })

  it.each([
    [{ path: '' }, /path: Too small/],
    [{ path: FILE, offset: 0 }, /offset: Too small/],
    [{ path: FILE, offset: 1.5 }, /offset: Invalid input: expected int/],
    [{ path: FILE, limit: 2001 }, /limit: Too big: expected number to be <=2000/],
    [{ path: FILE, lines: 3 }, /Unrecognized key: "lines"/],
  ])('rejects the arguments %j before reading', async (args, message) => {
    const { fs, read } = await harnessWith()
    const result = await read(args)
    expect(result).toMatchObject({ isError: true, errorCode: 'TOOL_INVALID_ARGUMENTS' })
    expect(result.content).toMatch(message)
    expect(fs.requests).toEqual([])
  })
})

describe('the page read shows', () => {
  it('marks a cut line with the byte limit', async () => {
    const { read } = await harnessWith(() => window([{ number: 1, text: 'x'.repeat(10), cut: true }, 'short']), { readMaxLineBytes: 10 })
    expect((await read({ path: FILE })).content).toBe(`     1\t${'x'.repeat(10)} … [line cut at 10 bytes]\n     2\tshort`)
  })

  it('says the file continues and where to read on when it stopped at the line limit', async () => {
    const { read } = await harnessWith(() => window(['a', 'b'], { stoppedBy: 'limit' }))
    expect((await read({ path: 'a.txt' })).content).toBe(
      `     1\ta\n     2\tb\n\n(Showing lines 1–2 of ${FILE}; the file continues. To read on, call read with offset=3.)`,
    )
  })

  it('does not claim more lines follow a cut last line', async () => {
    const { read } = await harnessWith(() => window(['a', { number: 2, text: 'bb', cut: true }], { stoppedBy: 'limit' }), {
      readMaxLineBytes: 2,
    })
    expect((await read({ path: FILE })).content).toMatch(
      /\n\n\(Showing lines 1–2 of \/work\/repo\/a\.txt; its last line is cut, and more lines may follow\. To read on, call read with offset=3\.\)$/,
    )
  })

  it('says the page reached its byte limit', async () => {
    const { read } = await harnessWith(() => window(['a', 'b'], { first: 7, stoppedBy: 'bytes' }), { readMaxBytes: 1234 })
    const result = await read({ path: FILE, offset: 7 })
    expect(result.content).toMatch(
      /\n\n\(Showing lines 7–8 of \/work\/repo\/a\.txt: this page reached its 1234-byte limit, and the file continues\. To read on, call read with offset=9\.\)$/,
    )
    expect(result.value).toMatchObject({ nextOffset: 9 })
  })

  it('shows a whole file with no footer, and the last page of one with a short note', async () => {
    const { read } = await harnessWith((r) => window(['a', 'b'], { first: r.offset }))
    expect((await read({ path: FILE })).content).toBe('     1\ta\n     2\tb')
    const last = await read({ path: FILE, offset: 5 })
    expect(last.content).toBe(`     5\ta\n     6\tb\n\n(Showing lines 5–6 of ${FILE}, the end of the file.)`)
    expect(last.value).toEqual({ path: FILE, offset: 5, lines: 2, lineTexts: ['a', 'b'], totalLines: 6 })
  })

  it('notes bytes that are not valid UTF-8, before the paging footer', async () => {
    const { read } = await harnessWith(() => window(['caf\ufffd'], { stoppedBy: 'limit', lossy: true }))
    expect((await read({ path: FILE })).content).toBe(
      `     1\tcaf\ufffd\n\n(Some bytes in these lines are not valid UTF-8; they are shown as U+FFFD.)\n(Showing lines 1–1 of ${FILE}; the file continues. To read on, call read with offset=2.)`,
    )
  })

  it('says an empty file is empty: not an error', async () => {
    const { read } = await harnessWith(() => window([]))
    expect(await read({ path: FILE })).toMatchObject({
      isError: false,
      content: `${FILE} is empty.`,
      value: { path: FILE, offset: 1, lines: 0, lineTexts: [], totalLines: 0 },
    })
  })

  it.each([
    [9, 3, `offset 9 is past the end: ${FILE} has 3 lines; call read with an offset from 1 to 3.`],
    [2, 1, `offset 2 is past the end: ${FILE} has 1 line; call read with an offset from 1 to 1.`],
    [2, 0, `offset 2 is past the end: ${FILE} is empty.`],
  ])('answers FS_OFFSET_PAST_END for offset %i of a file of %i lines', async (offset, totalLines, content) => {
    const { read } = await harnessWith(() => ({ lines: [], stoppedBy: 'end', totalLines, lossy: false }))
    expect(await read({ path: FILE, offset })).toMatchObject({ isError: true, errorCode: 'FS_OFFSET_PAST_END', content })
  })

  it('quotes a path holding a newline wherever it names it', async () => {
    const { read } = await harnessWith(() => window(['a'], { stoppedBy: 'limit' }))
    expect((await read({ path: '/tmp/two\nlines' })).content).toContain('(Showing lines 1–1 of "/tmp/two\\nlines"; ')
  })

  it('quotes a path holding a bidi control, an invisible character or a C1 control, each escaped', async () => {
    const { read } = await harnessWith(() => window(['a'], { stoppedBy: 'limit' }))
    const content = (await read({ path: '/tmp/rtl\u202etxt.exe\u200b\u009b\u{e0041}' })).content
    expect(content).toContain('(Showing lines 1–1 of "/tmp/rtl\\u202etxt.exe\\u200b\\u009b\\udb40\\udc41"; ')
    expect((await read({ path: '/tmp/em\u2014dash' })).content).toContain('(Showing lines 1–1 of /tmp/em\u2014dash; ')
  })
})

describe('read failures', () => {
  it.each<[FsErrorCode, string]>([
    ['FS_NOT_FOUND', `${FILE} does not exist. Check the path, or find the file with glob.`],
    ['FS_IS_DIRECTORY', `${FILE} is a directory, not a file; list its files with glob.`],
    ['FS_NOT_A_FILE', `${FILE} is not a regular file (it is a FIFO, socket or device); read does not open it.`],
    ['FS_BINARY', `${FILE} is a binary file (it has a NUL byte in its first 8192 bytes); its contents are not shown.`],
    ['FS_PERMISSION', `${FILE} cannot be read: permission denied.`],
    ['FS_ABORTED', `read of ${FILE} was cancelled; nothing is shown.`],
    ['FS_INVALID_PATH', 'the provider says so'],
    ['FS_READ_FAILED', 'the provider says so'],
  ])('keeps %s and says what to do next', async (code, content) => {
    const cause = new FsError(code, 'the provider says so')
    const { read } = await harnessWith(() => Promise.reject(cause))
    expect(await read({ path: 'a.txt' })).toMatchObject({ isError: true, errorCode: code, content })
  })

  it("keeps the provider's error as the cause of a reworded one", async () => {
    const cause = new FsError('FS_NOT_FOUND', 'gone')
    const exec: ToolExecContext = { signal: new AbortController().signal, name: 'read', callId: 'c', agent }
    await expect(
      executeRead({ fs: new FakeFs(() => Promise.reject(cause)), access: () => undefined }, Config.parse({}), { path: FILE }, exec),
    ).rejects.toMatchObject({ code: 'FS_NOT_FOUND', cause })
  })

  it.each([
    ['an Error', new Error('disk on fire'), `read failed on ${FILE}: disk on fire`],
    ['a thrown string', 'disk on fire', `read failed on ${FILE}: disk on fire`],
  ])('reports %s from the provider as FS_READ_FAILED', async (_case, thrown, content) => {
    const { read } = await harnessWith(() => Promise.reject(thrown))
    expect(await read({ path: FILE })).toMatchObject({ isError: true, errorCode: 'FS_READ_FAILED', content })
  })

  it('passes another harness error through as it is', async () => {
    const { read } = await harnessWith(() => Promise.reject(new CoreError('TOOL_FAILED', 'backend gone')))
    expect(await read({ path: FILE })).toMatchObject({ isError: true, errorCode: 'TOOL_FAILED', content: 'backend gone' })
  })

  it('tells a cancellation by the caller from a timeout', async () => {
    const { fs, read } = await harnessWith(untilAborted, { timeoutMs: 20 })
    expect(await read({ path: FILE })).toMatchObject({
      isError: true,
      errorCode: 'FS_ABORTED',
      content: `read timed out before it finished ${FILE}; nothing is shown. Read a smaller window with offset and limit.`,
    })
    const patient = await harnessWith(untilAborted)
    const controller = new AbortController()
    const pending = patient.read({ path: FILE }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    expect(await pending).toMatchObject({
      isError: true,
      errorCode: 'FS_ABORTED',
      content: `read of ${FILE} was cancelled; nothing is shown.`,
    })
    expect([...fs.requests, ...patient.fs.requests].map((r) => r.signal?.aborted)).toEqual([true, true])
  })
})

describe('how a call is presented', () => {
  it.each([
    [{ path: 'a.txt' }, { card: 'generic', kind: 'read', title: 'read a.txt' }],
    [
      { path: 'a.txt', offset: 10 },
      { card: 'generic', kind: 'read', title: 'read a.txt', detail: 'from line 10' },
    ],
    [
      { path: 'a.txt', limit: 5 },
      { card: 'generic', kind: 'read', title: 'read a.txt', detail: 'lines 1–5' },
    ],
    [
      { path: 'a.txt', offset: 10, limit: 5 },
      { card: 'generic', kind: 'read', title: 'read a.txt', detail: 'lines 10–14' },
    ],
  ])('shows %j as %j', async (args, view) => {
    const { harness } = await harnessWith()
    expect(harness.registry.get('read')!.presentCall!(args)).toEqual(view)
  })
})

describe('read under an access policy', () => {
  const policy = (decide: (request: AccessRequest) => AccessGrant | Error): AccessPolicy => ({
    check: async (request) => {
      const outcome = decide(request)
      if (outcome instanceof Error) throw outcome
      return outcome
    },
  })

  async function readUnder(access: AccessPolicy, args: Record<string, unknown>, withAgent = true) {
    const fs = new FakeFs()
    const harness = await loadHarness({ plugins: [toolFs], services: { fs, access } })
    const result = await harness.registry.execute('read', args, withAgent ? { agent } : {})
    return { fs, result }
  }

  it('asks the policy about the resolved path and reads the real path it grants', async () => {
    const asked: AccessRequest[] = []
    const { fs, result } = await readUnder(
      policy((request) => (asked.push(request), { realPath: '/work/repo/real.txt', excludeGlobs: [] })),
      { path: 'link.txt' },
    )
    expect(result.isError).toBe(false)
    expect(asked).toEqual([
      { path: '/work/repo/link.txt', cwd: '/work/repo', purpose: 'read', session: expect.any(String), signal: expect.any(AbortSignal) },
    ])
    expect(fs.requests[0]!.path).toBe('/work/repo/real.txt')
  })

  it('reports a denied file as FS_DENIED, naming no rule', async () => {
    const { fs, result } = await readUnder(
      policy(() => new AccessError('ACCESS_DENIED', 'denied by **/.env')),
      { path: '.env' },
    )
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'FS_DENIED',
      content: "/work/repo/.env is excluded by this session's access rules; it cannot be read.",
    })
    expect(fs.requests).toEqual([])
  })

  it("keeps the policy's own error for a path outside the roots", async () => {
    const { result } = await readUnder(
      policy(() => new AccessError('ACCESS_OUTSIDE_ROOTS', '/etc/passwd is outside /work/repo')),
      { path: '/etc/passwd' },
    )
    expect(result).toMatchObject({ isError: true, errorCode: 'ACCESS_OUTSIDE_ROOTS', content: '/etc/passwd is outside /work/repo' })
  })

  it('refuses a call without a session, whose roots cannot be placed', async () => {
    const { fs, result } = await readUnder(
      policy(() => ({ realPath: FILE, excludeGlobs: [] })),
      { path: FILE },
      false,
    )
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'FS_INVALID_PATH',
      content: expect.stringMatching(/no session working directory/),
    })
    expect(fs.requests).toEqual([])
  })
})
