// Lint: typescript-eslint's recommended type-aware rules, import cycles, and the package boundaries
// DESIGN.md draws: core depends on nothing of ours, tools on core only, cli/mcp compose everything,
// and only the bash executor spawns processes.
import js from '@eslint/js'
import { importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

const spawning = ['node:child_process', 'child_process']
const restrict = (paths, patterns, message) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: paths.map((name) => ({ name, message })),
      patterns: patterns.length === 0 ? [] : [{ group: patterns, message }],
    },
  ],
})

export default tseslint.config(
  { ignores: ['**/dist/**', 'coverage/**', 'node_modules/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' } },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-self-import': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*'], 'core depends on nothing of ours and never spawns processes'),
  },
  {
    files: ['packages/tool-*/src/**/*.ts', 'packages/spill-local/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*', '!@dsh/core'], 'a tool or store depends on @dsh/core only and runs processes through the bash seam'),
  },
  {
    files: ['packages/bash-local/src/**/*.ts'],
    rules: restrict([], ['@dsh/*', '!@dsh/core'], 'the bash executor depends on @dsh/core only'),
  },
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/index.ts'],
    rules: {
      // No file imports its own package's index: the index is the public surface, not an internal hub.
      'no-restricted-syntax': ['error', { selector: "ImportDeclaration[source.value=/^\\.\\/index(\\.js)?$/]", message: 'import the module, not the package index' }],
    },
  },
)
