#!/usr/bin/env node
// The installed `dsh` command. The build bundles the program into dist/dsh.mjs (this file exists
// before the build, so npm can link it), and the thin client into dist/dsh-client.cjs: a served call
// (dsh grep, glob, read, tool-search) is handed to the warm server without loading the program, and
// anything else, or any call the server cannot take, runs in this process (docs/design.md#a-warm-server).
//
// A CommonJS script (bin/package.json says so), and the client a CommonJS bundle, so that a served
// call never starts Node's ES module loader (~5 ms); the program, an ES module, is imported only when
// the call runs here (docs/performance.md#a-warm-server).
//
// A one-shot process cares more about its peak memory than allocation throughput, so the young
// generation stays at its initial 1 MB semi-spaces: a broad grep peaks ~12 MB lower at no measured
// cost in time. It is set here, not on the shebang line: BusyBox and BSD `env` take no `-S`, and a
// kernel passes everything after the interpreter as one word. `--max-semi-space-size` is read only
// when the heap is set up, before this line runs; the growth factor is read each time new space would
// grow, so setting it before the bundle loads still holds.
'use strict'
require('node:v8').setFlagsFromString('--semi-space-growth-factor=1')
const path = require('node:path')
const dist = path.join(__dirname, '..', 'dist')
require('../dist/dsh-client.cjs')
  .handOver(process.argv.slice(2), dist)
  .then((status) => {
    if (status === undefined) return import('../dist/dsh.mjs')
    process.exitCode = status
  })
