import { describe, expect, it } from 'vitest'
import type { ToolResult } from '@dsh/core'
import { EXIT } from '../src/cli-io.js'
import { resultStatus } from '../src/exit-status.js'

const success = (value: unknown): ToolResult => ({ isError: false, content: 'page', value })

describe('resultStatus', () => {
  it('is 2 for a failure, whatever it carries', () => {
    expect(resultStatus({ isError: true, content: 'no', errorCode: 'SEARCH_FAILED' })).toBe(EXIT.error)
  })

  it.each([
    ['a search that found something', { total: 3, incomplete: [] }, EXIT.ok],
    ['a partial search that found something', { total: 1, incomplete: ['stopped after 1 s'] }, EXIT.ok],
    ['a complete search that found nothing', { total: 0, incomplete: [] }, EXIT.nothingFound],
    ['a search that found nothing and names no gaps', { total: 0 }, EXIT.nothingFound],
    ['a search that found nothing but did not read everything', { total: 0, incomplete: ['src/secret: Permission denied'] }, EXIT.error],
    ['a value with no count (a read page)', { path: '/a', lines: 0 }, EXIT.ok],
    ['a count that is not a number', { total: '0' }, EXIT.ok],
    ['no value', undefined, EXIT.ok],
    ['a null value', null, EXIT.ok],
    ['a value that is not an object', 0, EXIT.ok],
  ])('%s: %j is %i', (_what, value, status) => {
    expect(resultStatus(success(value))).toBe(status)
  })
})
