// Every path a package.json `exports` promises loads from the build and carries exactly the runtime
// names its src/index.ts declares (STYLE.md: "A test loads every path in each package.json exports").
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const packagesDir = fileURLToPath(new URL('../../', import.meta.url))

interface PackageJson {
  name: string
  exports?: Record<string, string | Record<string, string>>
}

/** The runtime (non-type) names a module's source exports; `export *` cannot be checked and fails. */
function runtimeExports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const names: string[] = []
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue
      const clause = statement.exportClause
      if (clause === undefined || !ts.isNamedExports(clause))
        throw new Error(`${file}: name each export; "export *" hides the public surface`)
      for (const element of clause.elements) if (!element.isTypeOnly) names.push(element.name.text)
      continue
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined
    if (modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) !== true) continue
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) names.push(declaration.name.getText(source))
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined) {
      names.push(statement.name.text)
    }
  }
  return names.sort()
}

/** Each `exports` entry's built runtime file: the `default` condition, or the entry itself when it is a string. */
function exportTargets(pkg: PackageJson): [string, string][] {
  return Object.entries(pkg.exports ?? {}).map(([subpath, target]) => [subpath, typeof target === 'string' ? target : target.default!])
}

const packages = readdirSync(packagesDir)
  .filter((dir) => existsSync(join(packagesDir, dir, 'package.json')))
  .map((dir) => ({
    dir: join(packagesDir, dir),
    pkg: JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8')) as PackageJson,
  }))

/**
 * What plain Node (not vitest, whose aliases point at src/) makes of each built entry: its export names,
 * and whether importing the package by name reaches the same module. One process for every entry.
 */
function loadInNode(entries: { name: string; subpath: string; file: string }[]): Record<string, { keys: string[]; sameByName: boolean }> {
  const script = `
    const entries = JSON.parse(process.argv[1])
    const out = {}
    for (const { name, subpath, url } of entries) {
      const byFile = await import(url)
      const byName = await import(subpath === '.' ? name : name + subpath.slice(1))
      out[name + ' ' + subpath] = { keys: Object.keys(byFile).sort(), sameByName: byFile === byName }
    }
    process.stdout.write(JSON.stringify(out))
  `
  const payload = JSON.stringify(entries.map((e) => ({ ...e, url: pathToFileURL(e.file).href })))
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, payload], { cwd: packagesDir, encoding: 'utf8' }),
  ) as Record<string, { keys: string[]; sameByName: boolean }>
}

const entries = packages.flatMap(({ dir, pkg }) =>
  exportTargets(pkg).map(([subpath, target]) => ({
    name: pkg.name,
    subpath,
    file: join(dir, target),
    // The root entry mirrors src/index.ts; a subpath mirrors the source file its build came from.
    source: subpath === '.' ? join(dir, 'src', 'index.ts') : join(dir, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  })),
)

describe('package exports', () => {
  it('finds the workspace packages, each with an exports map', () => {
    expect(packages.map((p) => p.pkg.name)).toEqual(
      expect.arrayContaining(['@dsh/core', '@dsh/bash-local', '@dsh/spill-local', '@dsh/tool-fs-search', '@dsh/cli']),
    )
    for (const { pkg } of packages) expect(exportTargets(pkg).length, `${pkg.name} has no exports`).toBeGreaterThan(0)
  })

  it('every exports entry loads from the build with the names its source declares', () => {
    const missing = entries.filter((e) => !existsSync(e.file)).map((e) => e.file)
    expect(missing, 'built files are missing: run `npx tsc -b` before this test').toEqual([])
    const loaded = loadInNode(entries)
    for (const entry of entries) {
      const key = `${entry.name} ${entry.subpath}`
      expect(loaded[key]?.keys, `${key} (${entry.file})`).toEqual(runtimeExports(entry.source))
      expect(loaded[key]?.sameByName, `${key}: importing by package name reaches another file`).toBe(true)
    }
  })
})
