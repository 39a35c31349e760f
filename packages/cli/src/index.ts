// The public surface of @dsh/cli, for hosts that embed the command. Any new export here becomes public API.
export { runCli } from './cli.js'
export { EXIT, type CliIo } from './cli-io.js'
export { createDshHarness, DSH_PLUGINS, type DshHarnessOptions, type ToolSet } from './harness.js'
