// The upstreams the gateway tests front: notes and hostile (stdio scripts, child processes) and docs (Streamable HTTP, in process).
import { fileURLToPath } from 'node:url'
import type { UpstreamServer } from '@dsh/mcp'

/** The hostile server's script: tools whose names and text try to deceive. */
export const HOSTILE_SCRIPT = fileURLToPath(new URL('./hostile-upstream.mjs', import.meta.url))

/** The hostile server as the gateway starts it. */
export function hostileServer(): UpstreamServer {
  return { name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_SCRIPT], env: {} }
}

/** The notes server's script. */
export const NOTES_SCRIPT = fileURLToPath(new URL('./stdio-upstream.mjs', import.meta.url))

/**
 * The notes server as the gateway starts it: `node stdio-upstream.mjs TAG`, with extra environment. The
 * tag (ignored by the script) tells this test's processes from any other's in the process table.
 */
export function notesServer(env: Record<string, string> = {}, name = 'notes', tag = 'untagged'): UpstreamServer {
  return { name, transport: 'stdio', command: process.execPath, args: [NOTES_SCRIPT, tag], env }
}

/** Whether a process is alive (signal 0 tests without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The many server's script: as many tools as asked, a list that changes on a call, and a noisy stderr. */
export const MANY_SCRIPT = fileURLToPath(new URL('./many-upstream.mjs', import.meta.url))

/** The many server as the gateway starts it, with `tools` tools besides grow and shrink. */
export function manyServer(tools = 3, name = 'many'): UpstreamServer {
  return { name, transport: 'stdio', command: process.execPath, args: [MANY_SCRIPT], env: { UPSTREAM_TOOLS: String(tools) } }
}
