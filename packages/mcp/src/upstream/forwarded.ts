// An upstream's answer carried through the registry untouched, for tools/call to hand back as it came.
import type { ToolResult } from '@dsh/core'
import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/server'

/**
 * The value of a forwarded call: the upstream's result, or the JSON-RPC error it answered with. A class,
 * so no other tool's value can pass for one.
 */
export class ForwardedAnswer {
  constructor(readonly answer: { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } }) {}
}

/**
 * The upstream's own answer, when the call was forwarded: its result as it came (every content block,
 * `structuredContent`, `isError`, `_meta`), or its error thrown again as the same protocol error.
 * Undefined for any other call.
 */
export function forwardedCallResult(result: ToolResult): CallToolResult | undefined {
  if (!(result.value instanceof ForwardedAnswer)) return undefined
  const { answer } = result.value
  if ('result' in answer) return answer.result
  throw new ProtocolError(answer.error.code, answer.error.message, answer.error.data)
}
