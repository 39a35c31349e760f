// The exit statuses the glob and grep scripts add to rg's own 0 (found), 1 (none) and 2 (partial or error).

/** The directory to search exists but cannot be entered: the executor's user lacks search permission. */
export const EXIT_CANNOT_ENTER = 3
/** The path to search does not exist, or a directory above it cannot be entered. */
export const EXIT_MISSING = 4
/** glob's search root is not a directory. */
export const EXIT_NOT_DIRECTORY = 5
/** grep was given an include that filters files, and a file to search. */
export const EXIT_INCLUDE_ON_FILE = 6
/** glob's mtime helper could not stat some names rg listed; its messages are on stderr. */
export const EXIT_MTIME_PARTIAL = 7
/** glob's mtime helper could not run at all (the shell's 126 or 127, or a signal). */
export const EXIT_MTIME_UNAVAILABLE = 125

