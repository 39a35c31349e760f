// Bundling a test's child-process script from source, so a plain `node` runs the code as it stands.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const packages = fileURLToPath(new URL('../packages/', import.meta.url))

/**
 * Bundles `entry` (a TypeScript file) into one ES module at `outfile`, every `@dsh/*` import taken from
 * its package's `src`: a child process then runs today's source with no build step and no loader
 * (tsx costs ~0.6 s of CPU per process, a bundle ~0.1 s).
 */
export async function bundleScript(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    alias: Object.fromEntries(['core', 'bash-local', 'spill-local'].map((name) => [`@dsh/${name}`, `${packages}${name}/src/index.ts`])),
    logLevel: 'warning',
  })
}
