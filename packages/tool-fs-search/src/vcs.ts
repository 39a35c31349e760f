/** Version-control metadata directories neither tool descends into (seed 000; Claude Code's list plus .jj and .sl). */
export const VCS_EXCLUDES = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'] as const
