import { describe, expect, it } from 'vitest'
import { CLAUDE_CODE_PROMPT_SECTIONS, GREP_TOOL_DESCRIPTION } from '../../src/claude-code/prompts.js'
import { LINKS } from '../../src/engine/links.js'

describe("Claude Code's prompts", () => {
  it('registers one section for each of Glob and Grep, under their own names', () => {
    expect(CLAUDE_CODE_PROMPT_SECTIONS.map(({ id, tool }) => [id, tool])).toEqual([
      ['tool-fs-search/Glob', 'Glob'],
      ['tool-fs-search/Grep', 'Grep'],
    ])
  })

  it('tells every tool what it does with links, and names the VCS directories it skips', () => {
    for (const text of [GREP_TOOL_DESCRIPTION, ...CLAUDE_CODE_PROMPT_SECTIONS.map((section) => section.text)]) {
      expect(text).toContain(LINKS)
    }
    expect(GREP_TOOL_DESCRIPTION).toContain('(.git, .svn, .hg, .bzr, .jj, .sl)')
  })

  it("describes Grep's modes and paging in the words its parameters use", () => {
    for (const word of ['files_with_matches', '"count"', '"content"', 'head_limit', 'offset', '-A, -B, -C']) {
      expect(GREP_TOOL_DESCRIPTION).toContain(word)
    }
  })
})
