// rg's names stamped with the index's times read as find's records do: the same parse, signs, carries and gaps.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FileTime } from '@dsh/core'
import { GlobListingParser } from '../../../src/engine/glob/listing.js'
import { TimeStamper, type TimeOf } from '../../../src/engine/glob/stamps.js'
import { scratchDir } from '../../../../../test-support/temp-tree.js'

/** A time source from a table of names: 'recorded' for those given, a string: why it cannot be read. */
function table(times: Record<string, FileTime | string>, answer: 'recorded' | 'read' = 'recorded'): TimeOf {
  return (name, start, end, out) => {
    const time = times[Buffer.from(name.subarray(start, end)).toString('latin1')]!
    if (typeof time === 'string') return { unreadable: time }
    Object.assign(out, time)
    return answer
  }
}

function stamped(timeOf: TimeOf, chunks: Uint8Array[], finish = true): { text: string; stamper: TimeStamper } {
  const out: Buffer[] = []
  const stamper = new TimeStamper(timeOf, (chunk) => out.push(Buffer.from(chunk)))
  for (const chunk of chunks) stamper.push(chunk)
  if (finish) stamper.finish()
  return { text: Buffer.concat(out).toString('latin1'), stamper }
}

describe('the time stamper', () => {
  it('writes each name as find prints %T@: whole seconds rounded down, then nine digits, before 1970 too', () => {
    const { text, stamper } = stamped(
      table({
        a: { seconds: 1_796_409_598, nanos: 524_689_871 },
        b: { seconds: 0, nanos: 5 },
        // 1.25 s before the epoch: find prints the whole seconds rounded down and the nanoseconds after them.
        old: { seconds: -2, nanos: 750_000_000 },
      }),
      [Buffer.from('a\0b\0old\0', 'latin1')],
    )
    expect(text).toBe('1796409598.524689871\ta\x000.000000005\tb\x00-2.750000000\told\x00')
    expect([stamper.recorded, stamper.read]).toEqual([3, 0])
  })

  it('parses into the same times as the records find prints for the same files', () => {
    const dir = scratchDir('glob-stamps')
    mkdirSync(dir, { recursive: true })
    const names = ['now.ts', 'old.ts', 'older.ts', 'far.ts']
    for (const name of names) writeFileSync(join(dir, name), name)
    execFileSync('touch', ['-d', '1969-12-31 23:59:58.75 UTC', join(dir, 'old.ts')])
    execFileSync('touch', ['-d', '1901-01-01 00:00:00.5 UTC', join(dir, 'older.ts')])
    execFileSync('touch', ['-d', '2400-06-01 12:00:00.123456789 UTC', join(dir, 'far.ts')])
    const found = execFileSync('find', ['-files0-from', '-', '-maxdepth', '0', '-printf', '%T@\\t%p\\0'], {
      cwd: dir,
      input: `${names.join('\0')}\0`,
    })
    const timeOf: TimeOf = (name, start, end, out) => {
      const ns = BigInt(
        execFileSync('stat', ['-c', '%.9Y', Buffer.from(name.subarray(start, end)).toString()], { cwd: dir, encoding: 'utf8' })
          .trim()
          .replace('.', ''),
      )
      const nanos = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n
      out.seconds = Number((ns - nanos) / 1_000_000_000n)
      out.nanos = Number(nanos)
      return 'read'
    }
    const { text } = stamped(timeOf, [Buffer.from(`${names.join('\0')}\0`)])
    const parse = (bytes: Buffer) => {
      const parser = new GlobListingParser(1 << 20)
      parser.push(bytes)
      const listing = parser.finish()
      return names.map((_, i) => [listing.seconds[i], listing.nanos[i]])
    }
    expect(parse(Buffer.from(text, 'latin1'))).toEqual(parse(found))
  })

  it('writes the digits of a time past 2^53 seconds as the parser reads them back', () => {
    const seconds = 2 ** 60
    const { text } = stamped(table({ x: { seconds, nanos: 0 } }), [Buffer.from('x\0')])
    expect(text).toBe(`${BigInt(seconds)}.000000000\tx\0`)
    const parser = new GlobListingParser(1 << 20)
    parser.push(Buffer.from(text, 'latin1'))
    expect(parser.finish().seconds[0]).toBe(seconds)
  })

  it('carries a name split across chunks, keeps raw bytes, and takes a last name without its NUL', () => {
    const raw = Buffer.from([0x61, 0xff, 0x2f, 0x62])
    const timeOf: TimeOf = (name, start, end, out) => {
      expect(Buffer.from(name.subarray(start, end))).toEqual(raw)
      out.seconds = 7
      out.nanos = 0
      return 'read'
    }
    const { text, stamper } = stamped(timeOf, [raw.subarray(0, 1), raw.subarray(1, 3), Buffer.concat([raw.subarray(3), Buffer.of(0)]), raw])
    expect(Buffer.from(text, 'latin1')).toEqual(
      Buffer.concat([Buffer.from('7.000000000\t'), raw, Buffer.of(0), Buffer.from('7.000000000\t'), raw, Buffer.of(0)]),
    )
    expect([stamper.recorded, stamper.read]).toEqual([0, 2])
  })

  it('drops a name still arriving when the output stops without finish', () => {
    const { text } = stamped(table({ a: { seconds: 1, nanos: 0 } }), [Buffer.from('a\0par')], false)
    expect(text).toBe('1.000000000\ta\0')
  })

  it('leaves out a file whose time cannot be read and names it, and grows for a long name', () => {
    const long = 'd/'.repeat(40_000) + 'f'
    const { text, stamper } = stamped(table({ gone: 'No such file or directory', [long]: { seconds: 3, nanos: 0 } }), [
      Buffer.from(`gone\0${long}\0`, 'latin1'),
    ])
    expect(text).toBe(`3.000000000\t${long}\0`)
    expect(stamper.unstatted).toEqual(['‘gone’: No such file or directory'])
  })
})
