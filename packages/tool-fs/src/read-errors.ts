// What a failed read tells the model: the provider's FsError, reworded with the next step to take.
import { errorMessage, FsError, HarnessError, isHarnessError, type ToolExecContext } from '@dsh/core'
import { BINARY_SNIFF_BYTES } from './config.js'
import { shownPath } from './read-format.js'

/**
 * The error a read call fails with. A provider's FsError keeps its code and gains a message naming
 * what to do next (a provider cannot know which tools exist); another HarnessError passes as is, and
 * anything else is a provider bug reported as `FS_READ_FAILED`.
 */
export function readFailure(error: unknown, path: string, exec: ToolExecContext): HarnessError {
  const shown = shownPath(path)
  if (!isHarnessError(error)) {
    return new FsError('FS_READ_FAILED', `read failed on ${shown}: ${errorMessage(error)}`, { cause: error })
  }
  if (!(error instanceof FsError)) return error
  const message = betterMessage(error, shown, exec)
  return message === undefined ? error : new FsError(error.code, message, { cause: error })
}

function betterMessage(error: FsError, shown: string, exec: ToolExecContext): string | undefined {
  switch (error.code) {
    case 'FS_NOT_FOUND':
      return `${shown} does not exist. Check the path, or find the file with glob.`
    case 'FS_IS_DIRECTORY':
      return `${shown} is a directory, not a file; list its files with glob.`
    case 'FS_NOT_A_FILE':
      return `${shown} is not a regular file (it is a FIFO, socket or device); read does not open it.`
    case 'FS_BINARY':
      return `${shown} is a binary file (it has a NUL byte in its first ${BINARY_SNIFF_BYTES} bytes); its contents are not shown.`
    case 'FS_PERMISSION':
      return `${shown} cannot be read: permission denied.`
    case 'FS_ABORTED':
      return abortedMessage(shown, exec)
    default:
      // FS_INVALID_PATH and FS_READ_FAILED: the provider's own words say what went wrong.
      return undefined
  }
}

/** A timeout and a cancellation abort the same signal; its reason tells them apart. */
function abortedMessage(shown: string, exec: ToolExecContext): string {
  const reason: unknown = exec.signal.reason
  return reason instanceof HarnessError && reason.code === 'TOOL_TIMEOUT'
    ? `read timed out before it finished ${shown}; nothing is shown. Read a smaller window with offset and limit.`
    : `read of ${shown} was cancelled; nothing is shown.`
}

/** The error for a call whose offset lies past the last line. */
export function offsetPastEnd(path: string, offset: number, totalLines: number): FsError {
  const shown = shownPath(path)
  const what =
    totalLines === 0
      ? `${shown} is empty`
      : `${shown} has ${totalLines} line${totalLines === 1 ? '' : 's'}; call read with an offset from 1 to ${totalLines}`
  return new FsError('FS_OFFSET_PAST_END', `offset ${offset} is past the end: ${what}.`)
}
