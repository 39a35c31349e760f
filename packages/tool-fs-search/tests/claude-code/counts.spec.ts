import { describe, expect, it } from 'vitest'
import { CountParser } from '../../src/claude-code/counts.js'

const parser = (...chunks: (string | Buffer)[]) => {
  const counts = new CountParser()
  for (const chunk of chunks) counts.push(Buffer.from(chunk))
  return counts
}

describe('CountParser', () => {
  it('reads path NUL count per line, a name with a newline whole, across chunks', () => {
    expect(parser('a.ts\u00003\nnew\nli', 'ne\u000012\n').finish()).toEqual([
      { path: 'a.ts', count: 3, replaced: false },
      { path: 'new\nline', count: 12, replaced: false },
    ])
  })

  it('marks a path whose bytes are not UTF-8', () => {
    expect(parser(Buffer.from([0x62, 0xff, 0, 0x31, 0x0a]), 'c\u00001\n').finish()).toEqual([
      { path: 'b\ufffd', count: 1, replaced: true },
      { path: 'c', count: 1, replaced: false },
    ])
  })

  it.each(['a.ts 3\n', 'a.ts\u0000\n', 'a.ts\u00003x\n'])('refuses %j as SEARCH_FAILED', (output) => {
    expect(() => parser(output).finish()).toThrow(expect.objectContaining({ code: 'SEARCH_FAILED' }))
  })

  it('drops the record a stopped run left unfinished, and refuses a broken one before it', () => {
    expect(parser('a\u00001\nb\u00002').finishStopped()).toEqual([{ path: 'a', count: 1, replaced: false }])
    expect(parser('a\u00001\nb\u0000').finishStopped()).toEqual([{ path: 'a', count: 1, replaced: false }])
    expect(parser('a\u00001\nb').finishStopped()).toEqual([{ path: 'a', count: 1, replaced: false }])
    expect(() => parser('a\u0000x\nb\u00002\n').finishStopped()).toThrow(expect.objectContaining({ code: 'SEARCH_FAILED' }))
  })

  it('keeps its own copy of each chunk', () => {
    const chunk = Buffer.from('a\u00001\n')
    const counts = new CountParser()
    counts.push(chunk)
    chunk.fill(0x7a)
    expect(counts.finish()).toEqual([{ path: 'a', count: 1, replaced: false }])
  })
})
