#!/usr/bin/env -S node --max-semi-space-size=2
// The installed `dsh` command. The build bundles the program into dist/dsh.mjs (this file exists
// before the build, so npm can link it). A one-shot process cares more about its peak memory than
// allocation throughput: a 2 MB young generation cuts a broad grep's peak RSS by ~12 MB at no
// measured cost in time.
import '../dist/dsh.mjs'
