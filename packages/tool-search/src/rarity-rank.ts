// `scoring: "rarity"`: BM25F over name words, hint and description, rare words weighing most (docs/design.md#tool-search-ranks-by-rarity).
import {
  orderCandidates,
  roundScore,
  type Candidate,
  type FieldMatch,
  type Keywords,
  type ScoredTool,
  type SearchableTool,
  type TermEvidence,
  type ToolRanker,
} from './rank.js'
import { compactTerm, parseToolName } from './tool-name.js'
import { STOP_WORDS, stem, tokenize } from './tokens.js'
import { containsWord } from './word-match.js'

/**
 * The scorer's constants. k1 and b are BM25's usual values (Robertson and Zaragoza, "The Probabilistic
 * Relevance Framework: BM25 and Beyond"), not fitted to any test set. A name word counts as three
 * description words and a hint word as two, as the seed's table orders those fields; a stem or a match
 * inside a name part counts half an exact word, so `files` never ties `file`.
 */
export const RARITY_WEIGHTS = {
  k1: 1.2,
  b: 0.75,
  name: 3,
  hint: 2,
  description: 1,
  stem: 0.5,
  part: 0.5,
  /** The fewest characters a term needs to match inside a name part: `to` is inside too many. */
  partMinChars: 3,
} as const

/** The fields in index order: a field is its position, 0 to 2, in every per-field array below. */
const FIELDS = ['name', 'hint', 'description'] as const
const NAME = 0

/** One word's occurrences in one field of one tool. */
interface Posting {
  tool: number
  field: number
  word: string
  count: number
}

/** One tool's words, per field, as looked up for a single term. */
interface ToolWords {
  words: Map<string, number>[]
  stems: Map<string, number>[]
  nameWords: { word: string; stem: string; count: number }[]
  /** The lower-case name without separators (`mcpgithubcreateissue`). */
  compact: string
}

interface RarityIndex {
  tools: readonly SearchableTool[]
  forward: ToolWords[]
  /** Lower-case name, hint and description of each tool, for a required term that has no word in it. */
  literal: string[][]
  /** Per tool and field (`tool * 3 + field`): the field's weight over its BM25 length normalization. */
  fieldScale: Float64Array
  byWord: Map<string, Posting[]>
  byStem: Map<string, Posting[]>
  /** Every word of a tool name with its stem, for a term that matches inside one (`note` in `notebook`). */
  nameWords: { word: string; stem: string; postings: Posting[] }[]
  /** Every compact name, each followed by a line feed, and where each starts: one string to search. */
  compactNames: { text: string; starts: number[] }
  /** Tools by lower-case name: `A` and `a` are two tools that one term names. */
  byName: Map<string, number[]>
  /** Work arrays one ranking reuses (ranking is synchronous), so a call allocates per match, not per tool. */
  scratch: { counts: Float64Array; seen: Uint32Array; scores: Float64Array; pass: number }
}

/** The rarity scorer over a set of tools: every field tokenized and indexed once. */
export function createRarityRanker(tools: readonly SearchableTool[]): ToolRanker {
  const index = buildIndex(tools)
  return { rank: (keywords, maxResults) => rankByRarity(index, keywords, maxResults) }
}

