import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CATALOG_MAX_BYTES, CATALOG_MAX_TOOLS, parseCatalog, readCatalogFile } from '../src/catalog-file.js'
import { scratchDir } from './io.js'

const dir = scratchDir('catalog-file')

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

const row = { name: 'mcp__slack__send_message', description: 'Send a message.' }

describe('readCatalogFile', () => {
  it('registers each entry as a tool with the metadata it gives, and the conservative defaults otherwise', async () => {
    const tools = await readCatalogFile(
      file(
        'ok.json',
        JSON.stringify([
          { ...row, isMcp: true },
          { name: 'NotebookEdit', description: 'Edit\ta cell.\n', searchHint: 'jupyter', shouldDefer: true },
        ]),
      ),
    )
    expect(
      tools.map(({ name, description, searchHint, isMcp, shouldDefer, alwaysLoad }) => ({
        name,
        description,
        searchHint,
        isMcp,
        shouldDefer,
        alwaysLoad,
      })),
    ).toEqual([
      { ...row, searchHint: undefined, isMcp: true, shouldDefer: false, alwaysLoad: false },
      { name: 'NotebookEdit', description: 'Edit\ta cell.\n', searchHint: 'jupyter', isMcp: false, shouldDefer: true, alwaysLoad: false },
    ])
    await expect(tools[0]!.execute({}, { signal: new AbortController().signal, name: row.name, callId: 'c' })).rejects.toMatchObject({
      code: 'CATALOG_ENTRY',
      message: 'mcp__slack__send_message is a catalog entry: dsh tool-search ranks it, and nothing runs it',
    })
  })

  it.each([
    ['a missing file', () => join(dir, 'missing.json'), /^cannot read catalog .*missing\.json: ENOENT/],
    ['a directory', () => (mkdirSync(join(dir, 'a-dir'), { recursive: true }), join(dir, 'a-dir')), /^catalog .*a-dir is not a file$/],
    ['bytes that are not UTF-8', () => file('latin1.json', Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d])), /is not UTF-8 text/],
    [
      'a file too large',
      () => file('huge.json', ' '.repeat(CATALOG_MAX_BYTES + 1)),
      new RegExp(`is ${CATALOG_MAX_BYTES + 1} bytes; a catalog may be at most ${CATALOG_MAX_BYTES}$`),
    ],
  ])('refuses %s', async (_, path, message) => {
    await expect(readCatalogFile(path())).rejects.toMatchObject({ command: 'tool-search', message: expect.stringMatching(message) })
  })
})

describe('parseCatalog', () => {
  const parse = (value: unknown) => () => parseCatalog(typeof value === 'string' ? value : JSON.stringify(value), 'c.json')

  it.each([
    ['text that is not JSON', '[{"name": ', /^catalog c\.json is not JSON \(/],
    [
      'an object instead of an array',
      { tools: [] },
      /must be an array of \{name, description, searchHint\?, isMcp\?, shouldDefer\?, alwaysLoad\?\}: \(root\): /,
    ],
    ['an entry without a description', [{ name: 'a' }], /: 0\.description: /],
    ['a field it does not know', [{ ...row, schema: {} }], /: 0: Unrecognized key: "schema"/],
    ['a flag that is not a boolean', [{ ...row, isMcp: 'yes' }], /: 0\.isMcp: /],
    ['an escape sequence in a description', [{ ...row, description: 'red \u001b[31m' }], /0\.description: contains a control character/],
    ['a control character in a search hint', [{ ...row, searchHint: 'a\u0000b' }], /0\.searchHint: contains a control character/],
    ['a name with a control character', [{ ...row, name: 'send\u0007' }], /^catalog c\.json entry 0: tool name "send\\u0007" must match/],
    ['a name with a space', [{ ...row, name: 'send message' }], /entry 0: tool name "send message" must match/],
    ['a name over 64 characters', [{ ...row, name: `a${'b'.repeat(64)}` }], /entry 0: tool name "ab+" must match/],
    ['a name starting with a dash', [{ ...row, name: '-rf' }], /entry 0: tool name "-rf" must match/],
    [
      'a duplicate name',
      [row, { ...row, description: 'again' }],
      /^catalog c\.json names "mcp__slack__send_message" twice: entries 0 and 1$/,
    ],
    [
      'more entries than a catalog holds',
      Array.from({ length: CATALOG_MAX_TOOLS + 1 }, (_, i) => ({ name: `t${i}`, description: '' })),
      /a catalog holds at most 10000 tools/,
    ],
  ])('refuses %s with a message naming the entry', (_, value, message) => {
    expect(parse(value)).toThrow(expect.objectContaining({ command: 'tool-search', message: expect.stringMatching(message) }))
  })
})
