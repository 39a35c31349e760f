// Deny rules: gitignore-style patterns judged against a path, and rewritten as rg exclusions below it.
import ignore, { type Ignore } from 'ignore'
import { hasGlobSyntax, segmentPattern } from './segments.js'

/**
 * The deny patterns of a policy. Patterns are relative to a root, as in a `.gitignore` at the root: one
 * without a "/" (other than a trailing one) matches at any depth, one with a "/" is anchored there.
 * One rule means one thing in every tool (docs/design.md#one-rule-one-meaning): letter case is
 * ignored, and a name spelled in NFC or NFD is the same name.
 */
export class DenyRules {
  readonly #patterns: readonly string[]
  readonly #matcher: Ignore

  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map((pattern) => pattern.normalize('NFC'))
    this.#matcher = ignore({ ignorecase: true }).add([...this.#patterns])
  }

  /**
   * True when a path relative to a root ('/'-separated, inside it) is denied, or lies in a denied
   * directory. It is also asked as a directory, since the caller may not know which it is: a file
   * named like a directory-only pattern is refused too, the safe side.
   */
  denies(relative: string): boolean {
    if (relative === '') return false
    const path = relative.normalize('NFC')
    return this.#matcher.ignores(path) || this.#matcher.ignores(`${path}/`)
  }

  /**
   * rg `--glob` exclusions (without the "!") for a search whose root is `relative` below a policy root:
   * unanchored patterns as they are, anchored ones rebased onto the search root, and anchored ones that
   * cannot match below it left out. rg matches an anchored glob against the path from its search root.
   * rg compares bytes, so a glob whose NFD spelling differs is given in both spellings; the caller
   * passes them as case-insensitive globs (`--iglob`).
   */
  exclusionsBelow(relative: string): string[] {
    const below = relative === '' ? [] : relative.normalize('NFC').split('/')
    return this.#patterns.flatMap((pattern) => {
      if (!isAnchored(pattern)) return bothSpellings(pattern)
      const rebased = rebase(pattern.replace(/^\//, '').split('/'), below)
      return rebased === undefined ? [] : bothSpellings(rebased)
    })
  }
}

/** A glob in NFC, and in NFD too when that is spelled otherwise, each with its non-ASCII letters folded. */
function bothSpellings(glob: string): string[] {
  const decomposed = glob.normalize('NFD')
  return (decomposed === glob ? [glob] : [glob, decomposed]).map(foldNonAscii)
}

/**
 * rg's `--iglob` folds ASCII letters only, so `PÄSSE*` would not exclude `pässe.txt`: each other
 * letter with a case becomes an alternation of both (`{ä,Ä}`). rg matches no non-ASCII letter in a
 * class, and nests no alternation, so one inside `[...]` or `{...}` stays as it is; escapes too.
 */
export function foldNonAscii(glob: string): string {
  let out = ''
  let inClass = false
  let inBraces = false
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!
    if (char === '\\' && i + 1 < glob.length) {
      out += char + glob[++i]!
      continue
    }
    if (char === '[' && !inClass) inClass = true
    else if (char === ']' && inClass) inClass = false
    else if (char === '{' && !inClass) inBraces = true
    else if (char === '}' && !inClass) inBraces = false
    const cases = inClass || inBraces ? undefined : bothCases(char)
    out += cases ?? char
  }
  return out
}

/** `{ä,Ä}` for a non-ASCII letter whose lower and upper case are each one character and differ. */
function bothCases(char: string): string | undefined {
  if (char.charCodeAt(0) < 0x80) return undefined
  const lower = char.toLowerCase()
  const upper = char.toUpperCase()
  if (lower === upper || lower.length !== 1 || upper.length !== 1) return undefined
  return `{${lower},${upper}}`
}

/** gitignore: a pattern with a "/" before its last character is anchored to the directory it is in. */
function isAnchored(pattern: string): boolean {
  return pattern.slice(0, -1).includes('/')
}

/**
 * An anchored pattern's segments, seen from `below` (the search root's segments under the policy
 * root): the pattern left after the search root, anchored there; `**` from there on, unanchored; or
 * undefined when the pattern cannot reach below the search root.
 */
function rebase(segments: readonly string[], below: readonly string[]): string | undefined {
  let j = 0
  for (const part of below) {
    const segment = segments[j]
    if (segment === '**') return ['**', ...segments.slice(j + 1)].join('/')
    // The search root is in or under the denied path itself: `denies` refuses the target first.
    if (segment === undefined || segment === '') return undefined
    const matches = hasGlobSyntax(segment) ? segmentPattern(segment).test(part) : segment.toLowerCase() === part.toLowerCase()
    if (!matches) return undefined
    j += 1
  }
  const rest = segments.slice(j)
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return undefined
  return rest[0] === '**' ? rest.join('/') : `/${rest.join('/')}`
}
