// The groups still running, and what kills them when this process ends: an exit hook, and a watcher.
import { spawn, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'

/**
 * Each command runs in a process group of its own, so that a timeout can stop a whole pipeline; the
 * price is that nothing stops the group when the host process ends. An `exit` hook covers the ends
 * Node sees (`process.exit`, a handled signal). Nothing in-process survives the rest (SIGKILL, the
 * default action of SIGQUIT or SIGUSR2, a second Ctrl-C once the first one's handler is gone), and
 * PR_SET_PDEATHSIG (`setpriv --pdeathsig`) would reach only the shell, not the rg below it. So a
 * watcher process reads a pipe from this one, learning the group ids as they start and end; when this
 * process dies, however it dies, the kernel closes the pipe and the watcher SIGKILLs the groups still
 * listed. One watcher serves every run: a run costs two short pipe writes, not a process, and leaves
 * no orphan of its own behind (an init that does not reap would keep each one as a zombie). A watcher
 * that dies while groups run (someone killed it) is replaced at once, and the new one learns the live
 * groups: waiting for the next run would leave them unguarded, and a run that starts before the host
 * has reaped the dead watcher still writes to its pipe, unaware.
 */

/** How to start the watcher: the way a group's own shell was just started, which is known to work here. */
export interface WatcherShell {
  shellPath: string
  env: Readonly<Record<string, string>>
}

// POSIX sh, for whatever shell shellPath names. Lines are `+<pgid>` and `-<pgid>`; the set is a
// space-delimited string because sh has no arrays. The first line names the process in `ps`.
const WATCHER_SCRIPT = `# dsh bash-local lifeline: SIGKILLs the process groups listed on fd 3 once fd 3 closes
groups=' '
while read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) case $groups in *" \${line#-} "*) groups="\${groups%% \${line#-} *} \${groups#* \${line#-} }" ;; esac ;;
  esac
done <&3
for pgid in $groups; do kill -s KILL -- "-$pgid" 2>/dev/null; done
`

const liveGroups = new Set<number>()
// This end of the pipe the watcher reads; undefined while no watcher runs.
let lifeline: Socket | undefined
let exitHookInstalled = false
// Whether a group was listed since the current watcher started: a watcher that dies before any is
// replaced only by the next run, so one that cannot live (a shell that exits at once) is retried once
// a run, never in a loop.
let heldSinceStart = false

/**
 * Starts the watcher unless one runs. Called before a shell is spawned, so that the shell's group is
 * listed the moment `spawn` returns: a host killed in between would otherwise orphan it.
 */
export function ensureWatcher(shell: WatcherShell): void {
  if (lifeline === undefined) startWatcher(shell)
}

/** Lists a group that has just started, for the exit hook and the watcher. */
export function holdGroup(pgid: number): void {
  liveGroups.add(pgid)
  if (!exitHookInstalled) process.on('exit', killLiveGroups)
  exitHookInstalled = true
  heldSinceStart = true
  lifeline?.write(`+${pgid}\n`)
}

/** Unlists a group once it has ended. */
export function releaseGroup(pgid: number): void {
  liveGroups.delete(pgid)
  lifeline?.write(`-${pgid}\n`)
}

/** SIGKILLs every group still running; runs when the host process exits. */
export function killLiveGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL')
  liveGroups.clear()
}

/** Sends `signal` to a whole group, ignoring a group that is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: the group is already empty, the common case. EPERM: a member changed credentials
    // (setuid), and nothing more can be done from here. Neither is the run's failure.
  }
}

/**
 * Starts the watcher and lists every live group with it. A watcher that cannot start leaves the exit
 * hook standing alone until the next run tries again; one that dies is replaced as the module's
 * comment says.
 */
function startWatcher(shell: WatcherShell): void {
  let child: ChildProcess
  try {
    // The pipe is fd 3, not stdin: Node's pipes are socketpairs, and bash runs ~/.bashrc when its stdin
    // is a socket (its test for being started by rshd or sshd). Detached: a session of its own, so the
    // Ctrl-C or hangup that ends the host does not end the watcher too.
    child = spawn(shell.shellPath, ['-c', WATCHER_SCRIPT], {
      cwd: '/',
      env: { ...shell.env },
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      detached: true,
    })
  } catch {
    return // Node rejects some arguments outright (a NUL in a hand-built path)
  }
  const pipe = child.stdio[3] as Socket
  // ENOENT and the like arrive on 'error' with no pid; EPIPE on the pipe once a watcher has died.
  child.on('error', ignore)
  pipe.on('error', ignore)
  if (child.pid === undefined) return
  child.once('exit', () => {
    lifeline = undefined
    if (heldSinceStart && liveGroups.size > 0) startWatcher(shell)
  })
  // The watcher must not keep the host alive: it is meant to outlive it.
  child.unref()
  pipe.unref()
  lifeline = pipe
  heldSinceStart = false
  pipe.write([...liveGroups].map((pgid) => `+${pgid}\n`).join(''))
}

function ignore(): void {}
