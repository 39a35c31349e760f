import { describe, expect, it } from 'vitest'
import { STOP_WORDS, stem, tokenize } from '../src/tokens.js'

describe('tokenize', () => {
  it.each([
    ['Is this a bin? field.', ['is', 'this', 'a', 'bin', 'field']],
    ['read_multiple_files (C++, node.js)', ['read', 'multiple', 'files', 'c', 'node', 'js']],
    ['Café naïve ÜBER', ['café', 'naïve', 'über']],
    ['向频道发送消息', ['向频', '频道', '道发', '发送', '送消', '消息']],
    ['使用slack发送', ['使用', 'slack', '发送']],
    ['日本語の文章', ['日本', '本語', '語の', 'の文', '文章']],
    ['ส่งข้อความ', ['ส่', '่ง', 'งข', 'ข้', '้อ', 'อค', 'คว', 'วา', 'าม']],
    ['一', ['一']],
    ['... --- !!!', []],
  ])('reads %j as %j', (text, words) => {
    expect(tokenize(text)).toEqual(words)
  })
})

describe('stem', () => {
  it.each([
    ['directories', 'directory'],
    ['directory', 'directory'],
    ['files', 'fil'],
    ['file', 'fil'],
    ['reading', 'read'],
    ['created', 'creat'],
    ['creates', 'creat'],
    ['running', 'run'],
    ['boxes', 'box'],
    ['classes', 'class'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['process', 'process'],
    ['uses', 'use'],
    ['sing', 'sing'],
    ['get', 'get'],
    ['发送', '发送'],
    ['mp3s', 'mp3s'],
  ])('stems %s as %s', (word, base) => {
    expect(stem(word)).toBe(base)
  })
})

describe('STOP_WORDS', () => {
  it('holds the short words that matched inside name parts, and no word a tool is named for', () => {
    for (const word of ['a', 'in', 'to', 'the', 'of']) expect(STOP_WORDS.has(word)).toBe(true)
    for (const word of ['get', 'read', 'send', 'list', 'find', 'search']) expect(STOP_WORDS.has(word)).toBe(false)
  })
})
