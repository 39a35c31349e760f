#!/usr/bin/env node
// The installed `dsh` command. The build bundles the program into dist/dsh.mjs (this file exists
// before the build, so npm can link it), and the thin client into dist/dsh-client.mjs: a served call
// (dsh grep, glob, read, tool-search) is handed to the warm server without loading the program, and
// anything else, or any call the server cannot take, runs in this process (docs/design.md#a-warm-server).
//
// A one-shot process cares more about its peak memory than allocation throughput, so the young
// generation stays at its initial 1 MB semi-spaces: a broad grep peaks ~12 MB lower at no measured
// cost in time. It is set here, not on the shebang line: BusyBox and BSD `env` take no `-S`, and a
// kernel passes everything after the interpreter as one word. `--max-semi-space-size` is read only
// when the heap is set up, before this line runs; the growth factor is read each time new space would
// grow, so setting it before the bundle loads still holds.
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--semi-space-growth-factor=1')
const { handOver, DIST } = await import('../dist/dsh-client.mjs')
const status = await handOver(process.argv.slice(2), DIST)
if (status === undefined) await import('../dist/dsh.mjs')
else process.exitCode = status
