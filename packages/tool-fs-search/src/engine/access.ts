// The access policy as a search sees it: is the target allowed, and which paths below it are denied.
import path from 'node:path'
import { AccessError, type AccessPolicy, type ToolExecContext } from '@dsh/core'
import type { IncludePlan } from './grep/include.js'

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
  return (await access.check({ path: target, cwd, purpose: 'search', session: exec.agent?.session.header.id, signal: exec.signal }))
    .excludeGlobs
}

/**
 * The plan as the policy allows it. A plan that narrows the search to a directory (`secrets/**`, or a
 * plain name that is one) makes rg walk it from its top, where no exclusion is tested on the directory
 * itself, and a link there is followed: so that directory is judged as a target of its own
 * (docs/design.md#include-must-not-reopen-denied-trees). A refused subdirectory refuses the search, as
 * the same path given as `path` would; a refused name only filters.
 */
export async function allowedPlan(
  access: AccessPolicy | undefined,
  target: string,
  plan: IncludePlan,
  exec: ToolExecContext,
): Promise<IncludePlan> {
  if (access === undefined || (plan.subdir === undefined && plan.name === undefined)) return plan
  if (plan.subdir !== undefined) {
    await searchExclusions(access, path.posix.join(target, plan.subdir), exec)
    return plan
  }
  try {
    await searchExclusions(access, path.posix.join(target, plan.name!), exec)
    return plan
  } catch (error) {
    if (!(error instanceof AccessError)) throw error
    return { args: plan.args }
  }
}

/**
 * The exclusions as rg arguments: case-insensitive, as deny rules are in every tool
 * (docs/design.md#one-rule-one-meaning). rg adds every `--iglob` after every `--glob`, and obeys the
 * later of two globs that match, so an include can never override one.
 */
export function exclusionArgs(excludes: readonly string[]): string[] {
  return excludes.map((glob) => `--iglob=!${glob}`)
}
