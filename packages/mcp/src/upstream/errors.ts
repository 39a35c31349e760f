// The failures of the gateway's upstream side: a config file it cannot use, and a call an upstream could not answer.
import { HarnessError } from '@dsh/core'

/** The codes the gateway reports. */
export type UpstreamErrorCode =
  /** The `mcpServers` file is not JSON, or not the shape Claude Desktop and Cursor read. */
  | 'UPSTREAM_CONFIG_INVALID'
  /** An upstream went away during a call (it exited, or its connection closed) or did not answer in time. */
  | 'UPSTREAM_UNAVAILABLE'

/** An expected failure of the gateway's upstream side. */
export class UpstreamError extends HarnessError<UpstreamErrorCode> {}
