import { afterEach, describe, expect, it } from 'vitest'
import { createLocalBash } from '@dsh/bash-local'
import { scrubEnvironment } from '../src/environment.js'

const planted = ['DSH_TEST_API_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY', 'DSH_TEST_EXTRA']
afterEach(() => {
  for (const name of planted) delete process.env[name]
})

describe('scrubEnvironment', () => {
  it('passes allowlisted and named variables, drops the rest, and applies fixed values last', () => {
    const source = { PATH: '/bin', LC_CTYPE: 'C.UTF-8', GITHUB_TOKEN: 'ghp', SECRET: 's', EXTRA: 'e', HOME: '/h' }
    expect(scrubEnvironment(source, ['EXTRA', 'MISSING'], { HOME: '/override', FIXED: '1' })).toEqual({
      PATH: '/bin',
      LC_CTYPE: 'C.UTF-8',
      EXTRA: 'e',
      HOME: '/override',
      FIXED: '1',
    })
  })
})

describe('the environment a command sees', () => {
  it('lacks secrets set in the parent and holds the allowlist, named extras and fixed values', async () => {
    process.env.DSH_TEST_API_TOKEN = 'token-value'
    process.env.AWS_SECRET_ACCESS_KEY = 'aws-value'
    process.env.OPENAI_API_KEY = 'openai-value'
    process.env.DSH_TEST_EXTRA = 'extra-value'
    const bash = createLocalBash({ env: ['DSH_TEST_EXTRA'], envSet: { DSH_FIXED: 'fixed value' } })
    const result = await bash.run(await bash.resolve({ command: 'env' }))
    const seen = new Map(
      result.stdout.text
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s, 2) as [string, string]),
    )
    for (const secret of ['DSH_TEST_API_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY']) expect(seen.has(secret)).toBe(false)
    expect(result.stdout.text).not.toMatch(/token-value|aws-value|openai-value/)
    expect(seen.get('DSH_TEST_EXTRA')).toBe('extra-value')
    expect(seen.get('DSH_FIXED')).toBe('fixed value')
    expect(seen.get('PATH')).toBe(process.env.PATH)
    expect(seen.get('HOME')).toBe(process.env.HOME)
  })
})
