import * as bashLocal from '@dsh/bash-local'
import { loadHarness } from '@dsh/core'
import * as fsLocal from '@dsh/fs-local'
import * as spillLocal from '@dsh/spill-local'
import * as toolFsSearch from '@dsh/tool-fs-search'
const h = await loadHarness({ plugins: [bashLocal, spillLocal, fsLocal, toolFsSearch], config: { 'spill-local': { root: '/tmp/spill-repro' }, 'tool-fs-search': { index: 'off' } } })
const r = await h.registry.execute('grep', { pattern: process.argv[3]! }, { agent: { session: { header: { id: 'x', cwd: process.argv[2]! } } } })
console.log(r.content.slice(0, 300))
