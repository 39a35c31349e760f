import type { FileInfo, FileLine, FileSystem, ReadLinesRequest, ReadLinesResult } from '@dsh/core'

/** What a scripted readLines does: answer with a window or fail. */
export type ReadScript = (request: ReadLinesRequest) => ReadLinesResult | Promise<ReadLinesResult>

/** A file system that records every readLines request and answers from a script: the seam, faked. */
export class FakeFs implements FileSystem {
  readonly requests: ReadLinesRequest[] = []

  constructor(private readonly script: ReadScript = () => window(['only line'])) {}

  async stat(): Promise<FileInfo> {
    throw new Error('read never calls stat')
  }

  async readLines(request: ReadLinesRequest): Promise<ReadLinesResult> {
    this.requests.push(request)
    return this.script(request)
  }

  async realpath(path: string): Promise<string> {
    return path
  }
}

/** A window of lines numbered from `first`, ending as `stoppedBy` says (with the total at the end). */
export function window(
  texts: readonly (string | FileLine)[],
  options: { first?: number; stoppedBy?: ReadLinesResult['stoppedBy']; lossy?: boolean } = {},
): ReadLinesResult {
  const { first = 1, stoppedBy = 'end', lossy = false } = options
  const lines = texts.map((t, i) => (typeof t === 'string' ? { number: first + i, text: t, cut: false } : t))
  return { lines, stoppedBy, ...(stoppedBy === 'end' ? { totalLines: first + texts.length - 1 } : {}), lossy }
}
