// Text as the rarity scorer reads it: lower-case words, unspaced scripts as character pairs, a light stem per word.

/**
 * Scripts written without spaces between words. A run of them is no word a query could repeat whole,
 * so it is read as overlapping character pairs: 发送消息 is 发送, 送消, 消息, and 发送 finds it.
 */
const UNSPACED = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}`

/** A run of an unspaced script, or a run of other letters, digits and marks: punctuation separates words. */
const WORD_RUN = new RegExp(`[${UNSPACED}]+|(?:(?![${UNSPACED}])[\\p{L}\\p{N}\\p{M}])+`, 'gu')
const UNSPACED_CHAR = new RegExp(`^[${UNSPACED}]`, 'u')

/**
 * The words of a text: lower case, split at anything but a letter, digit or mark, so `bin?` is `bin`
 * and `field.` is `field`; a run of an unspaced script becomes its character pairs.
 */
export function tokenize(text: string): string[] {
  const words: string[] = []
  for (const [run] of text.toLowerCase().matchAll(WORD_RUN)) {
    if (!UNSPACED_CHAR.test(run)) words.push(run)
    else words.push(...characterPairs(run))
  }
  return words
}

function characterPairs(run: string): string[] {
  const chars = [...run]
  if (chars.length === 1) return chars
  return chars.slice(1).map((char, at) => chars[at]! + char)
}

/**
 * English function words, dropped from queries: matched inside name parts they earned the seed's
 * scorer 5–14 points (`a` in `address`, `in` in `info`), and their rarity weight is near zero anyway.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor of to in into on onto at by for from with without about as is are was were be been being ' +
    'am do does did doing have has had having i me my we our us you your he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any each every some such no not ' +
    'can could should would will shall may might must let please want need like just also than then so if else via ' +
    'up out over under again more most other only own same too very'
  ).split(' '),
)

/**
 * A light English stem: plural and verb endings removed so `directories` meets `directory` and
 * `reading` meets `read`. Both sides go through it, so it needs to be consistent, not correct.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word
  let base = word
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`
  else if (/(?:ss|sh|ch|x|z)es$/.test(base)) base = base.slice(0, -2)
  else if (base.endsWith('s') && !/(?:ss|us|is)$/.test(base)) base = base.slice(0, -1)
  const verb = /^(.{3,}?)(?:ing|ed)$/.exec(base)
  if (verb !== null && /[aeiouy]/.test(verb[1]!)) base = verb[1]!.replace(/([b-df-hj-kmnp-rtv-xz])\1$/, '$1')
  return base.length > 3 && base.endsWith('e') ? base.slice(0, -1) : base
}
