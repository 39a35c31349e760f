// Claude Code's `glob` parameter: one glob or a list, planned as the dsh include is, without reopening ignored trees.
import { includeProblem, planInclude, type IncludePlan } from '../engine/grep/include.js'

/** Splits a glob list on whitespace and on commas outside braces (`*.{ts,tsx}` stays one glob). */
export function splitGlobList(value: string): string[] {
  const globs: string[] = []
  let depth = 0
  let current = ''
  for (const char of value) {
    if (char === '{') depth += 1
    else if (char === '}') depth = Math.max(0, depth - 1)
    if ((depth === 0 && char === ',') || /\s/.test(char)) {
      if (current !== '') globs.push(current)
      current = ''
    } else current += char
  }
  if (current !== '') globs.push(current)
  return globs
}

/** A glob that names files by name only (`*.ts`, `Makefile`): as a file type it never reopens an ignored directory. */
function isNameOnly(glob: string): boolean {
  return !glob.includes('/') && !glob.includes(':')
}

/**
 * Why a glob list cannot be honoured as asked, or undefined. Each positive glob passes the include's
 * checks; a list, or a glob with exclusions, holds only file-name globs, since a path-shaped glob is
 * honoured by narrowing the search to its directory, which one glob among others cannot be; an
 * exclusion (`!x`) is a glob too.
 */
export function globListProblem(value: string): string | undefined {
  const globs = splitGlobList(value)
  if (globs.length === 0) return 'glob must not be blank'
  const positive = globs.filter((glob) => !glob.startsWith('!'))
  for (const glob of globs) {
    if (!glob.startsWith('!')) {
      const problem = includeProblem(glob)
      if (problem !== undefined) return problem.replace(/^include/, 'glob')
    } else if (glob === '!' || glob.startsWith('!!')) return `glob ${JSON.stringify(glob)} must exclude one glob after its "!"`
  }
  if (globs.length > 1 && positive.some((glob) => !isNameOnly(glob))) {
    return `glob ${JSON.stringify(value)} mixes a path-shaped glob with others; a list may hold only file-name globs ("*.ts *.tsx", "!*.min.js"). Put the directory in path, or search it alone.`
  }
  return undefined
}

/**
 * Plans a validated glob list as rg filter arguments. One positive glob is the include's plan; with
 * `typed` (the call also gives `type`) a name glob becomes a --glob, since two file types would widen
 * the search instead of narrowing it. A list of name globs becomes one file type holding them all (or
 * --globs when typed); exclusions follow as negated --globs.
 */
export function planGlobList(value: string | undefined, typed: boolean): IncludePlan {
  if (value === undefined) return { args: [] }
  const globs = splitGlobList(value)
  const positive = globs.filter((glob) => !glob.startsWith('!'))
  const negative = globs.filter((glob) => glob.startsWith('!')).map((glob) => `--glob=${glob}`)
  if (globs.length === 1 && positive.length === 1) {
    const plan = planInclude(positive[0])
    if (!typed || !plan.args.some((arg) => arg.startsWith('--type-add='))) return plan
    return { ...plan, args: [`--glob=${positive[0]}`] }
  }
  const names = positive.map((glob) => glob.replace(/^(?:\*\*\/)+/, ''))
  const filter =
    names.length === 0
      ? []
      : typed
        ? names.map((name) => `--glob=${name}`)
        : [...names.map((name) => `--type-add=dshinclude:${name}`), '--type=dshinclude']
  return { args: [...filter, ...negative] }
}
