// Whole-word matching of a term taken literally: a model's query is never compiled as a regular expression.

const WORD_CHAR = /^[\p{L}\p{N}_]$/u

/**
 * Whether `term` occurs in `text` as a word: an edge of the term that is a word character must not
 * touch another word character, so `send` matches "send a message" but not "sender", and `.ipynb`
 * matches "notebook.ipynb". Both are compared as given; callers lower-case them.
 */
export function containsWord(text: string, term: string): boolean {
  const guardStart = isWordChar(term.at(0))
  const guardEnd = isWordChar(term.at(-1))
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    const clearBefore = !guardStart || !isWordChar(text[at - 1])
    const clearAfter = !guardEnd || !isWordChar(text[at + term.length])
    if (clearBefore && clearAfter) return true
  }
  return false
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char)
}
