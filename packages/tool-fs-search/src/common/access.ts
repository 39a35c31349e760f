// The access policy as a search sees it: is the target allowed, and which paths below it are denied.
import { AccessError, type AccessPolicy, type ToolExecContext } from '@dsh/core'

/**
 * Asks the policy (docs/design.md#the-access-policy), when the host loads one, about a search target, and returns the rg exclusions of
 * its deny rules below it, or none without a policy. rg runs from inside a directory target, which is
 * what the exclusions are relative to; a file target named directly bypasses rg's globs, so the
 * policy itself refuses a denied one.
 */
export async function searchExclusions(access: AccessPolicy | undefined, target: string, exec: ToolExecContext): Promise<string[]> {
  if (access === undefined) return []
  const cwd = exec.agent?.session.header.cwd
  if (cwd === undefined) {
    throw new AccessError(
      'ACCESS_OUTSIDE_ROOTS',
      `${exec.name} has no session working directory, which the access roots are relative to; it runs only in a session.`,
    )
  }
  return (await access.check({ path: target, cwd, purpose: 'search', session: exec.agent?.session.header.id, signal: exec.signal })).excludeGlobs
}

/** The exclusions as rg arguments. They must follow every include glob: of two globs rg obeys the later. */
export function exclusionArgs(excludes: readonly string[]): string[] {
  return excludes.map((glob) => `--glob=!${glob}`)
}
