// The config catalog: every plugin's Config fields, rendered as docs/config.md.
import { z } from 'zod'
import { asPlugin, type PluginModule } from './plugin.js'

/** One config field as the catalog documents it. */
export interface ConfigField {
  plugin: string
  field: string
  type: string
  default: string
  description: string
}

/** Lists every config field of the given plugins, from their zod schemas. */
export function configFields(modules: readonly PluginModule[]): ConfigField[] {
  return modules.map(asPlugin).flatMap((plugin) => {
    const schema = z.toJSONSchema(plugin.Config, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode
    return Object.entries(schema.properties ?? {}).map(([field, node]) => ({
      plugin: plugin.name,
      field,
      type: describeType(node),
      default: node.default === undefined ? '(none)' : JSON.stringify(node.default),
      description: node.description ?? '',
    }))
  })
}

/** Renders the config catalog as Markdown: one table per plugin. */
export function renderConfigCatalog(modules: readonly PluginModule[]): string {
  const fields = configFields(modules)
  const lines = [
    '# Configuration',
    '',
    "Generated from each plugin's `Config` schema by `npm run docs:config`; a test fails when this file",
    'is out of date. Pass config to `dsh` with `--config FILE`, a JSON object keyed by plugin name.',
  ]
  for (const plugin of modules.map(asPlugin)) {
    lines.push('', `## ${plugin.name}`, '')
    const own = fields.filter((f) => f.plugin === plugin.name)
    if (own.length === 0) {
      lines.push('No configuration.')
      continue
    }
    lines.push('| field | type | default | description |', '| --- | --- | --- | --- |')
    for (const f of own) lines.push(`| \`${f.field}\` | ${f.type} | \`${f.default}\` | ${f.description.replaceAll('|', '\\|')} |`)
  }
  return `${lines.join('\n')}\n`
}

interface JsonSchemaNode {
  type?: string | string[]
  enum?: unknown[]
  /** Always present for a zod array, which is the only producer. */
  items?: JsonSchemaNode
  anyOf?: JsonSchemaNode[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  default?: unknown
  description?: string
  properties?: Record<string, JsonSchemaNode>
}

function describeType(node: JsonSchemaNode): string {
  if (node.enum !== undefined) return node.enum.map((v) => JSON.stringify(v)).join(' \\| ')
  if (node.anyOf !== undefined) return node.anyOf.map(describeType).join(' \\| ')
  if (node.type === 'array') return `${describeType(node.items!)}[]`
  const base = Array.isArray(node.type) ? node.type.join(' \\| ') : (node.type ?? 'any')
  const bounds: string[] = []
  // zod's int() adds ±MAX_SAFE_INTEGER bounds nobody chose; they say nothing to a reader.
  if (node.minimum !== undefined && node.minimum !== Number.MIN_SAFE_INTEGER) bounds.push(`≥ ${node.minimum}`)
  if (node.exclusiveMinimum !== undefined) bounds.push(`> ${node.exclusiveMinimum}`)
  if (node.maximum !== undefined && node.maximum !== Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${node.maximum}`)
  return bounds.length === 0 ? base : `${base} (${bounds.join(', ')})`
}
