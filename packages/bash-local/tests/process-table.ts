import { readdirSync, readFileSync } from 'node:fs'

/**
 * The live members of a process group, read from /proc. A zombie counts as dead: it has exited and
 * only waits to be reaped (this container's init does not reap orphans).
 */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we scanned
    }
    // Fields after the command name, which is parenthesized and may itself hold spaces or parens.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry))
  }
  return members
}

/** Polls until the group has no live member or `withinMs` passes; returns the members left. */
export async function waitForEmptyGroup(pgid: number, withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs
  let members = liveGroupMembers(pgid)
  while (members.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    members = liveGroupMembers(pgid)
  }
  return members
}

/** The first line of a command's stdout as a number: the tests' commands print `$$` (the group id) first. */
export function firstLineNumber(text: string): number {
  const pgid = Number(text.split('\n')[0])
  if (!Number.isInteger(pgid) || pgid <= 0) throw new Error(`expected a pid on the first line, got ${JSON.stringify(text)}`)
  return pgid
}
