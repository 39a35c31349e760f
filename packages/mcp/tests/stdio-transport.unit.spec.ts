import { PassThrough, Writable } from 'node:stream'
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { StdioJsonRpcTransport } from '../src/stdio-transport.js'
import { waitUntil } from './fixtures.js'

/** A transport over fresh pipes (or the given stdout), started, with what it reported and delivered. */
async function started(stdout: Writable = new PassThrough()) {
  const stdin = new PassThrough()
  const transport = new StdioJsonRpcTransport(stdin, stdout, { messageMaxBytes: 1024 })
  const errors: string[] = []
  const delivered: JSONRPCMessage[] = []
  let closes = 0
  transport.onerror = (error) => errors.push(error.message)
  transport.onmessage = (message) => delivered.push(message)
  transport.onclose = () => closes++
  await transport.start()
  return { transport, stdin, stdout, errors, delivered, closes: () => closes }
}

const ping = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`

describe('StdioJsonRpcTransport', () => {
  it('closes at once when stdin was destroyed before it started', async () => {
    const stdin = new PassThrough()
    stdin.destroy()
    const transport = new StdioJsonRpcTransport(stdin, new PassThrough(), { messageMaxBytes: 1024 })
    let closed = false
    transport.onclose = () => (closed = true)
    await transport.start()
    expect(await waitUntil(() => closed, 5000)).toBe(true)
  })

  it('reports a stdin error and reads on', async () => {
    const { stdin, errors, delivered, closes } = await started()
    stdin.emit('error', new Error('EIO: stdin broke'))
    stdin.write(ping(1))
    expect(await waitUntil(() => delivered.length === 1, 5000)).toBe(true)
    expect(errors).toEqual(['EIO: stdin broke'])
    expect(closes()).toBe(0)
  })

  it('reports a stdout error once and closes once; a send after that is refused', async () => {
    const { transport, stdout, errors, closes } = await started()
    stdout.emit('error', new Error('EPIPE: the host went away'))
    stdout.emit('error', new Error('EPIPE again'))
    await transport.close()
    expect(errors).toEqual(['EPIPE: the host went away'])
    expect(closes()).toBe(1)
    await expect(transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow('the stdio transport is closed')
  })

  it('reports a handler that throws, an Error or anything else, and delivers the next message', async () => {
    const { transport, stdin, errors } = await started()
    const seen: unknown[] = []
    const throws = [new Error('handler broke'), 'a string thrown']
    transport.onmessage = (message) => {
      seen.push(message)
      if (throws.length > 0) throw throws.shift()
    }
    stdin.write(ping(1) + ping(2) + ping(3))
    expect(await waitUntil(() => seen.length === 3, 5000)).toBe(true)
    expect(errors).toEqual(['handler broke', 'a string thrown'])
  })

  it('reports a refusal it could not write', async () => {
    const failing = new Writable({ write: (_chunk, _encoding, done) => done(new Error('ENOSPC: disk full')) })
    const { stdin, errors } = await started(failing)
    stdin.write('not json\n')
    expect(await waitUntil(() => errors.includes('ENOSPC: disk full'), 5000)).toBe(true)
    expect(errors[0]).toMatch(/^refused a message from the client: Parse error: /)
  })
})
