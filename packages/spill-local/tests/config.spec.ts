import { join, relative } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Config, createLocalSpillStore, type LocalSpillOptions } from '@dsh/spill-local'
import { scratchDir } from '../../../test-support/temp-tree.js'

const scratch = scratchDir('spill-local-config')
const saved = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, HOME: process.env.HOME }
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const request = { owner: 's', source: { toolName: 'grep', callId: 'c', label: 'result' }, text: 't', filename: 'f.txt' }

describe('Config', () => {
  it('documents a default for every field', () => {
    for (const [field, schema] of Object.entries(Config.shape)) expect(schema.description, field).toMatch(/@default /)
  })

  it('fills the documented defaults and leaves the root to be decided at creation', () => {
    expect(Config.parse({})).toEqual({ maxAgeMs: 604_800_000, maxBytesPerOwner: 268_435_456, minAgeMs: 600_000 })
  })
})

describe('the default root', () => {
  it('is $XDG_STATE_HOME/dsh/spill when XDG_STATE_HOME is absolute', async () => {
    process.env.XDG_STATE_HOME = join(scratch, 'state')
    const { locator } = await createLocalSpillStore().saveText(request)
    expect(locator.startsWith(join(scratch, 'state', 'dsh', 'spill', 's') + '/')).toBe(true)
  })

  it('is ~/.local/state/dsh/spill when XDG_STATE_HOME is unset or relative, as the XDG spec says', async () => {
    process.env.HOME = join(scratch, 'home')
    for (const stateHome of [undefined, 'relative/state']) {
      if (stateHome === undefined) delete process.env.XDG_STATE_HOME
      else process.env.XDG_STATE_HOME = stateHome
      const { locator } = await createLocalSpillStore().saveText(request)
      expect(locator.startsWith(join(scratch, 'home', '.local', 'state', 'dsh', 'spill', 's') + '/')).toBe(true)
    }
  })

  it('resolves a relative configured root against the process cwd', async () => {
    const { locator } = await createLocalSpillStore({ root: relative(process.cwd(), join(scratch, 'rel')) }).saveText(request)
    expect(locator.startsWith(join(scratch, 'rel', 's') + '/')).toBe(true)
  })
})

describe('createLocalSpillStore options', () => {
  it.each<[string, LocalSpillOptions, RegExp]>([
    ['a non-positive age', { maxAgeMs: 0 }, /maxAgeMs/],
    ['a fractional budget', { maxBytesPerOwner: 1.5 }, /maxBytesPerOwner/],
    ['a negative grace', { minAgeMs: -1 }, /minAgeMs/],
    ['an empty root', { root: '' }, /root/],
    ['an unknown field', { dir: '/x' } as LocalSpillOptions, /dir/],
  ])('rejects %s with SPILL_INVALID_CONFIG naming the field', (_label, options, message) => {
    expect(() => createLocalSpillStore(options)).toThrow(
      expect.objectContaining({ code: 'SPILL_INVALID_CONFIG', message: expect.stringMatching(message) }),
    )
  })
})
