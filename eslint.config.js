// Lint: typescript-eslint's recommended type-aware rules, import cycles, and the package boundaries
// docs/design.md#architecture draws: core depends on nothing of ours, tools on core only, cli/mcp compose everything,
// and only the bash executor spawns processes.
import js from '@eslint/js'
import { importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'

const spawning = ['node:child_process', 'child_process']
const restrict = (paths, patterns, message, walls = []) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: paths.map((name) => ({ name, message })),
      patterns: [...(patterns.length === 0 ? [] : [{ group: patterns, message }]), ...walls],
    },
  ],
})

// Inside tool-fs-search (docs/design.md#the-engine-and-its-surfaces): the engine imports no surface, and
// Claude Code's surface does not import dsh's. A later config replaces an earlier one's options for the
// same rule, so these walls are added to the tool-package restriction, not set beside it.
const toolPaths = [...spawning, 'node:fs', 'node:fs/promises', 'fs', 'fs/promises']
const toolPatterns = ['@dsh/*', '!@dsh/core']
const toolMessage = 'a tool depends on @dsh/core only and reaches processes and files through the bash and fs seams'
const surfaceWall = (regex, message) => ({ regex, message })
const noDsh = surfaceWall('(^|/)dsh/', "Claude Code's surface and the engine do not import the dsh surface")
const noClaude = surfaceWall('(^|/)claude-code/', "the engine imports no surface: not Claude Code's")
const noPlugin = surfaceWall('(^|/)plugin\\.js$', 'the engine imports no surface: not the plugin that composes them')

export default tseslint.config(
  { ignores: ['**/dist/**', 'coverage/**', 'node_modules/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // tsconfig.test.json holds every TypeScript file: sources, tests, bench, soak, scripts.
    languageOptions: { parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname } },
  },
  // Plain JavaScript (this file, the build scripts) has no types to check against.
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // The dsh command's launcher is CommonJS (packages/cli/bin/package.json), so a served call starts no ES module loader.
  {
    files: ['packages/cli/bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    plugins: { 'import-x': importX },
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-self-import': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      // A union that gains a member (a stop reason, an error code) must be handled wherever it is switched on.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // Tests: vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed `any`; fakes
    // implement async seams without awaiting; and tests throw and reject non-Errors on purpose.
    files: ['packages/*/tests/**/*.ts', 'test-support/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*'], 'core depends on nothing of ours and never spawns processes'),
  },
  {
    files: ['packages/spill-local/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*', '!@dsh/core'], 'a store depends on @dsh/core only and runs no processes'),
  },
  {
    files: ['packages/index-local/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*', '!@dsh/core'], 'the index depends on @dsh/core only and runs processes through the bash seam'),
  },
  {
    // read goes through the FileSystem seam (ctx.fs) so it works behind a sandboxed or remote backend.
    files: ['packages/tool-*/src/**/*.ts'],
    rules: restrict(toolPaths, toolPatterns, toolMessage),
  },
  {
    files: ['packages/tool-fs-search/src/engine/**/*.ts'],
    rules: restrict(toolPaths, toolPatterns, toolMessage, [noDsh, noClaude, noPlugin]),
  },
  {
    files: ['packages/tool-fs-search/src/claude-code/**/*.ts'],
    rules: restrict(toolPaths, toolPatterns, toolMessage, [noDsh, noPlugin]),
  },
  {
    files: ['packages/fs-local/src/**/*.ts', 'packages/access/src/**/*.ts'],
    rules: restrict(spawning, ['@dsh/*', '!@dsh/core'], 'a provider depends on @dsh/core only and never spawns processes'),
  },
  {
    files: ['packages/mcp/src/**/*.ts'],
    rules: restrict(
      spawning,
      ['@dsh/*', '!@dsh/core'],
      'the MCP server serves a loaded harness: it depends on @dsh/core only, and runs processes only through tools',
    ),
  },
  {
    // The card runs in a browser page with nothing of ours beside it: it reads the view's shape, not core's types.
    files: ['packages/search-card/src/**/*.ts'],
    rules: restrict(
      [...spawning, 'node:fs', 'node:fs/promises', 'fs', 'fs/promises'],
      ['@dsh/*', 'node:*'],
      'the search card runs in a browser: it imports lit only, nothing of ours and nothing of Node',
    ),
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
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportDeclaration[source.value=/^\\.\\/index(\\.js)?$/]', message: 'import the module, not the package index' },
      ],
    },
  },
)
