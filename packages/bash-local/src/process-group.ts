// Terminating a command's whole process group: SIGTERM, then SIGKILL after a grace.
import { holdGroup, releaseGroup, signalGroup } from './lifeline.js'
import { waitUntil } from './wait-until.js'

/**
 * Stops a command's whole process group, not just the shell: `bash -c 'sleep 300 & wait'` leaves a
 * grandchild that holds the output pipes, and killing only the shell would leave it running and the
 * call waiting on pipes that never close.
 */
export class ProcessGroup {
  readonly #pgid: number
  readonly #graceMs: number
  #graceTimer: NodeJS.Timeout | undefined
  #terminating = false

  /**
   * `pgid` is the shell's pid: spawned with `detached: true`, the shell leads a group of its own.
   * The group stays listed on the lifeline until `finish`.
   */
  constructor(pgid: number, graceMs: number) {
    this.#pgid = pgid
    this.#graceMs = graceMs
    holdGroup(pgid)
  }

  /** SIGTERM to the group now and SIGKILL after the grace, for members that trap or ignore SIGTERM. */
  terminate(): void {
    if (this.#terminating) return
    this.#terminating = true
    this.#signal('SIGTERM')
    this.#graceTimer = setTimeout(() => this.#signal('SIGKILL'), this.#graceMs)
  }

  /**
   * Called once the shell has closed its pipes: SIGKILL to whatever is left in the group (a background
   * job with its output redirected holds no pipe, so close does not wait for it). A foreground run
   * leaves nothing behind. The shell's pid stays reserved as a group id while any member lives; once
   * none does the kill finds no group, and only a full wrap of the pid space could hand the id on.
   */
  finish(): void {
    clearTimeout(this.#graceTimer)
    this.#signal('SIGKILL')
    releaseGroup(this.#pgid)
  }

  /**
   * After `finish`, waits (at most `withinMs`) until the group is gone. A killed process closes its
   * pipes before it finishes exiting, so without this a caller could still see it alive for a moment
   * after the run returned. An unreaped zombie keeps the group id in use, so the wait is bounded.
   */
  async gone(withinMs: number): Promise<boolean> {
    return waitUntil(() => !this.#exists(), withinMs)
  }

  #exists(): boolean {
    try {
      process.kill(-this.#pgid, 0)
      return true
    } catch {
      return false
    }
  }

  #signal(signal: NodeJS.Signals): void {
    signalGroup(this.#pgid, signal)
  }
}
