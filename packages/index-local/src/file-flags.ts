// A file's flag byte in the index: kept apart from format.ts so the build's worker threads load it without @dsh/core.

/** A file the index holds: searched only when its trigrams allow a match, or `always`. */
export const FILE_INDEXED = 0
/** A file the index could not read, or would not key as rg reads it (too large, UTF-16): every search reads it. */
export const FILE_ALWAYS = 1
/**
 * A file keyed as `FILE_INDEXED` whose bytes hold a NUL: rg searches a file it is given by name in
 * binary "convert" mode and one its walk finds only up to the first NUL, so such a file is never named
 * to rg (docs/design.md#the-index-file).
 */
export const FILE_INDEXED_NUL = 2
