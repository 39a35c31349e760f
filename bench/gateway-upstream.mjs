// An MCP server on stdio serving the tools a JSON file lists (argv[2]): one upstream of the gateway measurement.
import { readFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'

const tools = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const server = new Server({ name: 'bench-upstream', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler('tools/list', () => ({ tools }))
server.setRequestHandler('tools/call', (request) => ({ content: [{ type: 'text', text: `${request.params.name} ran` }] }))
await server.connect(new StdioServerTransport())
