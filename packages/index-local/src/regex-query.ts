// A pattern as a trigram query: a condition every file holding a match must meet (Russ Cox, "Regular
// Expression Matching with a Trigram Index", simplified: exact string sets, and AND/OR of trigrams).
import { foldByte, literalTrigrams } from './trigrams.js'

/**
 * A necessary condition on a file's trigrams. `all`: none (every file may match). An `and` with a
 * `phrase` is the trigrams of that one string (folded, latin1-coded), which must also line up: start
 * in the file as many bytes apart as they do in the string (docs/design.md#a-literals-trigrams-must-line-up).
 */
export type TrigramQuery =
  { op: 'all' } | { op: 'trigram'; key: number } | { op: 'and'; of: TrigramQuery[]; phrase?: string } | { op: 'or'; of: TrigramQuery[] }

/** How rg reads the pattern: the flags of its command line that change what matches. */
export interface PatternMode {
  caseInsensitive: boolean
}

const ALL: TrigramQuery = { op: 'all' }
// Past this many strings an exact set becomes its query: enough for `[abc][de]x` and small alternations.
const MAX_EXACT = 64

/**
 * What a piece of the pattern can match: `exact`, the set of byte strings (folded, latin1-coded) it
 * matches exactly when that set is small and known, else undefined and `query`, a condition on any
 * text it matches.
 */
interface Info {
  exact?: Set<string>
  query: TrigramQuery
}

/** The query a pattern reduces to; `{ op: 'all' }` when nothing narrows it (`.`, `\w+`, `ab`). */
export function patternQuery(pattern: string, mode: PatternMode): TrigramQuery {
  try {
    const info = new Parser(pattern, mode.caseInsensitive).parse()
    return simplify(asQuery(info))
  } catch {
    // A pattern this parser does not know (verbose mode, a construct it cannot size) narrows nothing.
    return ALL
  }
}

class Unreducible extends Error {}

function exactInfo(strings: Iterable<string>): Info {
  const exact = new Set(strings)
  return exact.size > MAX_EXACT ? { query: exactQuery(exact) } : { exact, query: ALL }
}

const ANY_CHAR: Info = { query: ALL }
const EMPTY: Info = { exact: new Set(['']), query: ALL }

function exactQuery(exact: Set<string>): TrigramQuery {
  const alternatives: TrigramQuery[] = []
  for (const s of exact) {
    const keys = literalTrigrams(s)
    if (keys.length === 0) return ALL
    const of: TrigramQuery[] = keys.map((key) => ({ op: 'trigram', key }))
    alternatives.push(of.length === 1 ? of[0]! : { op: 'and', of, phrase: s })
  }
  return or(alternatives)
}

function asQuery(info: Info): TrigramQuery {
  return info.exact === undefined ? info.query : exactQuery(info.exact)
}

function concat(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const x of a) for (const y of b) out.add(x + y)
  return out
}

function alternate(branches: Info[]): Info {
  if (branches.every((b) => b.exact !== undefined)) {
    const out = new Set<string>()
    for (const b of branches) for (const s of b.exact!) out.add(s)
    return exactInfo(out)
  }
  return { query: or(branches.map(asQuery)) }
}

function and(of: TrigramQuery[]): TrigramQuery {
  const kept = of.filter((q) => q.op !== 'all')
  return kept.length === 0 ? ALL : kept.length === 1 ? kept[0]! : { op: 'and', of: kept }
}

function or(of: TrigramQuery[]): TrigramQuery {
  return of.some((q) => q.op === 'all') || of.length === 0 ? ALL : of.length === 1 ? of[0]! : { op: 'or', of }
}

function simplify(query: TrigramQuery): TrigramQuery {
  // A phrase holds trigrams only: nothing in it to simplify.
  if (query.op === 'and' && query.phrase === undefined) return and(query.of.map(simplify))
  if (query.op === 'or') return or(query.of.map(simplify))
  return query
}

/** A code point as the index sees it: its UTF-8 bytes, ASCII folded, as a latin1 string. */
function utf8Folded(codePoint: number): string {
  const bytes = Buffer.from(String.fromCodePoint(codePoint), 'utf8')
  let out = ''
  for (const byte of bytes) out += String.fromCharCode(foldByte(byte))
  return out
}

// Unicode simple case folding joins these ASCII letters to characters outside ASCII (K to the Kelvin
// sign, s to the long s), so under -i they match bytes the index did not fold with them.
const FOLDS_OUTSIDE_ASCII = new Set(['k', 's', 'K', 'S'])

