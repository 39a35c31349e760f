// The public surface of @dsh/mcp. Any new export here becomes public API.
export { createDshMcpServer, type DshMcpOptions } from './server.js'
export { serveMcpStdio, type ServeMcpStdioOptions } from './stdio.js'
