// The kernel's virtual trees: inside a root only when a root is itself one of them.

// /proc/<pid>/environ holds the harness's own secrets, and a regex tried against it one guess at a
// time leaks them; /sys and /dev hold devices a read could block on. A root of "/" must not reach them.
const SPECIAL_TREES = ['/proc', '/sys', '/dev']

/** The special tree a path lies in (or is), if any. */
export function specialTree(path: string): string | undefined {
  return SPECIAL_TREES.find((tree) => path === tree || path.startsWith(`${tree}/`))
}
