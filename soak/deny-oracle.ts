// The soak's oracle of what the access policy denies, written apart from @dsh/access so that a bug
// there is not repeated here. Deny rules are meant to match whatever a name's case and Unicode normal
// form (docs/design.md#the-access-policy): `**/secret*` hides `SECRET.TXT`, and an NFC rule hides an
// NFD-spelled name, in every tool.

/**
 * The deny rules every soak config carries; each file they hide holds the secret marker. Some differ
 * from the names they must hide only in case or normal form: the `sécret` rule is NFC while the tree
 * spells one such name NFD, and the `PÄSSE` rule is upper case and NFD while the tree spells `pässe.txt` NFC.
 */
export const DENY: readonly string[] = ['**/.env', '*.pem', '**/secret*', 'secrets/', '**/s\u00e9cret*', '**/PA\u0308SSE*']

const RULES = DENY.map(compileRule)

/**
 * True when the policy must hide `relative` (a '/'-separated path from a root, links not followed):
 * it or a directory above it matches a rule, compared with case and normal form folded. A rule for
 * directories (`secrets/`) hides a file of that name too, the safe side the policy takes.
 */
export function isDenied(relative: string): boolean {
  const segments = fold(relative).split('/')
  for (let length = 1; length <= segments.length; length++) {
    const prefix = segments.slice(0, length).join('/')
    if (RULES.some((rule) => rule.test(prefix))) return true
  }
  return false
}

// NFC then lower case: the fold the policy is meant to apply to both a rule and a name.
function fold(text: string): string {
  return text.normalize('NFC').toLowerCase()
}

/**
 * A gitignore-style rule as a regex over a whole path: anchored when a "/" precedes its last
 * character, else it matches at any depth. Only `*`, `?` and `**` are known here; the soak's rules use
 * nothing else, and a rule with other syntax is a soak bug.
 */
function compileRule(rule: string): RegExp {
  const body = fold(rule).replace(/\/$/, '')
  if (/[[\]{}\\!]/.test(body)) throw new Error(`deny oracle: ${JSON.stringify(rule)} uses glob syntax the oracle does not know`)
  const anchored = body.includes('/')
  const segments = (anchored ? body.replace(/^\//, '') : `**/${body}`).split('/')
  const source = segments
    .map((segment, i) => {
      const last = i === segments.length - 1
      if (segment === '**') return last ? '.+' : '(?:[^/]+/)*'
      return `${[...segment].map((char) => (char === '*' ? '[^/]*' : char === '?' ? '[^/]' : escapeRegex(char))).join('')}${last ? '' : '/'}`
    })
    .join('')
  return new RegExp(`^${source}$`, 'u')
}

function escapeRegex(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char
}
