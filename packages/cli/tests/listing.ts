import type { ToolListing } from '@dsh/core'

/** A tool listing with just the schema and description the CLI reads. */
export function listing(name: string, inputSchema: Record<string, unknown>, description = `The ${name} tool.`): ToolListing {
  return {
    name,
    description,
    inputSchema,
    isReadOnly: true,
    isConcurrencySafe: true,
    shouldDefer: false,
    alwaysLoad: false,
    isMcp: false,
    usesWorkspace: true,
    promptSections: [],
  }
}
