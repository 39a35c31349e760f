// The claude-code profile's real tier: the real loader, bash-local, spill-local and rg over temp trees.
import { expect } from 'vitest'
import type { Harness, ToolResult } from '@dsh/core'
import { loadRealHarness, readSpill } from '../real-harness.js'

/** Loads the real plugins with the claude-code profile. */
export function loadClaudeHarness(spillRoot: string, search: Record<string, unknown> = {}): Promise<Harness> {
  return loadRealHarness({ spillRoot, search: { profile: 'claude-code', ...search } })
}

/** Calls Grep or Glob in a session whose working directory is `cwd`. */
export function callClaude(harness: Harness, tool: 'Grep' | 'Glob', args: Record<string, unknown>, cwd: string): Promise<ToolResult> {
  return harness.registry.execute(tool, args, { agent: { session: { header: { id: 'sess-cc', cwd } } } })
}

/** A result's page with its spill's locator named apart (`<spill>`), and the spill's text. */
export function answerWithSpill(result: ToolResult): { content: string; spill: string | undefined } {
  const locator = /stored at: (\S+)\. Use /.exec(String(result.content))?.[1]
  return {
    content: locator === undefined ? String(result.content) : String(result.content).replaceAll(locator, '<spill>'),
    spill: locator === undefined ? undefined : readSpill(locator),
  }
}

/** A streamed result equals the whole read's: page and spill (locators apart), whether it saved, and its value. */
export function expectSameAnswer(got: ToolResult, want: ToolResult): void {
  const [mine, theirs] = [answerWithSpill(got), answerWithSpill(want)]
  expect(mine).toEqual(theirs)
  expect(mine.spill === undefined).toBe(!String(want.content).includes('stored at'))
  expect(got.value).toEqual(want.value)
}
