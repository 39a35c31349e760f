// The words in an upstream tool's JSON Schema, each description and title, cleaned as its description is.
import { cleanUntrustedText } from '@dsh/core'

/** Keywords whose values are instances the upstream validates, not schemas: kept as sent. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples'])
/** Keywords whose values map names (of properties, of definitions) to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/**
 * A JSON Schema with each `description` and `title` cleaned (docs/design.md#upstream-text-is-cleaned),
 * at any depth: a host shows a model the schema's words as it shows the tool's description. What
 * validation reads is kept as sent: data under `const`, `default`, `enum` and `examples`, and the
 * names of properties, which a call must send back as they are.
 */
export function cleanSchemaText(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schema).map(([keyword, value]) => [keyword, cleanKeyword(keyword, value)]))
}

function cleanKeyword(keyword: string, value: unknown): unknown {
  if (DATA_KEYWORDS.has(keyword)) return value
  if (typeof value === 'string') return keyword === 'description' || keyword === 'title' ? cleanUntrustedText(value) : value
  if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, cleanSubschema(schema)]))
  }
  return Array.isArray(value) ? value.map(cleanSubschema) : cleanSubschema(value)
}

/** A value where a schema stands (`items`, `not`, an `anyOf` entry): a schema when it is an object, else as it is. */
function cleanSubschema(value: unknown): unknown {
  return isObject(value) ? cleanSchemaText(value) : value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
