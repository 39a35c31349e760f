#!/usr/bin/env node
// The installed `dsh` command. The build bundles the program into dist/dsh.mjs (this file exists
// before the build, so npm can link it).
//
// A one-shot process cares more about its peak memory than allocation throughput, so the young
// generation stays at its initial 1 MB semi-spaces: a broad grep peaks ~12 MB lower at no measured
// cost in time. It is set here, not on the shebang line: BusyBox and BSD `env` take no `-S`, and a
// kernel passes everything after the interpreter as one word. `--max-semi-space-size` is read only
// when the heap is set up, before this line runs; the growth factor is read each time new space would
// grow, so setting it before the bundle loads still holds.
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--semi-space-growth-factor=1')
await import('../dist/dsh.mjs')
