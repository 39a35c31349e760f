import { describe, expect, it } from 'vitest'
import { builtinUsage, globalUsage, toolUsage } from '../src/usage.js'
import { listing } from './listing.js'

const grep = listing(
  'grep',
  {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'A regex.' },
      path: { type: 'string' },
      include: { type: 'string', description: 'One glob.' },
    },
    required: ['pattern'],
  },
  'Search file contents. More detail here.',
)
const read = listing(
  'read',
  { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer', description: 'First line.' } }, required: ['path'] },
  'Read a file',
)

describe('globalUsage', () => {
  it('lists each tool by its synopsis and first sentence, then the built-ins', () => {
    const text = globalUsage([grep, read])
    expect(text).toContain(
      '\n  dsh grep PATTERN [PATH] [--include INCLUDE]   Search file contents.\n  dsh read PATH [--offset N]                    Read a file\n',
    )
    expect(text).toMatch(/ {2}dsh tools +list the tools/)
    expect(text).toMatch(/ {2}dsh mcp \[--upstream FILE\] \[--http HOST:PORT\] +serve the tools over the Model Context Protocol/)
    expect(text).toMatch(/ {2}dsh tool-search QUERY \[--catalog FILE\] +rank deferred tools/)
    expect(text).toContain("Exit status, as rg's: 0 something matched or was listed, 1 nothing did, 2 an error")
  })

  it('says when no tool is registered', () => {
    expect(globalUsage([])).toContain('(no tools are registered: see the warnings above)')
  })
})

describe('toolUsage', () => {
  it('shows the synopsis, the description and each parameter', () => {
    const text = toolUsage(grep)
    expect(text.startsWith('Usage: dsh grep PATTERN [PATH] [--include INCLUDE]\n\nSearch file contents. More detail here.\n\n')).toBe(true)
    expect(text).toContain('  PATTERN            A regex.\n  PATH               (optional)\n  --include INCLUDE  (optional) One glob.\n')
  })

  it('shows a boolean flag without a value', () => {
    expect(toolUsage(listing('t', { type: 'object', properties: { all: { type: 'boolean', description: 'Everything.' } } }))).toContain(
      '\n  --all  (optional) Everything.\n',
    )
  })

  it('shows a tool without parameters', () => {
    expect(toolUsage(listing('now', { type: 'object' }, 'The time.'))).toMatch(/^Usage: dsh now\n\nThe time\.\n\nOptions/)
  })
})

describe('builtinUsage', () => {
  it('describes tools and mcp', () => {
    expect(builtinUsage('tools')).toMatch(/^Usage: dsh tools\n\nlist the tools/)
    expect(builtinUsage('mcp')).toMatch(
      /^Usage: dsh mcp \[--upstream FILE\] \[--http HOST:PORT\]\n\nserve the tools over the Model Context Protocol/,
    )
  })
})
