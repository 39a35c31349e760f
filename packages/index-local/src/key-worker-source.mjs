// Starts a build worker from TypeScript source (tests, tsx scripts), where no key-worker.js is built beside key-pool.ts.
// Node 20 runs no .ts file as a worker, and `--import tsx` in a worker's execArgv registers no hooks in it
// (measured on 20.20: ERR_UNKNOWN_FILE_EXTENSION); tsx's tsImport loads the entry with its own loader.
import { tsImport } from 'tsx/esm/api'

await tsImport('./key-worker.ts', import.meta.url)
