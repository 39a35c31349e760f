// The tools a plugin provides but could not register here, and why: a host can tell a person so.

/** A tool its plugin did not register, and the reason in words that say how to fix it. */
export interface WithheldTool {
  name: string
  reason: string
}

/**
 * Where a plugin records a tool it could not register in this environment (grep without a runnable
 * ripgrep). A model is shown only registered tools; a person who asks for a withheld one by name (a
 * command line) is told why instead of hearing it does not exist.
 */
export interface ToolAvailability {
  withhold(tool: WithheldTool): void
  /** Every withheld tool, in the order they were withheld; a name withheld twice keeps its first reason. */
  withheld(): WithheldTool[]
}

/** The loader's `toolAvailability` service: an in-memory record for one harness. */
export function createToolAvailability(): ToolAvailability {
  const withheld = new Map<string, string>()
  return {
    withhold: ({ name, reason }) => {
      if (!withheld.has(name)) withheld.set(name, reason)
    },
    withheld: () => [...withheld].map(([name, reason]) => ({ name, reason })),
  }
}
