// The grep tool (seed 000): run the script through the bash seam, classify, parse, retain once, spill.
import { defineTool, TextRetainer, type ToolExecContext, type ToolOutput } from '@dsh/core'
import { GrepArgs } from './args.js'
import { displayFrom } from './display-path.js'
import { escapeLineControls } from './escape-controls.js'
import { searchExclusions } from './access.js'
import { assertGrepRan, partialSearchErrors } from './grep-classify.js'
import { buildGrepCommand, splitGrepOutput } from './grep-command.js'
import { formatGrepPage, type GrepNotes } from './grep-format.js'
import { parseRgOutput, type RgOutput } from './grep-parse.js'
import { groupByFile, previewLine, retainGrepMatches, type GrepMatch } from './grep-retain.js'
import { GREP_DESCRIPTION } from './prompts.js'
import { listGaps, runSearchCommand, TIMEOUT_BACKSTOP_MS, type SearchContext } from './search-core.js'
import { saveFormattedResult } from './spill.js'

/** Runs one grep call end to end. */
export async function executeGrep(ctx: SearchContext, args: GrepArgs, exec: ToolExecContext): Promise<ToolOutput> {
  const target = args.path ?? '.'
  const excludes = await searchExclusions(ctx.access(), target, exec)
  const command = buildGrepCommand(ctx.rg, { pattern: args.pattern, target, include: args.include, excludes }, ctx.config.grepMaxLineBytes)
  const { run, workdir } = await runSearchCommand(ctx, exec, command)
  const call = { workdir, target, include: args.include }
  assertGrepRan(run, call)
  const { searched, base, body } = splitGrepOutput(run.stdout.text, workdir, target)
  const output = parseRgOutput(body)
  const incomplete = partialSearchErrors(run, output, searched, call)
  const shown = displayFrom(workdir, base)
  const { matches, escaped } = toGrepMatches(output, shown, ctx.config.grepMaxLineBytes)
  const budget = {
    maxMatches: ctx.config.grepMaxMatches,
    maxBytes: ctx.config.inlineMaxBytes,
    maxPerFile: ctx.config.grepMaxMatchesPerFile,
    maxLineBytes: ctx.config.grepMaxLineBytes,
  }
  const retained = retainGrepMatches(matches, budget)
  const notes: GrepNotes = {
    incomplete,
    stderrCut: run.stderr.truncated,
    binary: output.binaryFiles.map(shown),
    binaryStopped: output.binaryStopped.map(shown),
    lossy: matches.filter((m) => m.line.includes('\ufffd') || m.path.includes('\ufffd')).length,
    escaped,
  }
  // The complete result is grouped and formatted only when it is saved.
  const complete = () => ({ files: groupByFile(matches), kept: matches.length, total: matches.length, truncated: false, cutFiles: [] })
  const spill = retained.truncated
    ? await saveFormattedResult(ctx.spillStore(), exec, () => `${formatGrepPage(complete(), undefined, notes)}\n`, 'grep-results.txt')
    : undefined
  return {
    content: formatGrepPage(retained, spill, notes),
    value: { matches, total: matches.length, truncated: retained.truncated, incomplete: listGaps(incomplete) },
    ...(spill?.saved === true ? { spilledTo: spill.locator } : {}),
  }
}

/**
 * Display paths, previews with control characters escaped, and the deterministic order: path, then
 * line (amendment 10). rg prints a file's lines in order but files in any order, so files are sorted
 * and lines only when they must be.
 */
function toGrepMatches(output: RgOutput, shown: (file: string) => string, maxLineBytes: number): { matches: GrepMatch[]; escaped: number } {
  const preview = new TextRetainer({ kind: 'head', maxBytes: maxLineBytes })
  const displayed = new Map<string, string>()
  const byFile = new Map<string, GrepMatch[]>()
  let escaped = 0
  for (const match of output.matches) {
    let file = displayed.get(match.path)
    if (file === undefined) displayed.set(match.path, (file = shown(match.path)))
    match.path = file
    // A UTF-16 unit is at most 3 UTF-8 bytes: shorter lines fit their budget without measuring.
    if (match.line.length * 3 > maxLineBytes) Object.assign(match, previewLine(match.line, match.lineCut, preview))
    // Escaped after the cut: the byte budget is the file's text, not its escapes.
    const line = escapeLineControls(match.line)
    if (line !== match.line) {
      match.line = line
      escaped += 1
    }
    let group = byFile.get(file)
    if (group === undefined) byFile.set(file, (group = []))
    group.push(match)
  }
  // Two raw paths can display the same (lossy decoding); keying by the display merges them.
  const matches = [...byFile.keys()].sort().flatMap((file) => {
    const matches = byFile.get(file)!
    return inLineOrder(matches) ? matches : matches.sort((a, b) => a.lineNumber - b.lineNumber)
  })
  return { matches, escaped }
}

function inLineOrder(matches: readonly GrepMatch[]): boolean {
  return matches.every((m, i) => i === 0 || matches[i - 1]!.lineNumber <= m.lineNumber)
}

/** The grep tool: read-only and safe to run beside other searches (amendment 14). */
export function createGrepTool(ctx: SearchContext) {
  return defineTool({
    name: 'grep',
    description: GREP_DESCRIPTION,
    parameters: GrepArgs,
    timeoutMs: ctx.config.timeoutMs + TIMEOUT_BACKSTOP_MS,
    isReadOnly: true,
    isConcurrencySafe: true,
    searchHint: 'search file contents regex ripgrep find text',
    execute: (args, exec) => executeGrep(ctx, args, exec),
    presentCall: (args) => ({ card: 'generic', kind: 'search', title: `grep ${args.pattern}`, ...(args.path === undefined ? {} : { detail: args.path }) }),
  })
}
