// Every citation of docs/design.md in the repository names a heading that exists, design.md's contents
// list every heading, links into the guide and performance.md land on a heading, and nothing cites a
// document a clone does not have.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const SKIP = new Set(['node_modules', 'dist', 'coverage', '.git'])

/** Every text file the project writes: sources, tests, docs, scripts, configs. */
function projectFiles(dir = repo): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return projectFiles(path)
    return /\.(ts|js|mjs|md|json)$/.test(name) && name !== 'package-lock.json' ? [path] : []
  })
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a page's headings, in page order. */
const headingsOf = (markdown: string) => [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!))

const design = readFileSync(join(repo, 'docs', 'design.md'), 'utf8')
const anchors = new Set(headingsOf(design))
const files = projectFiles().map((path) => ({ path: relative(repo, path), text: readFileSync(path, 'utf8') }))

// How the planning documents outside the repository were cited; spelled in pieces so this file is
// not itself a citation of them.
const OUTSIDE_CITATION = new RegExp(['amend' + 'ment', 'se' + 'ed 00', 'DES' + 'IGN'].join('|'))

describe('docs/design.md citations', () => {
  it('name headings that exist', () => {
    const cited = files.flatMap(({ path, text }) => [...text.matchAll(/design\.md#([a-z0-9-]+)/g)].map((m) => ({ path, anchor: m[1]! })))
    expect(cited.length).toBeGreaterThan(10)
    expect(cited.filter(({ anchor }) => !anchors.has(anchor))).toEqual([])
  })

  it('include every heading in the contents, once, and the contents link to nothing else', () => {
    const contents = design.slice(design.indexOf('## Contents'), design.indexOf('\n## ', design.indexOf('## Contents') + 1))
    const listed = [...contents.matchAll(/\]\(#([a-z0-9-]+)\)/g)].map((m) => m[1]!)
    const sections = headingsOf(design).filter((anchor) => anchor !== 'design' && anchor !== 'contents')
    expect(listed.toSorted()).toEqual(sections.toSorted())
  })

  it('within design.md name headings that exist', () => {
    const local = [...design.matchAll(/\]\(#([a-z0-9-]+)\)/g)].map((m) => m[1]!)
    expect(local.length).toBeGreaterThan(10)
    expect(local.filter((anchor) => !anchors.has(anchor))).toEqual([])
  })

  it('are the only design references in packages: nothing cites a document a clone lacks', () => {
    const stale = files
      .filter(({ path }) => path.startsWith('packages/') && !path.endsWith('design-links.spec.ts'))
      .flatMap(({ path, text }) => text.split('\n').map((line, i) => ({ where: `${path}:${i + 1}`, line })))
      .filter(({ line }) => OUTSIDE_CITATION.test(line))
    expect(stale).toEqual([])
  })
})

describe('links into docs/guide.md and docs/performance.md', () => {
  it('name headings that exist', () => {
    const pages = ['guide', 'performance'].map((page) => ({
      page,
      anchors: new Set(headingsOf(readFileSync(join(repo, 'docs', `${page}.md`), 'utf8'))),
    }))
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(/\b(guide|performance)\.md#([a-z0-9-]+)/g)].map((m) => ({ path, page: m[1]!, anchor: m[2]! })),
    )
    expect(cited.length).toBeGreaterThan(3)
    expect(cited.filter(({ page, anchor }) => !pages.find((p) => p.page === page)!.anchors.has(anchor))).toEqual([])
  })
})
