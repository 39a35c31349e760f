import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadHarness } from '@dsh/core'
import * as access from '@dsh/access'
import * as fsLocal from '@dsh/fs-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const work = scratchDir('access-plugin')

describe('the access plugin', () => {
  it('provides the policy from its config, with the session cwd as the default root', async () => {
    writeFileSync(join(work, 'key.pem'), 'k')
    const harness = await loadHarness({ plugins: [fsLocal, access], config: { access: { deny: ['*.pem'] } } })
    const policy = harness.get('access')!
    await expect(policy.check({ path: '.', cwd: work, purpose: 'search' })).resolves.toEqual({ realPath: work, excludeGlobs: ['*.pem'] })
    await expect(policy.check({ path: 'key.pem', cwd: work, purpose: 'read' })).rejects.toMatchObject({ code: 'ACCESS_DENIED' })
    await expect(policy.check({ path: '/', cwd: work, purpose: 'search' })).rejects.toMatchObject({ code: 'ACCESS_OUTSIDE_ROOTS' })
  })

  it('needs a file system to follow links through', async () => {
    await expect(loadHarness({ plugins: [access] })).rejects.toMatchObject({ code: 'PLUGIN_DEPENDENCY_MISSING' })
  })

  it.each([
    [{ deny: ['!keep.txt'] }, /deny\.0: a deny pattern must not start with "!"/],
    [{ deny: ['a\nb'] }, /deny\.0: a deny pattern must not hold a NUL or a newline/],
    [{ roots: [''] }, /roots\.0: /],
  ])('rejects the config %j', async (config, message) => {
    await expect(loadHarness({ plugins: [fsLocal, access], config: { access: config } })).rejects.toMatchObject({
      code: 'PLUGIN_CONFIG_INVALID',
      message: expect.stringMatching(message),
    })
  })
})
