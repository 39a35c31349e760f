// What both tools are built from, and how long the registry waits for them.
import type { AccessPolicy, BashExecutor, FileSystem, SearchIndex, SpillStore } from '@dsh/core'
import type { SearchConfig } from '../config.js'
import type { MtimeLister } from './glob/command.js'
import type { LinkScanMemory } from './link-scan-memory.js'
import type { RgFileLists } from './rg-file-lists.js'

/** What both tools share at run time. */
export interface SearchContext {
  bash: BashExecutor
  /** The rg command the load-time probe chose. */
  rg: string
  config: SearchConfig
  /** Optional: read when a result needs saving, so a store provided later is still used. */
  spillStore(): SpillStore | undefined
  /** Optional: the roots and deny rules a target must pass, read at each call. */
  access(): AccessPolicy | undefined
  /** Optional: resolves the symbolic links a search may follow (docs/design.md#symbolic-links); without it none is. */
  fs?(): FileSystem | undefined
  /** Optional: a content index that narrows which files grep reads (docs/design.md#an-index-chooses-files-rg-decides-matches). */
  searchIndex?(): SearchIndex | undefined
  /** Optional: each root's last link scan, revalidated rather than walked again (docs/design.md#the-link-scan-is-remembered). */
  linkScans?(): LinkScanMemory | undefined
  /** Optional: the lists of grep's walks, which say which candidates the index may name to rg (docs/design.md#named-candidates). */
  rgFileLists?(): RgFileLists | undefined
}

/** A context whose searches can also list files with their mtimes: dsh's glob, Claude Code's Glob and Grep. */
export interface ListingContext extends SearchContext {
  /** The mtime helper the load-time probe chose. */
  lister: MtimeLister
}

/**
 * How long after `timeoutMs` the registry's own deadline falls (docs/design.md#timeouts). The
 * executor's timeout fires first, stops rg's process group and waits until it is gone (bash-local's
 * default kill grace is 2 s), so a timed-out call returns with nothing left running; the registry's
 * deadline is the backstop for an executor that does not come back.
 */
export const TIMEOUT_BACKSTOP_MS = 5_000
