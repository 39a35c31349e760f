// `node --import ./scripts/conformance/node20-glob-sync.mjs`: lets @modelcontextprotocol/conformance load on Node 20.
//
// The suite imports `globSync` from `fs`, which Node adds in 22; on Node 20 the import fails at link
// time, before any scenario runs. Only its report command (`**/checks.json` over a results folder)
// calls it. This resolve hook hands the suite, and nothing else, an `fs` that is Node's own plus a
// `globSync` that says it needs Node 22. On Node 22 it does nothing.
import fs from 'node:fs'
import { register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

const FS_WITH_GLOB_SYNC = `data:text/javascript,${encodeURIComponent(
  [
    "export * from 'node:fs'",
    "export { default } from 'node:fs'",
    "export function globSync() { throw new Error('fs.globSync needs Node 22: this conformance command does not run on Node 20') }",
  ].join('\n'),
)}`

/** The loader hook: `fs` imported by the conformance suite resolves to Node's fs with a `globSync`. */
export function resolve(specifier, context, next) {
  const suite = context.parentURL?.includes('/@modelcontextprotocol/conformance/') ?? false
  if (suite && (specifier === 'fs' || specifier === 'node:fs')) return { url: FS_WITH_GLOB_SYNC, shortCircuit: true }
  return next(specifier, context)
}

// Loaded again as the hooks module, off the main thread: registered once.
if (isMainThread && typeof fs.globSync !== 'function') register(import.meta.url)
