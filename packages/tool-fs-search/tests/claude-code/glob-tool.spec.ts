import { describe, expect, it } from 'vitest'
import { createClaudeGlobTool } from '../../src/claude-code/glob-tool.js'

describe('createClaudeGlobTool', () => {
  const glob = {
    name: 'glob',
    description: 'the dsh glob',
    presentCall: (args: { pattern: string; path?: string }) => ({
      card: 'generic' as const,
      kind: 'search' as const,
      title: `glob ${args.pattern}`,
      ...(args.path === undefined ? {} : { detail: args.path }),
    }),
  }

  it('is the tool it is given, named Glob, its call card titled so', () => {
    const tool = createClaudeGlobTool(glob)
    expect(tool.name).toBe('Glob')
    expect(tool.description).toBe('the dsh glob')
    expect(tool.presentCall({ pattern: '*.ts', path: 'src' } as { pattern: string })).toEqual({
      card: 'generic',
      kind: 'search',
      title: 'Glob *.ts',
      detail: 'src',
    })
    expect(glob.name).toBe('glob')
  })
})
