// The public surface of @dsh/mcp. Any new export here becomes public API.
export { createDshMcpServer, type DshMcpOptions } from './server.js'
export { serveMcpStdio, type ServeMcpStdioOptions } from './stdio.js'
export { startUpstreamGateway, UPSTREAM_CONNECT_TIMEOUT_MS, type UpstreamGateway, type UpstreamGatewayOptions } from './upstream/gateway.js'
export { parseUpstreamConfig, UPSTREAM_CONFIG_MAX_BYTES, type UpstreamServer } from './upstream/config.js'
export { UpstreamError, type UpstreamErrorCode } from './upstream/errors.js'
export { serveMcpHttp, type ServeMcpHttpOptions } from './http/serve.js'
export { parseListenAddress, type ListenAddress, type ListenAddressParse } from './http/listen-address.js'