/** One literal character: its bytes, or any character when -i lets it match bytes the index keys apart. */
function literal(codePoint: number, caseInsensitive: boolean): Info {
  if (caseInsensitive) {
    const ch = String.fromCodePoint(codePoint)
    if (codePoint > 0x7f || FOLDS_OUTSIDE_ASCII.has(ch)) return ANY_CHAR
  }
  return { exact: new Set([utf8Folded(codePoint)]), query: ALL }
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 0x0a, t: 0x09, r: 0x0d, f: 0x0c, v: 0x0b, a: 0x07 }
// Zero-width assertions: they add no text.
const ASSERTIONS = new Set(['b', 'B', 'A', 'z', '<', '>'])
// Escapes of one character from a class (`\d`, `\w`, …).
const CLASS_ESCAPES = new Set([
  'd',
  'D',
  'w',
  'W',
  's',
  'S',
  'h',
  'H',
  'N',
  'R',
  'X',
  'C',
  'Z',
  'G',
  'K',
  'V',
  'l',
  'L',
  'u',
  'U',
  'E',
  'Q',
])
// A class of more characters than this narrows nothing worth a query.
const MAX_CLASS = 16

/** A recursive-descent reader of rg's (Rust regex) syntax, enough to size each piece. */
class Parser {
  private i = 0
  private readonly chars: number[]

  constructor(
    pattern: string,
    private caseInsensitive: boolean,
  ) {
    this.chars = [...pattern].map((c) => c.codePointAt(0)!)
  }

  parse(): Info {
    const info = this.alternation()
    if (this.i < this.chars.length) throw new Unreducible()
    return info
  }

  private peek(offset = 0): string | undefined {
    const c = this.chars[this.i + offset]
    return c === undefined ? undefined : String.fromCodePoint(c)
  }

  private alternation(): Info {
    const saved = this.caseInsensitive
    const branches = [this.sequence()]
    while (this.peek() === '|') {
      this.i++
      branches.push(this.sequence())
    }
    this.caseInsensitive = saved
    return branches.length === 1 ? branches[0]! : alternate(branches)
  }

  /**
   * A concatenation: adjacent exact pieces are multiplied into one run of exact strings, so `foo.*bar`
   * keeps `bar` whole; a piece that is not exact ends the run, and the runs and pieces are ANDed.
   */
  private sequence(): Info {
    const done: TrigramQuery[] = []
    let run = new Set([''])
    for (;;) {
      const c = this.peek()
      if (c === undefined || c === '|' || c === ')') break
      const atom = this.atom()
      if (atom === undefined) continue
      const piece = this.repeat(atom)
      if (piece.exact !== undefined && run.size * piece.exact.size <= MAX_EXACT) {
        run = concat(run, piece.exact)
        continue
      }
      done.push(exactQuery(run))
      if (piece.exact !== undefined) {
        run = piece.exact
      } else {
        done.push(piece.query)
        run = new Set([''])
      }
    }
    if (done.length === 0) return exactInfo(run)
    return { query: and([...done, exactQuery(run)]) }
  }

  private repeat(atom: Info): Info {
    let info = atom
    for (;;) {
      const c = this.peek()
      if (c === '*') {
        this.i++
        info = { query: ALL }
      } else if (c === '+') {
        this.i++
        info = { query: asQuery(info) }
      } else if (c === '?') {
        this.i++
        info = info.exact === undefined ? { query: ALL } : exactInfo([...info.exact, ''])
      } else if (c === '{' && this.repetitionAhead()) {
        const min = this.counted()
        info = min === 0 ? { query: ALL } : { query: asQuery(info) }
      } else {
        return info
      }
      // A lazy repetition (`*?`, `+?`, `{n}?`) matches the same texts.
      if (this.peek() === '?') this.i++
    }
  }

  private repetitionAhead(): boolean {
    let j = this.i + 1
    const digit = (k: number) => {
      const code = this.chars[k]
      return code !== undefined && code >= 0x30 && code <= 0x39
    }
    while (this.chars[j] === 0x20) j++
    return digit(j)
  }

  /** Reads `{n}`, `{n,}` or `{n,m}` and returns n. */
  private counted(): number {
    const close = this.chars.indexOf(0x7d, this.i)
    if (close < 0) throw new Unreducible()
    const body = String.fromCodePoint(...this.chars.slice(this.i + 1, close)).replace(/\s/g, '')
    const match = /^(\d+)(?:,(\d*))?$/.exec(body)
    if (match === null) throw new Unreducible()
    this.i = close + 1
    return Number(match[1])
  }

  /** One atom, or undefined for a flag group that only changed the flags. */
  private atom(): Info | undefined {
    const c = this.peek()!
    this.i++
    switch (c) {
      case '.':
        return ANY_CHAR
      case '^':
      case '$':
        return EMPTY
      case '(':
        return this.group()
      case '[':
        return this.characterClass()
      case '\\':
        return this.escape()
      case '*':
      case '+':
      case '?':
        // A repetition with nothing before it: rg refuses the pattern; this narrows nothing.
        throw new Unreducible()
      default:
        return literal(this.chars[this.i - 1]!, this.caseInsensitive)
    }
  }

