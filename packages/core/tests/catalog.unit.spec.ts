import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { configFields, renderConfigCatalog } from '@dsh/core'

const plugin = (name: string, Config: z.ZodType) => ({ name, inject: [], Config, apply: () => undefined })

const search = plugin(
  'search',
  z.strictObject({
    maxMatches: z.number().int().min(1).max(10_000).default(250).describe('Matches kept inline. @default 250'),
    ratio: z.number().gt(0).default(0.5).describe('A | ratio.'),
    mode: z.enum(['fast', 'exact']).default('fast').describe('How to search.'),
    root: z.string().optional().describe('Where.'),
    extras: z.array(z.string()).default([]).describe('Extra names.'),
    either: z.union([z.string(), z.number()]).optional(),
    anything: z.custom<(x: number) => number>(() => true).optional(),
    types: z.union([z.string(), z.null()]).default(null),
  }),
)

describe('the config catalog', () => {
  it('lists each field with type, default and description', () => {
    expect(configFields([search])).toEqual([
      {
        plugin: 'search',
        field: 'maxMatches',
        type: 'integer (≥ 1, ≤ 10000)',
        default: '250',
        description: 'Matches kept inline. @default 250',
      },
      { plugin: 'search', field: 'ratio', type: 'number (> 0)', default: '0.5', description: 'A | ratio.' },
      { plugin: 'search', field: 'mode', type: '"fast" \\| "exact"', default: '"fast"', description: 'How to search.' },
      { plugin: 'search', field: 'root', type: 'string', default: '(none)', description: 'Where.' },
      { plugin: 'search', field: 'extras', type: 'string[]', default: '[]', description: 'Extra names.' },
      { plugin: 'search', field: 'either', type: 'string \\| number', default: '(none)', description: '' },
      { plugin: 'search', field: 'anything', type: 'any', default: '(none)', description: '' },
      { plugin: 'search', field: 'types', type: 'string \\| null', default: 'null', description: '' },
    ])
  })

  it('renders Markdown tables, one per plugin, escaping pipes', () => {
    const doc = renderConfigCatalog([search, plugin('empty', z.strictObject({}))])
    expect(doc).toContain('## search\n\n| field | type | default | description |')
    expect(doc).toContain('| `ratio` | number (> 0) | `0.5` | A \\| ratio. |')
    expect(doc).toContain('## empty\n\nNo configuration.\n')
    expect(doc.startsWith('# Configuration\n')).toBe(true)
  })

  it('describes an array without item schema and a multi-type node', () => {
    const odd = plugin('odd', z.strictObject({ list: z.array(z.any()).optional() }))
    expect(configFields([odd])[0]?.type).toBe('any[]')
    const unbounded = plugin('unbounded', z.strictObject({ n: z.number().int() }))
    expect(configFields([unbounded])[0]?.type).toBe('integer')
    expect(configFields([plugin('opaque', z.any())])).toEqual([])
    const mixed = plugin('mixed', z.strictObject({ target: z.union([z.string(), z.strictObject({ path: z.string() })]).optional() }))
    expect(configFields([mixed])[0]?.type).toBe('string \\| object')
  })
})
