/** The text `dsh --help` prints. */
export const USAGE = `dsh — workspace search for AI agents: ripgrep-backed glob and grep, bounded and honest.

Usage:
  dsh grep PATTERN [PATH] [--include GLOB]   search file contents (prints the model-facing text)
  dsh glob PATTERN [PATH]                    find files by name, newest first
  dsh tools                                  list tools, their JSON schemas and prompt sections
  dsh --help | --version

Options:
  --cwd DIR          the session's working directory (default: the current directory)
  --config FILE      JSON config keyed by plugin name, e.g. {"tool-fs-search": {"grepMaxMatches": 10}}
  --spill-dir DIR    where capped results are saved in full (spill-local's root)
  --session ID       the session id that owns spilled results (default: cli)
  --format text|json text prints the model-facing text; json prints {isError, content, meta, view}

A PATTERN that starts with "-" goes after "--": dsh grep -- -foo
Exit status: 0 success (no matches is success), 1 the tool returned an error, 2 usage error.
`
