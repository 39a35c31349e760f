#!/usr/bin/env node
// The installed `dsh` command; the build puts the program in dist/ (this file exists before the build, so npm can link it).
import "../dist/bin.js"
