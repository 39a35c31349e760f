import { describe, expect, it } from 'vitest'
import { containsWord } from '../src/word-match.js'

describe('containsWord', () => {
  it.each([
    ['send a message', 'send', true],
    ['the sender', 'send', false],
    ['resend it', 'send', false],
    ['first resend, then send', 'send', true],
    ['send_message is the tool', 'send', false],
    ['open notebook.ipynb', '.ipynb', true],
    ['typescript and c++: hover', 'c++', true],
    ['abc++', 'c++', false],
    ['matches anything: .* here', '.*', true],
    ['nothing literal here', '.*', false],
    ['(issue) closed', '(issue', true],
    ['unbalanced [ bracket', '[', true],
    ['café au lait', 'café', true],
    ['décafé', 'café', false],
    ['', 'x', false],
  ])('finds %j in %j: %s', (text, term, found) => {
    expect(containsWord(text, term)).toBe(found)
  })
})
