// Matching one path segment against one segment of a gitignore-style glob.

/** A regex for one glob segment, case-insensitive as deny rules are: `*` and `?` stay within the segment, `[...]` is a class, `\x` is literal. */
export function segmentPattern(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else if (char === '\\' && i + 1 < glob.length) source += escape(glob[++i]!)
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end === -1) {
        source += '\\['
        continue
      }
      const body = glob.slice(i + 1, end)
      source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`
      i = end
    } else source += escape(char)
  }
  try {
    return new RegExp(`^${source}$`, 'i')
  } catch {
    // A class rg would reject too (`[z-a]`): compared as text, it matches only itself.
    return new RegExp(`^${[...glob].map(escape).join('')}$`, 'i')
  }
}

/** True when the segment holds glob syntax, so it cannot be compared as text. */
export function hasGlobSyntax(segment: string): boolean {
  return /[*?[\\]/.test(segment)
}

function escape(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char
}
