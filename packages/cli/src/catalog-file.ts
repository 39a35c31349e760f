// `dsh tool-search --catalog FILE`: a JSON array of tools, read and checked, registered by a plugin so tool_search ranks them.
import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { defineTool, describeIssues, errorMessage, HarnessError, type PluginContext, type ToolDefinition } from '@dsh/core'
import { UsageError } from './command-line.js'

/** The largest catalog read, in bytes: 150 tools take ~20 KB, and a mistaken path must not be read whole. */
export const CATALOG_MAX_BYTES = 8 * 1024 * 1024

/** The most entries a catalog holds: far more than any harness offers a model. */
export const CATALOG_MAX_TOOLS = 10_000

// Tab and newline belong in a description; any other control character (an escape sequence among
// them) would reach the terminal that prints a match.
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
const prose = z.string().refine((text) => !CONTROL.test(text), 'contains a control character; only tab and newline are allowed')
const Row = z.strictObject({
  name: z.string(),
  description: prose,
  searchHint: prose.optional(),
  isMcp: z.boolean().optional(),
  shouldDefer: z.boolean().optional(),
  alwaysLoad: z.boolean().optional(),
})
const Catalog = z.array(Row).max(CATALOG_MAX_TOOLS, `a catalog holds at most ${CATALOG_MAX_TOOLS} tools`)

/** One catalog entry as it is registered. */
export type CatalogRow = z.output<typeof Row>

/** Reads and checks a catalog file; every problem is a usage error naming the file and the entry. */
export async function readCatalogFile(file: string): Promise<ToolDefinition[]> {
  const info = await stat(file).catch((error: unknown) => {
    throw new UsageError(`cannot read catalog ${file}: ${errorMessage(error)}`, { command: 'tool-search' })
  })
  if (!info.isFile()) throw catalogError(file, 'is not a file')
  if (info.size > CATALOG_MAX_BYTES) throw catalogError(file, `is ${info.size} bytes; a catalog may be at most ${CATALOG_MAX_BYTES}`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file))
  } catch (error) {
    throw catalogError(file, `is not UTF-8 text (${errorMessage(error)})`)
  }
  return parseCatalog(text, file)
}

/** Checks a catalog's text: JSON, an array of entries of the documented shape, each name a valid tool name and used once. */
export function parseCatalog(text: string, file: string): ToolDefinition[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw catalogError(file, `is not JSON (${errorMessage(error)})`)
  }
  const parsed = Catalog.safeParse(json)
  if (!parsed.success) {
    throw catalogError(
      file,
      `must be an array of {name, description, searchHint?, isMcp?, shouldDefer?, alwaysLoad?}: ${describeIssues(parsed.error)}`,
    )
  }
  const first = new Map<string, number>()
  return parsed.data.map((row, index) => {
    const earlier = first.get(row.name)
    if (earlier !== undefined) throw catalogError(file, `names ${JSON.stringify(row.name)} twice: entries ${earlier} and ${index}`)
    first.set(row.name, index)
    try {
      return catalogTool(row)
    } catch (error) {
      // defineTool's message quotes the name as JSON, so a control character in it is shown, not sent to the terminal.
      throw catalogError(file, `entry ${index}: ${errorMessage(error)}`)
    }
  })
}

/** A catalog entry as a tool: it is there to be ranked, so running it says so. */
function catalogTool(row: CatalogRow): ToolDefinition {
  const { name, description, searchHint, isMcp = false, shouldDefer = false, alwaysLoad = false } = row
  return defineTool({
    name,
    description,
    ...(searchHint === undefined ? {} : { searchHint }),
    isMcp,
    shouldDefer,
    alwaysLoad,
    parameters: z.strictObject({}),
    execute: () =>
      Promise.reject(new HarnessError('CATALOG_ENTRY', `${name} is a catalog entry: dsh tool-search ranks it, and nothing runs it`)),
  })
}

/** The plugin that registers a catalog's tools. */
export function catalogPlugin(tools: readonly ToolDefinition[]) {
  return {
    name: 'catalog',
    inject: ['tools'] as const,
    Config: z.strictObject({}),
    apply(ctx: PluginContext<'tools'>) {
      for (const tool of tools) ctx.tools.register(tool)
    },
  }
}

function catalogError(file: string, problem: string): UsageError {
  return new UsageError(`catalog ${file} ${problem}`, { command: 'tool-search' })
}