function buildIndex(tools: readonly SearchableTool[]): RarityIndex {
  // Catalogs repeat their words; each is stemmed once.
  const stems = new Map<string, string>()
  const stemOf = (word: string) => {
    let base = stems.get(word)
    if (base === undefined) stems.set(word, (base = stem(word)))
    return base
  }
  const byWord = new Map<string, Posting[]>()
  const byStem = new Map<string, Posting[]>()
  const nameWords = new Map<string, Posting[]>()
  const lengths: number[][] = []
  const forward = tools.map((tool, at): ToolWords => {
    const fields = [parseToolName(tool.name).parts.flatMap(tokenize), tokenize(tool.searchHint ?? ''), tokenize(tool.description)]
    lengths.push(fields.map((words) => words.length))
    const words = fields.map(countWords)
    words.forEach((counts, field) => {
      for (const [word, count] of counts) {
        const posting = { tool: at, field, word, count }
        append(byWord, word, posting)
        append(byStem, stemOf(word), posting)
        if (field === NAME) append(nameWords, word, posting)
      }
    })
    return {
      words,
      stems: words.map((counts) => {
        const byBase = new Map<string, number>()
        for (const [word, count] of counts) byBase.set(stemOf(word), (byBase.get(stemOf(word)) ?? 0) + count)
        return byBase
      }),
      nameWords: [...words[NAME]!].map(([word, count]) => ({ word, stem: stemOf(word), count })),
      compact: compactTerm(tool.name),
    }
  })
  const { b } = RARITY_WEIGHTS
  const average = FIELDS.map((_, field) => Math.max(1, lengths.reduce((sum, tool) => sum + tool[field]!, 0) / Math.max(1, tools.length)))
  const fieldScale = new Float64Array(tools.length * FIELDS.length)
  lengths.forEach((tool, at) =>
    FIELDS.forEach((field, f) => (fieldScale[at * FIELDS.length + f] = RARITY_WEIGHTS[field] / (1 - b + (b * tool[f]!) / average[f]!))),
  )
  return {
    tools,
    forward,
    literal: tools.map((tool) => [tool.name.toLowerCase(), tool.searchHint?.toLowerCase() ?? '', tool.description.toLowerCase()]),
    fieldScale,
    byWord,
    byStem,
    nameWords: [...nameWords].map(([word, postings]) => ({ word, stem: stemOf(word), postings })),
    compactNames: joinCompactNames(forward),
    byName: tools.reduce((map, tool, at) => append(map, tool.name.toLowerCase(), at), new Map<string, number[]>()),
    scratch: {
      counts: new Float64Array(tools.length * FIELDS.length),
      seen: new Uint32Array(tools.length),
      scores: new Float64Array(tools.length),
      pass: 0,
    },
  }
}

function joinCompactNames(forward: readonly ToolWords[]): { text: string; starts: number[] } {
  const starts: number[] = []
  let length = 0
  for (const words of forward) {
    starts.push(length)
    length += words.compact.length + 1
  }
  return { text: forward.map((words) => `${words.compact}\n`).join(''), starts }
}

function countWords(words: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
  return counts
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): Map<K, V[]> {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
  return map
}

/**
 * The query's scoring terms: each word split as a tool name is (`send_message`, `createIssue`), then as
 * text, so punctuation at its edges goes; stop words dropped; each term once.
 */
export function queryTerms(words: readonly string[]): string[] {
  const terms = words.flatMap(termWords).filter((term) => !STOP_WORDS.has(term))
  return [...new Set(terms)]
}

function termWords(word: string): string[] {
  return parseToolName(word).parts.flatMap(tokenize)
}

/** Whether a term may match inside a longer name word, or inside a whole name. */
function matchesInside(term: string): boolean {
  return [...term].length >= RARITY_WEIGHTS.partMinChars
}

/**
 * Whether a term is looked for in the names with their separators removed: one that is no word of any
 * tool may be several run together (`createissue`, the query being lower case by then).
 */
function matchesCompact(index: RarityIndex, term: string): boolean {
  return matchesInside(term) && !index.byWord.has(term)
}

function rankByRarity(index: RarityIndex, keywords: Keywords, maxResults: number): ScoredTool[] {
  const terms = queryTerms(keywords.terms).map((term) => ({ term, idf: 0 }))
  const { scores } = index.scratch
  const scored: number[] = []
  for (const entry of terms) {
    const reached = accumulate(index, entry.term)
    entry.idf = Math.log(1 + (index.tools.length - reached.length + 0.5) / (reached.length + 0.5))
    for (const tool of reached) {
      if (scores[tool] === 0) scored.push(tool)
      scores[tool]! += entry.idf * saturate(index, tool, index.scratch.counts)
    }
  }
  const named = new Set(keywords.terms.flatMap((term) => index.byName.get(term) ?? []))
  const candidates: (Candidate & { tool: number })[] = []
  for (const tool of new Set([...named, ...scored])) {
    if (!keywords.required.every((term) => requiredMatches(index, tool, term))) continue
    candidates.push({ tool, name: index.tools[tool]!.name, score: roundScore(scores[tool]!), named: named.has(tool) })
  }
  for (const tool of scored) scores[tool] = 0
  // Which terms earned a score is worked out for the tools returned only.
  return orderCandidates(candidates, maxResults).map(({ tool, name, score }) => ({
    name,
    score,
    terms: terms.flatMap(({ term, idf }): TermEvidence[] => {
      const hit = termHit(index, tool, term)
      if (hit === undefined) return []
      return [{ term, points: roundScore(idf * saturate(index, tool, hit.counts, 0)), fields: hit.fields }]
    }),
  }))
}

/**
 * Every tool a term reaches, its weighted counts left in `scratch.counts`: the exact word, a word
 * sharing its stem, a name word containing it, a name containing it once separators are gone. Must
 * agree with `termHit`, which scores one tool the same way for `--explain` and `+term`.
 */
