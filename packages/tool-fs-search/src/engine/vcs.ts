// The version-control metadata directories both tools leave out.

/** Version-control metadata directories neither tool descends into (docs/design.md#the-search-tools; Claude Code's list plus .jj and .sl). */
export const VCS_EXCLUDES = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'] as const