  private group(): Info | undefined {
    if (this.peek() === '?') {
      this.i++
      const next = this.peek()
      if (next === 'P' || next === '<') {
        // A named group: skip to the end of its name.
        const close = this.chars.indexOf(0x3e, this.i)
        if (close < 0) throw new Unreducible()
        this.i = close + 1
      } else {
        let flags = ''
        for (;;) {
          const f = this.peek()
          if (f === undefined) throw new Unreducible()
          this.i++
          if (f === ')') {
            // `(?i)`: the flags hold for the rest of the enclosing group.
            this.applyFlags(flags)
            return undefined
          }
          if (f === ':') break
          flags += f
        }
        const saved = this.caseInsensitive
        this.applyFlags(flags)
        const inner = this.alternation()
        this.caseInsensitive = saved
        this.expect(')')
        return inner
      }
    }
    const saved = this.caseInsensitive
    const inner = this.alternation()
    this.caseInsensitive = saved
    this.expect(')')
    return inner
  }

  /** Applies `i`, `-i`, `im-sx`-style flags; verbose mode (`x`) changes what every space and # means, so it is not read here. */
  private applyFlags(flags: string): void {
    const [on = '', off = ''] = flags.split('-')
    if (on.includes('x')) throw new Unreducible()
    if (on.includes('i')) this.caseInsensitive = true
    if (off.includes('i')) this.caseInsensitive = false
  }

  private expect(c: string): void {
    if (this.peek() !== c) throw new Unreducible()
    this.i++
  }

  private escape(): Info {
    const c = this.peek()
    if (c === undefined) throw new Unreducible()
    this.i++
    if (c in SIMPLE_ESCAPES) return literal(SIMPLE_ESCAPES[c]!, this.caseInsensitive)
    if (ASSERTIONS.has(c)) {
      if ((c === 'b' || c === 'B') && this.peek() === '{') this.skipBraces()
      return EMPTY
    }
    if (c === 'p' || c === 'P') {
      if (this.peek() === '{') this.skipBraces()
      else this.i++
      return ANY_CHAR
    }
    if (c === 'x' || c === 'u' || c === 'U') {
      if (this.peek() === '{') this.skipBraces()
      else this.i += c === 'x' ? 2 : c === 'u' ? 4 : 8
      return ANY_CHAR
    }
    if (CLASS_ESCAPES.has(c) || /[0-9a-zA-Z]/.test(c)) return ANY_CHAR
    return literal(this.chars[this.i - 1]!, this.caseInsensitive)
  }

  private skipBraces(): void {
    const close = this.chars.indexOf(0x7d, this.i)
    if (close < 0) throw new Unreducible()
    this.i = close + 1
  }

  /** `[...]`: a small set of literal characters becomes an exact set; anything else is any character. */
  private characterClass(): Info {
    const members: number[] = []
    let simple = true
    if (this.peek() === '^') {
      simple = false
      this.i++
    }
    let first = true
    let previous: number | undefined
    let range = false
    for (;;) {
      const c = this.peek()
      if (c === undefined) throw new Unreducible()
      this.i++
      if (c === ']' && !first) break
      first = false
      let code: number
      // A nested or POSIX class: its extent is not worth reading exactly here.
      if (c === '[') throw new Unreducible()
      if (c === '\\') {
        const e = this.peek()
        if (e === undefined) throw new Unreducible()
        this.i++
        if (e in SIMPLE_ESCAPES) code = SIMPLE_ESCAPES[e]!
        else if (/[0-9a-zA-Z]/.test(e)) {
          simple = false
          if ((e === 'p' || e === 'P' || e === 'x' || e === 'u' || e === 'U') && this.peek() === '{') this.skipBraces()
          else if (e === 'p' || e === 'P') this.i++
          else if (e === 'x') this.i += 2
          else if (e === 'u') this.i += 4
          else if (e === 'U') this.i += 8
          continue
        } else code = e.codePointAt(0)!
      } else if ((c === '&' || c === '~' || c === '-') && this.peek() === c) {
        simple = false
        this.i++
        continue
      } else if (c === '-' && previous !== undefined && !range && this.peek() !== ']') {
        range = true
        continue
      } else {
        code = c.codePointAt(0)!
      }
      if (range) {
        range = false
        if (previous === undefined || code < previous || code - previous > MAX_CLASS) simple = false
        else for (let k = previous + 1; k <= code; k++) members.push(k)
        previous = undefined
        continue
      }
      members.push(code)
      previous = code
    }
    if (!simple || members.length === 0 || members.length > MAX_CLASS) return ANY_CHAR
    const strings = new Set<string>()
    for (const m of members) {
      const info = literal(m, this.caseInsensitive)
      if (info.exact === undefined) return ANY_CHAR
      for (const s of info.exact) strings.add(s)
    }
    return exactInfo(strings)
  }
}
