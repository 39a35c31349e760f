// A small MCP server on stdio, written for the gateway's tests: a notes service whose process can be
// told to crash. UPSTREAM_START_DELAY_MS holds it back before it answers anything.
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'

const text = { type: 'object', properties: { text: { type: 'string', description: 'The note.' } }, required: ['text'] }
const none = { type: 'object', properties: {} }
const tools = [
  { name: 'add_note', description: 'Add a note to the notebook.', inputSchema: text, annotations: { readOnlyHint: false } },
  { name: 'list_notes', description: 'List the notes in the notebook.', inputSchema: none, annotations: { readOnlyHint: true } },
  { name: 'show.image', description: 'Show the notebook cover as an image.', inputSchema: none },
  { name: 'reject', description: 'Answer with a JSON-RPC error.', inputSchema: none },
  { name: 'whoami', description: 'Report the process id of this notes server.', inputSchema: none },
  { name: 'crash', description: 'Exit the notes server in the middle of the call.', inputSchema: none },
  { name: 'pinned', description: 'Always listed.', inputSchema: none, _meta: { 'anthropic/alwaysLoad': true } },
]
const notes = []

const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler('tools/list', () => ({ tools }))
server.setRequestHandler('tools/call', (request) => {
  const { name, arguments: args = {} } = request.params
  switch (name) {
    case 'add_note':
      if (typeof args.text !== 'string') return { content: [{ type: 'text', text: 'text must be a string' }], isError: true }
      notes.push(args.text)
      return {
        content: [{ type: 'text', text: `added ${JSON.stringify(args.text)}` }],
        structuredContent: { count: notes.length },
        _meta: { 'notes/id': notes.length },
      }
    case 'list_notes':
      return { content: notes.map((note) => ({ type: 'text', text: note })) }
    case 'show.image':
      return { content: [{ type: 'image', data: Buffer.from('cover').toString('base64'), mimeType: 'image/png' }] }
    case 'reject':
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'reject always rejects', { reason: 'on purpose' })
    case 'whoami':
      return { content: [{ type: 'text', text: String(process.pid) }] }
    case 'crash':
      process.exit(3)
      break
    case 'pinned':
      return { content: [{ type: 'text', text: 'pinned ran' }] }
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no tool ${name}`)
})

await new Promise((resolve) => setTimeout(resolve, Number(process.env.UPSTREAM_START_DELAY_MS ?? 0)))
await server.connect(new StdioServerTransport())
