import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MessageShapeScanner, SHAPELESS, shapeOfValue, type MessageShape } from '../src/message-shape.js'

/** The shape the scanner reads from `text`, fed in chunks of `size` bytes. */
function scanned(text: string, size = Infinity): MessageShape {
  const bytes = Buffer.from(text)
  const scanner = new MessageShapeScanner()
  for (let start = 0; start < bytes.length; start += size) scanner.scan(bytes, start, Math.min(bytes.length, start + size))
  return scanner.shape()
}

describe('shapeOfValue', () => {
  it.each([
    ['a request', { jsonrpc: '2.0', id: 3, method: 'ping' }, { id: 3, method: true, answer: false }],
    ['a notification', { method: 'notifications/initialized' }, { id: undefined, method: true, answer: false }],
    ['an answer', { id: 'a', result: {} }, { id: 'a', method: false, answer: true }],
    ['an error answer', { id: 0, error: 5 }, { id: 0, method: false, answer: true }],
    ['an id that is no request id', { id: 1.5, method: 'x' }, { id: null, method: true, answer: false }],
    ['a null id', { id: null }, { id: null, method: false, answer: false }],
  ])('tells %s by its top-level members', (_, value, shape) => {
    expect(shapeOfValue(value)).toEqual(shape)
  })

  it.each([[null], [7], ['text'], [[{ id: 1, method: 'x' }]]])('finds no shape in %j, which is no object', (value) => {
    expect(shapeOfValue(value)).toBe(SHAPELESS)
  })
})

describe('MessageShapeScanner', () => {
  it('reads the top-level id, wherever it is, and not one nested in the params', () => {
    expect(scanned('{"method":"tools/call","params":{"id":"inner","arguments":{"id":7}},"jsonrpc":"2.0","id":42}')).toEqual({
      id: 42,
      method: true,
      answer: false,
    })
    expect(scanned('{"method":"tools/call","params":{"id":"inner"}}')).toEqual({ id: undefined, method: true, answer: false })
  })

  it('follows strings: braces, commas, colons and escaped quotes inside them are text', () => {
    const text = '{ "method" : "a\\"}{,:\\\\" , "params" : ["}", {"x":"\\"id\\":1"}] , "id" : "ok\\"\\u00e9" }'
    expect(JSON.parse(text)).toMatchObject({ id: 'ok"é' })
    expect(scanned(text)).toEqual({ id: 'ok"é', method: true, answer: false })
  })

  it('reads a key written with escapes as JSON.parse does, and keeps the last of two ids', () => {
    expect(scanned('{"\\u0069d":5,"result":{}}')).toEqual({ id: 5, method: false, answer: true })
    expect(scanned('{"id":1,"error":{},"id":2}')).toEqual({ id: 2, method: false, answer: true })
  })

  it('counts an id it cannot use as null: too long, an object, not JSON, not an integer', () => {
    for (const id of [`"${'x'.repeat(300)}"`, '{"a":1}', 'nope', '1.5', '1e400']) {
      expect(scanned(`{"method":"x","id":${id}}`), id).toEqual({ id: null, method: true, answer: false })
    }
  })

  it('reads a message cut off after its id, as an oversized line may be', () => {
    expect(scanned('{"method":"x","id":5')).toEqual({ id: 5, method: true, answer: false })
    expect(scanned('{"method":"x","id":"abc')).toEqual({ id: null, method: true, answer: false })
  })

  it('finds nothing in what is no object, and stops at the end of the object', () => {
    for (const text of ['', '   ', '[{"id":1,"method":"x"}]', '"id"', '42']) expect(scanned(text), text).toBe(SHAPELESS)
    expect(scanned(' \t{"id":1}  {"id":2,"method":"x"}')).toEqual({ id: 1, method: false, answer: false })
  })

  it('ignores a top-level key too long to be one it reads, or that is no JSON string', () => {
    expect(scanned('{"identifier":1,"methods":"x"}')).toEqual({ id: undefined, method: false, answer: false })
    expect(scanned('{"i\\qd":1,"method":"x"}')).toEqual({ id: undefined, method: true, answer: false })
  })

  it('reads any message as shapeOfValue reads it parsed, in chunks of any size (fast-check)', () => {
    const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.double(), fc.constant(null), fc.boolean())
    const member = fc.oneof(fc.constantFrom('id', 'method', 'result', 'error', 'params', 'jsonrpc'), fc.string({ maxLength: 12 }))
    const message = fc.dictionary(member, fc.oneof(id, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 6 })
    fc.assert(
      fc.property(message, fc.option(id, { nil: undefined }), fc.integer({ min: 1, max: 64 }), (members, topId, size) => {
        const value = topId === undefined ? members : { ...members, id: topId }
        const text = JSON.stringify(value)
        expect(scanned(text, size)).toEqual(shapeOfValue(JSON.parse(text)))
      }),
    )
  })
})
