// What a message that cannot be taken was, told from its top-level members: how to refuse it depends on it.

/**
 * The members of a message's top-level object that decide who hears of its refusal: a request is
 * answered with its own id, a notification is not answered, and an answer to one of the server's own
 * requests is turned into an error for that request.
 */
export interface MessageShape {
  /** The top-level `id`: a request id, `null` when the member is there but unusable, undefined when absent. */
  id: string | number | null | undefined
  /** Whether it has a top-level `method` (a request, or a notification when it has no id). */
  method: boolean
  /** Whether it has a top-level `result` or `error` (an answer). */
  answer: boolean
}

/** A message with nothing to go by (not JSON, not an object): it is answered with a null id. */
export const SHAPELESS: MessageShape = { id: undefined, method: false, answer: false }

/** The shape of a parsed value that is no valid message. */
export function shapeOfValue(value: unknown): MessageShape {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return SHAPELESS
  const members = value as Record<string, unknown>
  return {
    id: 'id' in members ? usableId(members.id) : undefined,
    method: 'method' in members,
    answer: 'result' in members || 'error' in members,
  }
}

/** JSON-RPC's request ids, as MCP narrows them: a string or an integer. */
function usableId(id: unknown): string | number | null {
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

/** Bytes of a top-level key kept: the members read are `id`, `method`, `result` and `error`. */
const KEY_MAX_BYTES = 8
/** Bytes of an id kept; a longer one is unusable (no client sends one). */
const ID_MAX_BYTES = 256

/** Where the scanner is, at the top level, between tokens. */
type Expecting = 'key' | 'colon' | 'value' | 'comma'

/**
 * Reads a message's shape from its bytes as they stream past, keeping only a key's and an id's few
 * bytes: a message too large to keep is refused without being held. It follows strings and nesting
 * byte by byte, so an `id` inside the params is no id of the message; anything that is not a JSON
 * object at the top is shapeless.
 */
export class MessageShapeScanner {
  #started = false
  #object = false
  #done = false
  #depth = 0
  #inString = false
  #escaped = false
  #expecting: Expecting = 'key'
  /** The bytes of the top-level key being read, while one is. */
  #key: number[] | undefined
  /** The last complete top-level key. */
  #lastKey = ''
  /** The bytes of the top-level id's value, while it is being read. */
  #idBytes: number[] | undefined
  #idText: string | undefined
  #hasId = false
  #method = false
  #answer = false

  /** Reads `bytes[start..end)`, the next bytes of the message. */
  scan(bytes: Uint8Array, start = 0, end = bytes.length): void {
    for (let i = start; i < end && !this.#done; i++) this.#read(bytes[i]!)
  }

  /** The shape the bytes read so far show. */
  shape(): MessageShape {
    if (!this.#object) return SHAPELESS
    this.#endId()
    return { id: this.#hasId ? idFromText(this.#idText) : undefined, method: this.#method, answer: this.#answer }
  }

  #read(byte: number): void {
    if (!this.#started) {
      if (isJsonSpace(byte)) return
      this.#started = true
      this.#object = byte === OPEN_OBJECT
      this.#done = !this.#object
      this.#depth = 1
      return
    }
    const top = this.#depth === 1
    // The id's value ends at the comma or brace after it, outside any string.
    if (top && !this.#inString && (byte === COMMA || byte === CLOSE_OBJECT)) this.#endId()
    if (this.#idBytes !== undefined) {
      this.#idBytes.push(byte)
      if (this.#idBytes.length > ID_MAX_BYTES) this.#idBytes = undefined
    }
    if (this.#inString) return this.#readInString(byte)
    switch (byte) {
      case QUOTE:
        this.#inString = true
        if (top && this.#expecting === 'key') this.#key = []
        else if (top && this.#expecting === 'value') this.#expecting = 'comma'
        return
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (top && this.#expecting === 'value') this.#expecting = 'comma'
        this.#depth++
        return
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.#depth--
        this.#done = this.#depth === 0
        return
      case COMMA:
        if (top) this.#expecting = 'key'
        return
      case COLON:
        if (top && this.#expecting === 'colon') this.#startValue()
        return
      default:
        if (top && this.#expecting === 'value' && !isJsonSpace(byte)) this.#expecting = 'comma'
    }
  }

  #readInString(byte: number): void {
    this.#key?.push(byte)
    if (this.#key !== undefined && this.#key.length > KEY_MAX_BYTES + 1) this.#key = undefined
    if (this.#escaped) {
      this.#escaped = false
    } else if (byte === BACKSLASH) {
      this.#escaped = true
    } else if (byte === QUOTE) {
      this.#inString = false
      if (this.#depth === 1 && this.#expecting === 'key') {
        // The closing quote was kept with the key's bytes; an overlong key is none of the members read.
        this.#lastKey = this.#key === undefined ? '' : decodeJsonString(this.#key.slice(0, -1))
        this.#key = undefined
        this.#expecting = 'colon'
      }
    }
  }

  #startValue(): void {
    this.#expecting = 'value'
    switch (this.#lastKey) {
      case 'id':
        // A later id replaces an earlier one, as JSON.parse keeps the last.
        this.#hasId = true
        this.#idText = undefined
        this.#idBytes = []
        return
      case 'method':
        this.#method = true
        return
      case 'result':
      case 'error':
        this.#answer = true
    }
  }

  #endId(): void {
    if (this.#idBytes === undefined) return
    this.#idText = Buffer.from(this.#idBytes).toString('utf8')
    this.#idBytes = undefined
  }
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d
}

/** A key's bytes, between its quotes, as text; escapes (`"\u0069d"`) are read as JSON reads them. */
function decodeJsonString(bytes: number[]): string {
  const raw = Buffer.from(bytes).toString('utf8')
  try {
    return JSON.parse(`"${raw}"`) as string
  } catch {
    return ''
  }
}

/** The id a value's text holds, or null when it is no usable id (too long, an object, not JSON). */
function idFromText(text: string | undefined): string | number | null {
  if (text === undefined) return null
  try {
    return usableId(JSON.parse(text))
  } catch {
    return null
  }
}
