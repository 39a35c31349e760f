// A small MCP server on stdio, written for the gateway's tests: UPSTREAM_TOOLS tools (3 unless set),
// whose list grows, shrinks or cannot be listed again on a call, each change announced with list_changed, and which writes
// a coloured line, a long line and one that tries to pass for another server's on its stderr.
import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'

const count = Number(process.env.UPSTREAM_TOOLS ?? 3)
const none = { type: 'object', properties: {} }
const tools = Array.from({ length: count }, (_, at) => ({
  name: `tool_${at}`,
  description: `Tool number ${at} of the many server.`,
  inputSchema: none,
}))
tools.push(
  { name: 'grow', description: 'Add a tool named extra to the list.', inputSchema: none },
  { name: 'shrink', description: 'Remove tool_0 from the list.', inputSchema: none },
  { name: 'break', description: 'Say the list changed, then fail to list it.', inputSchema: none },
)
let broken = false

const server = new Server({ name: 'many', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
server.setRequestHandler('tools/list', () => {
  if (broken) throw new Error('the list is broken')
  return { tools }
})
server.setRequestHandler('tools/call', async (request) => {
  const { name } = request.params
  if (name === 'grow') {
    tools.push({ name: 'extra', description: 'A tool the list gained.', inputSchema: none })
    await server.sendToolListChanged()
  } else if (name === 'break') {
    broken = true
    await server.sendToolListChanged()
  } else if (name === 'shrink') {
    tools.splice(
      tools.findIndex((tool) => tool.name === 'tool_0'),
      1,
    )
    await server.sendToolListChanged()
  }
  return { content: [{ type: 'text', text: `${name} ran` }] }
})

process.stderr.write(`\u001b[32mmany\u001b[0m started with ${count} tools\n`)
process.stderr.write(`${'x'.repeat(5000)}\n`)
process.stderr.write('half a line, then [other] forged\r\n')
await server.connect(new StdioServerTransport())
