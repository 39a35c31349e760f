// notifications/tools/list_changed: sent when the session's listing is no longer the one last announced.
import type { Logger, ToolRegistry } from '@dsh/core'
import type { Server } from '@modelcontextprotocol/server'

/**
 * Returns a function that tells the host the tool list changed, when the session's listing differs
 * from the one it last told of: after a call that loaded deferred tools (before the call's result, so
 * a host holding the result knows to fetch the list again), and when an upstream's tools come or go.
 * Listings are compared whole (names, descriptions, schemas), so a change is announced once however
 * many events saw it, and an upstream tool whose schema changed under the same name is announced too.
 */
export function toolListAnnouncer(server: Server, registry: ToolRegistry, session: string, logger: Logger): () => Promise<void> {
  const listed = (): string => JSON.stringify(registry.listFor(session))
  let announced = listed()
  return async () => {
    const now = listed()
    if (now === announced) return
    announced = now
    // Before the host has connected there is no one to tell; it lists the tools itself.
    await server.sendToolListChanged().catch((error: Error) => logger.info(`mcp: tools/list_changed not sent: ${error.message}`))
  }
}
