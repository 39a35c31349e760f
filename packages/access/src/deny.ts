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

/** A glob in NFC, and in NFD too when that is spelled otherwise. */
function bothSpellings(glob: string): string[] {
  const decomposed = glob.normalize('NFD')
  return decomposed === glob ? [glob] : [glob, decomposed]
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
