import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const packages = fileURLToPath(new URL('./packages/', import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run against each package's TypeScript source, so coverage is measured on src/ and no build is needed.
    // A subpath export (`@dsh/mcp/plugin`) is the source file of the same name.
    alias: [
      { find: /^@dsh\/([a-z-]+)$/, replacement: `${packages}$1/src/index.ts` },
      { find: /^@dsh\/([a-z-]+)\/([a-z-]+)$/, replacement: `${packages}$1/src/$2.ts` },
    ],
  },
  test: {
    include: ['packages/*/tests/**/*.spec.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      exclude: ['packages/*/src/bin.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { perFile: true, lines: 100, branches: 100, functions: 100, statements: 100 },
    },
  },
})
