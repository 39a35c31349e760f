// The stdio transport: newline-delimited JSON-RPC over two byte streams, on which no input ends the session.
import type { Readable, Writable } from 'node:stream'
import { errorMessage, escapeHiddenCharacters } from '@dsh/core'
import { INVALID_REQUEST, PARSE_ERROR, parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server'
import { JsonLineSplitter } from './json-lines.js'
import { SHAPELESS, shapeOfValue, type MessageShape } from './message-shape.js'

/** What the transport takes besides its streams. */
export interface StdioTransportOptions {
  /** Bytes one incoming message may hold. */
  messageMaxBytes: number
}

/**
 * MCP's stdio transport, written so that bad input costs one error response and not the session
 * (docs/design.md#bad-input-on-the-transport): a line that is not JSON is answered with a parse error
 * (-32700), one that is no JSON-RPC message or is over the size limit with Invalid Request (-32600),
 * each with the request's id when it has one and null otherwise; the next line is read as if nothing
 * happened. An oversized line is dropped as it arrives, never held whole.
 */
export class StdioJsonRpcTransport implements Transport {
  onclose: Transport['onclose']
  onerror: Transport['onerror']
  onmessage: Transport['onmessage']
  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #messageMaxBytes: number
  readonly #splitter: JsonLineSplitter
  #closed = false
  #markClosed!: () => void
  /** Resolves once the transport has closed (stdin ended, or `close` was called). */
  readonly closed = new Promise<void>((resolve) => (this.#markClosed = resolve))

  constructor(stdin: Readable, stdout: Writable, options: StdioTransportOptions) {
    this.#stdin = stdin
    this.#stdout = stdout
    this.#messageMaxBytes = options.messageMaxBytes
    this.#splitter = new JsonLineSplitter(options.messageMaxBytes, {
      line: (text) => this.#receive(text),
      oversized: (bytes, shape) =>
        this.#refuse(
          shape,
          INVALID_REQUEST,
          `Invalid Request: the message is ${bytes} bytes, over the limit of ${this.#messageMaxBytes} (mcp.messageMaxBytes); it was dropped unread`,
        ),
    })
  }

  /** Starts reading stdin; a stdin that has already ended or been destroyed closes the transport at once. */
  start(): Promise<void> {
    this.#stdin.on('data', this.#onData)
    this.#stdin.on('error', this.#onStdinError)
    this.#stdin.on('end', this.#onStdinEnd)
    this.#stdin.on('close', this.#onStdinEnd)
    // Left attached after close: a write that fails late must not become an unhandled 'error' event.
    this.#stdout.on('error', this.#onStdoutError)
    this.#stdin.resume()
    if (this.#stdin.readableEnded || this.#stdin.destroyed) setImmediate(this.#onStdinEnd)
    return Promise.resolve()
  }

  /** Writes one message as one line. */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message)
  }

  /** Stops reading stdin (so the process can exit) and reports the close once. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#closed = true
    this.#stdin.off('data', this.#onData)
    this.#stdin.off('error', this.#onStdinError)
    this.#stdin.off('end', this.#onStdinEnd)
    this.#stdin.off('close', this.#onStdinEnd)
    this.#stdin.pause()
    this.#splitter.clear()
    try {
      this.onclose?.()
    } finally {
      this.#markClosed()
    }
    return Promise.resolve()
  }

  readonly #onData = (chunk: Buffer): void => this.#splitter.push(chunk)
  readonly #onStdinError = (error: Error): void => this.onerror?.(error)
  readonly #onStdinEnd = (): void => void this.close()
  readonly #onStdoutError = (error: Error): void => {
    if (this.#closed) return
    this.onerror?.(error)
    void this.close()
  }

  #receive(text: string): void {
    // A blank line carries no message; some clients end their output with one.
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // JSON.parse quotes the line it failed on; the quote goes to the host's log, so nothing in it may drive a terminal.
      const reason = escapeHiddenCharacters(errorMessage(error))
      return this.#refuse(SHAPELESS, PARSE_ERROR, `Parse error: ${reason}; each line must hold one JSON-RPC message`)
    }
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(value)
    } catch {
      return this.#refuse(shapeOfValue(value), INVALID_REQUEST, invalidRequestMessage(value))
    }
    this.#deliver(message)
  }

  /**
   * Refuses a message: a request (or anything whose id cannot be told) is answered with the error; an
   * answer to one of the server's own requests is delivered to the server as that request's error, so
   * it fails now instead of waiting out its timeout. The refusal is reported either way.
   */
  #refuse(shape: MessageShape, code: number, message: string): void {
    this.onerror?.(new Error(`refused a message from the client: ${message}`))
    const error = { code, message }
    if (shape.answer && !shape.method && shape.id !== undefined && shape.id !== null) {
      return this.#deliver({ jsonrpc: '2.0', id: shape.id, error })
    }
    // JSON-RPC 2.0: when the id cannot be told, the error response's id is null.
    this.#write({ jsonrpc: '2.0', id: shape.method && shape.id !== undefined ? shape.id : null, error }).catch((failure: Error) =>
      this.onerror?.(failure),
    )
  }

  #deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message)
    } catch (error) {
      // A handler's failure is the server's to report; it must not escape into the stream's 'data' event.
      this.onerror?.(error instanceof Error ? error : new Error(errorMessage(error)))
    }
  }

  #write(message: JSONRPCMessage | ErrorAnswer): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio transport is closed'))
    return new Promise((resolve, reject) => {
      this.#stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()))
    })
  }
}

/** An error response as JSON-RPC 2.0 writes it, whose id is null when the message's id could not be told. */
interface ErrorAnswer {
  jsonrpc: '2.0'
  id: string | number | null
  error: { code: number; message: string }
}

/** Why a parsed line is no JSON-RPC message, in the words a client's author needs. */
function invalidRequestMessage(value: unknown): string {
  if (Array.isArray(value)) return 'Invalid Request: a batch (a JSON array) is not supported; send each message on its own line'
  return 'Invalid Request: not a JSON-RPC 2.0 message; a request needs "jsonrpc": "2.0", an "id" (a string or an integer), a "method" (a string) and object "params", if any'
}
