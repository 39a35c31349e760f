import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ToolListing } from '@dsh/core'
import { BUILTIN_SHAPES } from '../src/builtin-args.js'
import { manPage, roff } from '../src/man-page.js'

const tool = (name: string, inputSchema: Record<string, unknown>, description = `${name} does a thing.`): ToolListing => ({
  name,
  description,
  inputSchema,
  promptSections: [],
  isReadOnly: true,
  isConcurrencySafe: true,
  shouldDefer: false,
  alwaysLoad: false,
  isMcp: false,
  usesWorkspace: true,
})

const frob = tool('frob', {
  type: 'object',
  properties: {
    target: { type: 'string', description: 'What to frob.' },
    level: { type: 'number', description: 'How hard.' },
    quiet: { type: 'boolean' },
  },
  required: ['target'],
})

/** What groff warns about the page (all warnings on), and the page as man would show it. */
function groff(page: string): { warnings: string; text: string } {
  expect(existsSync('/usr/bin/groff'), 'install groff-base, as .ci/run does').toBe(true)
  const check = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { input: page, encoding: 'utf8' })
  const shown = spawnSync('groff', ['-man', '-Tascii', '-P-cbou', '-rLL=200n'], { input: page, encoding: 'utf8' })
  return { warnings: check.stderr, text: shown.stdout }
}

describe('manPage', () => {
  it('documents every tool from its schema, a new one with no code, and groff reads it without a warning', () => {
    const page = manPage({ tools: [frob], builtins: BUILTIN_SHAPES, version: '1.2.3' })
    const { warnings, text } = groff(page)
    expect(warnings).toBe('')
    expect(text).toContain('dsh frob TARGET [--level N] [--quiet]')
    expect(text).toMatch(/TARGET\s+What to frob\./)
    expect(text).toMatch(/--level N\s+\(optional\) How hard\./)
    expect(text).toContain('dsh completion bash|zsh|fish')
    expect(text).toContain('dsh tool-search QUERY [--catalog FILE]')
    expect(text).toMatch(/EXIT STATUS\s+As rg's:\s+0\s+something matched or was listed;\s+1\s+nothing did;/)
    expect(text).toContain('--color WHEN')
    expect(text).toContain('dsh 1.2.3')
  })

  it('writes what roff would misread as escapes', () => {
    expect(roff(".start\n'quote\na\\b -c — d")).toBe("\\&.start\n\\&'quote\na\\eb \\-c \\[u2014] d")
    expect(roff('😀')).toBe('\\[u1F600]')
    const page = manPage({
      tools: [tool('odd', { type: 'object', properties: {} }, '.TH looks like a request — and \\ is not one')],
      builtins: BUILTIN_SHAPES,
      version: '0',
    })
    const { warnings, text } = groff(page)
    expect(warnings).toBe('')
    expect(text).toContain('.TH looks like a request')
    expect(text).toContain('\\ is not one')
  })
})
