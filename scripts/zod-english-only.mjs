// An esbuild plugin that keeps zod's message locales out of a bundle, but English.
import path from 'node:path'

// zod re-exports every one of its ~60 message locales (`z.locales`); dsh uses only English, which
// zod imports itself. Parsing the rest cost every dsh call ~40 ms; in the search card's MCP App
// bundle they were a third of its 690 KB.
export const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js'",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }))
  },
}
