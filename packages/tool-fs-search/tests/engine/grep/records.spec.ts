import { describe, expect, it } from 'vitest'
import {
  CUT,
  ESCAPED,
  flagsOf,
  lineNumberOf,
  markOf,
  ODD_NUMBER,
  RecordTable,
  textEnd,
  writeRecord,
} from '../../../src/engine/grep/records.js'

describe('RecordTable', () => {
  it('starts a run at a record, for the path rg printed before it', () => {
    const table = new RecordTable()
    table.startRun('a', 0, false)
    table.startRun('a', 9, true)
    expect(table.runs).toEqual([
      { path: 'a', start: 0, count: 0, inLineOrder: true, lossyLines: 0, pathReplaced: false, contextLines: 0 },
      { path: 'a', start: 9, count: 0, inLineOrder: true, lossyLines: 0, pathReplaced: true, contextLines: 0 },
    ])
  })
})

describe('compacted records', () => {
  /** rg's `path NUL 12:hello`, `p NUL 007:`, `e NUL 3:<ESC>` from offset 20, compacted to the front. */
  function compacted(): { bytes: Buffer; table: RecordTable; records: number[] } {
    const bytes = Buffer.alloc(80)
    bytes.write('path\u000012:hello p\u0000007: e\u00003:\u001b', 20, 'latin1')
    const table = new RecordTable()
    const records = [0]
    let end = writeRecord(bytes, 0, 25, 27, CUT, 28, 33)
    records.push(end)
    end = writeRecord(bytes, end, 36, 39, ODD_NUMBER, 40, 40)
    records.push(end)
    table.end = writeRecord(bytes, end, 43, 44, ESCAPED, 45, 46)
    return { bytes, table, records }
  }

  it('are written end to end: a NUL, the digits, a mark with the flags, the line (none when escaped)', () => {
    const { bytes, table } = compacted()
    expect([...bytes.subarray(0, table.end)]).toEqual([
      0,
      0x31,
      0x32,
      0xe1,
      ...Buffer.from('hello'),
      0,
      0x30,
      0x30,
      0x37,
      0xe4,
      0,
      0x33,
      0xe2,
    ])
  })

  it('read back their number, flags, and where their line starts and ends', () => {
    const { bytes, table, records } = compacted()
    expect(records.map((record) => lineNumberOf(bytes, record))).toEqual([12, 7, 3])
    expect(records.map((record) => flagsOf(bytes, record))).toEqual([CUT, ODD_NUMBER, ESCAPED])
    expect(records.map((record) => textEnd(bytes, table, markOf(bytes, record) + 1))).toEqual([9, 14, 17])
  })

  it('copies a long line in one move', () => {
    const bytes = Buffer.alloc(400)
    bytes.write(`x\u00001:${'y'.repeat(200)}`, 100, 'latin1')
    const end = writeRecord(bytes, 0, 102, 103, 0, 104, 304)
    expect(bytes.toString('latin1', 3, end)).toBe('y'.repeat(200))
  })
})