function accumulate(index: RarityIndex, term: string): number[] {
  const { counts, seen } = index.scratch
  const pass = ++index.scratch.pass
  const reached: number[] = []
  const add = (tool: number, field: number, count: number) => {
    if (seen[tool] !== pass) {
      seen[tool] = pass
      counts.fill(0, tool * FIELDS.length, (tool + 1) * FIELDS.length)
      reached.push(tool)
    }
    counts[tool * FIELDS.length + field]! += count
  }
  for (const posting of index.byWord.get(term) ?? []) add(posting.tool, posting.field, posting.count)
  const termStem = stem(term)
  for (const posting of index.byStem.get(termStem) ?? []) {
    if (posting.word !== term) add(posting.tool, posting.field, RARITY_WEIGHTS.stem * posting.count)
  }
  if (matchesInside(term)) {
    for (const { word, stem: wordStem, postings } of index.nameWords) {
      if (word === term || wordStem === termStem || !word.includes(term)) continue
      for (const posting of postings) add(posting.tool, NAME, RARITY_WEIGHTS.part * posting.count)
    }
  }
  if (matchesCompact(index, term)) {
    for (const tool of compactMatches(index, term)) {
      const nameCount = seen[tool] === pass ? counts[tool * FIELDS.length]! : 0
      if (nameCount === 0) add(tool, NAME, RARITY_WEIGHTS.part)
    }
  }
  return reached
}

/** The tools whose compact name contains the term, found in one string of them all rather than tool by tool. */
function compactMatches(index: RarityIndex, term: string): Set<number> {
  const { text, starts } = index.compactNames
  const tools = new Set<number>()
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    // The match is in the last name starting at or before it: a term is words, never a line feed, so it
    // cannot run from one name into the next.
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (starts[middle]! <= at) low = middle
      else high = middle - 1
    }
    tools.add(low)
  }
  return tools
}

/** How one term reaches one tool, field by field, with the closest kind of match in each; as `accumulate` counts it. */
function termHit(index: RarityIndex, tool: number, term: string): { counts: number[]; fields: FieldMatch[] } | undefined {
  const words = index.forward[tool]!
  const termStem = stem(term)
  const counts = [0, 0, 0]
  const kinds: (FieldMatch['match'] | undefined)[] = [undefined, undefined, undefined]
  for (let field = 0; field < FIELDS.length; field++) {
    const exact = words.words[field]!.get(term) ?? 0
    const stemOnly = (words.stems[field]!.get(termStem) ?? 0) - exact
    counts[field] = exact + RARITY_WEIGHTS.stem * stemOnly
    if (exact > 0) kinds[field] = 'exact'
    else if (stemOnly > 0) kinds[field] = 'stem'
  }
  if (matchesInside(term)) {
    for (const { word, stem: wordStem, count } of words.nameWords) {
      if (word === term || wordStem === termStem || !word.includes(term)) continue
      counts[NAME]! += RARITY_WEIGHTS.part * count
      kinds[NAME] ??= 'part'
    }
  }
  if (matchesCompact(index, term) && counts[NAME] === 0 && words.compact.includes(term)) {
    counts[NAME] = RARITY_WEIGHTS.part
    kinds[NAME] = 'part'
  }
  const fields = FIELDS.flatMap((field, at) => (kinds[at] === undefined ? [] : [{ field, match: kinds[at] }]))
  return fields.length === 0 ? undefined : { counts, fields }
}

/** BM25F: each field's count weighted and normalized by the field's length, summed, then saturated once. */
function saturate(index: RarityIndex, tool: number, counts: ArrayLike<number>, offset = tool * FIELDS.length): number {
  const { k1 } = RARITY_WEIGHTS
  const scale = index.fieldScale
  const at = tool * FIELDS.length
  const weighted = scale[at]! * counts[offset]! + scale[at + 1]! * counts[offset + 1]! + scale[at + 2]! * counts[offset + 2]!
  return (weighted * (k1 + 1)) / (weighted + k1)
}

/**
 * A `+term` matches a tool when each of its words reaches the tool, stop words included since the
 * user asked for them; a term with no word in it (`+c++` has one, `+**` none) is found literally.
 */
function requiredMatches(index: RarityIndex, tool: number, term: string): boolean {
  const words = termWords(term)
  if (words.length > 0) return words.every((word) => termHit(index, tool, word) !== undefined)
  return index.literal[tool]!.some((text) => containsWord(text, term))
}
