import { readdirSync, readFileSync } from 'node:fs'

/** One live process, from /proc/<pid>/stat. */
interface ProcessEntry {
  pid: number
  ppid: number
  pgrp: number
}

/**
 * Every live process, read from /proc. A zombie counts as dead: it has exited and only waits to be
 * reaped (this container's init does not reap orphans).
 */
function liveProcesses(): ProcessEntry[] {
  const found: ProcessEntry[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we scanned
    }
    // Fields after the command name, which is parenthesized and may itself hold spaces or parens.
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (state !== 'Z') found.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp) })
  }
  return found
}

/** The live members of a process group. */
export function liveGroupMembers(pgid: number): number[] {
  return liveProcesses().flatMap((p) => (p.pgrp === pgid ? [p.pid] : []))
}

/** The live children of a process. */
export function liveChildren(ppid: number): number[] {
  return liveProcesses().flatMap((p) => (p.ppid === ppid ? [p.pid] : []))
}

/** Those of `pids` still alive. */
export function stillAlive(pids: readonly number[]): number[] {
  const live = new Set(liveProcesses().map((p) => p.pid))
  return pids.filter((pid) => live.has(pid))
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
