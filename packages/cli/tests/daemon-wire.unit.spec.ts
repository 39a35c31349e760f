import { describe, expect, it } from 'vitest'
import { distrust, fnv1a, idleMs } from '../src/daemon/place.js'
import { mayHandBack, servedCall } from '../src/daemon/route.js'
import { CANCEL, frame, LineReader, readReply, readRequest } from '../src/daemon/wire.js'

const request = { build: 'b', argv: ['grep', 'x'], cwd: '/w', env: { PATH: '/bin' }, isTTY: false }

describe('the socket directory check', () => {
  const dir = { isDirectory: true, isSymbolicLink: false, uid: 1000, mode: 0o40700 }

  it("trusts a directory that is this uid's alone", () => {
    expect(distrust(dir, 1000)).toBeUndefined()
  })

  it.each([
    ['a missing one', undefined, 'it does not exist'],
    ['a link to one', { ...dir, isSymbolicLink: true }, 'it is not a directory'],
    ['a file', { ...dir, isDirectory: false }, 'it is not a directory'],
    ["another user's (two users: the other's socket is never used)", { ...dir, uid: 1001 }, 'it is owned by uid 1001, not 1000'],
    ['one its group may enter', { ...dir, mode: 0o40750 }, 'its mode is 750, not 700'],
    ['one anyone may write', { ...dir, mode: 0o41777 }, 'its mode is 777, not 700'],
  ])('refuses %s', (_what, info, why) => {
    expect(distrust(info, 1000)).toBe(why)
  })
})

describe('the socket name and the idle timeout', () => {
  it('names an install by an 8-digit hash of its directory', () => {
    expect(fnv1a('')).toBe('811c9dc5')
    expect(fnv1a('/usr/lib/node_modules/@dsh/cli/dist')).toMatch(/^[0-9a-f]{8}$/)
    expect(fnv1a('/a')).not.toBe(fnv1a('/b'))
  })

  it.each([
    [{}, 300_000],
    [{ DSH_DAEMON_IDLE_SECONDS: '30' }, 30_000],
    [{ DSH_DAEMON_IDLE_SECONDS: '0.5' }, 500],
    [{ DSH_DAEMON_IDLE_SECONDS: '0' }, 300_000],
    [{ DSH_DAEMON_IDLE_SECONDS: '-5' }, 300_000],
    [{ DSH_DAEMON_IDLE_SECONDS: 'soon' }, 300_000],
    [{ DSH_DAEMON_IDLE_SECONDS: 'Infinity' }, 300_000],
  ])('idles %j for %i ms', (env, ms) => {
    expect(idleMs(env)).toBe(ms)
  })
})

describe('which calls the server takes', () => {
  it.each([
    [['grep', 'x'], true],
    [['--cwd', 'grep', 'glob', '*'], true],
    [['--cwd=/tmp', 'read', 'f'], true],
    [['--format', 'json', 'tool-search', 'q'], true],
    [['--profile', 'claude-code', 'Grep', 'x'], true],
    [['-0', 'glob', '*'], true],
    [['mcp'], false],
    [['completion', 'bash'], false],
    [['tools'], false],
    [['index'], true],
    [['--version'], false],
    [[], false],
    [['grep', 'x', '--no-daemon'], false],
    [['--no-daemon', 'grep', 'x'], false],
    [['grep', '--', '--no-daemon'], true],
    [['--cwd', 'mcp', 'grep'], true],
  ])('%j: %s', (argv, served) => {
    expect(servedCall(argv, {})).toBe(served)
  })

  it.each([
    [['index'], true],
    [['--cwd', 'index', 'index', 'src'], true],
    [['grep', 'index'], false],
    [['--cwd', 'index', 'grep', 'x'], false],
    [[], false],
  ])('%j may be handed back: %s', (argv, back) => {
    expect(mayHandBack(argv)).toBe(back)
  })

  it.each([
    ['1', false],
    ['yes', false],
    ['', true],
    ['0', true],
  ])('DSH_NO_DAEMON=%j serves a grep: %s', (value, served) => {
    expect(servedCall(['grep', 'x'], { DSH_NO_DAEMON: value })).toBe(served)
  })
})

describe('the wire', () => {
  it('frames each message as one JSON line', () => {
    expect(frame(CANCEL)).toBe('{"cancel":true}\n')
    expect(frame(['o', 'a\nb'])).toBe('["o","a\\nb"]\n')
  })

  it('hands on whole lines however the bytes arrive, a multi-byte character split included', () => {
    const lines: string[] = []
    const reader = new LineReader((line) => lines.push(line), 100)
    const bytes = Buffer.from('one\ntwo é\n\nthree')
    for (const byte of bytes) reader.push(Buffer.from([byte]))
    reader.push(Buffer.from('\nfour\nfive\n'))
    expect(lines).toEqual(['one', 'two é', '', 'three', 'four', 'five'])
  })

  it('refuses a line longer than its limit, split or whole', () => {
    const reader = new LineReader(() => undefined, 8)
    reader.push(Buffer.from('12345'))
    expect(() => reader.push(Buffer.from('6789'))).toThrow('a line longer than 8 bytes')
    expect(() => new LineReader(() => undefined, 8).push(Buffer.from('123456789'))).toThrow()
  })

  it('reads a request, and refuses one that is not', () => {
    expect(readRequest(JSON.stringify(request))).toEqual(request)
    for (const bad of [
      'not json',
      'null',
      '7',
      '[]',
      JSON.stringify({ ...request, build: 1 }),
      JSON.stringify({ ...request, argv: 'grep x' }),
      JSON.stringify({ ...request, argv: ['grep', 1] }),
      JSON.stringify({ ...request, cwd: 3 }),
      JSON.stringify({ ...request, isTTY: 'yes' }),
      JSON.stringify({ ...request, env: null }),
      JSON.stringify({ ...request, env: ['PATH'] }),
      JSON.stringify({ ...request, env: { PATH: 1 } }),
      JSON.stringify({ ...request, cwd: 'relative' }),
      JSON.stringify({ ...request, cwd: '/w\0/x' }),
      JSON.stringify({ ...request, argv: ['grep', 'a\0b'] }),
      JSON.stringify({ ...request, env: { 'A\0B': 'x' } }),
      JSON.stringify({ ...request, env: { A: '$(rm -rf /)\0' } }),
    ]) {
      expect(readRequest(bad), bad).toBeUndefined()
    }
  })

  it('keeps hostile text as text: quotes, $(), newlines, leading dashes, lone surrogates', () => {
    const argv = ['grep', '--', '-"$(touch x)"\n\'', '\ud800']
    expect(readRequest(frame({ ...request, argv }).trimEnd())?.argv).toEqual(argv)
  })

  it('reads each reply, and refuses one that is not', () => {
    for (const reply of [['ok'], ['busy'], ['stale'], ['o', 'text'], ['e', ''], ['refused', 'why'], ['x', 0], ['x', 130], ['x', 255]]) {
      expect(readReply(JSON.stringify(reply))).toEqual(reply)
    }
    for (const bad of [
      'not json',
      '{"o":"x"}',
      '["ok", 1]',
      '["o"]',
      '["o", 1]',
      '["x", "0"]',
      '["x", 1.5]',
      '["x", -1]',
      '["x", 256]',
      '["x"]',
      '["rm"]',
    ]) {
      expect(readReply(bad), bad).toBeUndefined()
    }
  })
})
