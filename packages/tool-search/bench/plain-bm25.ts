// The benchmark's baseline: plain BM25 (k1 1.2, b 0.75) over a tool's name words and description, one field.
import type { SearchableTool } from '../src/rank.js'

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
/** getFilmDetails and get_film_details are the words get, film, details. */
const nameWords = (name: string) => words(name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2'))

/** Plain BM25 over the tools: returns the names of the best `maxResults` for a query, highest score first. */
export function createPlainBm25(tools: readonly SearchableTool[]): (query: string, maxResults: number) => string[] {
  const docs = tools.map((tool) => [...nameWords(tool.name), ...words(tool.description)])
  const averageLength = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length
  const counts = docs.map((doc) => doc.reduce((map, word) => map.set(word, (map.get(word) ?? 0) + 1), new Map<string, number>()))
  const documentFrequency = new Map<string, number>()
  for (const count of counts) for (const word of count.keys()) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1)
  return (query, maxResults) => {
    const scores = new Map<number, number>()
    for (const term of words(query)) {
      const df = documentFrequency.get(term) ?? 0
      if (df === 0) continue
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))
      counts.forEach((count, at) => {
        const tf = count.get(term) ?? 0
        if (tf === 0) return
        const norm = tf + 1.2 * (1 - 0.75 + (0.75 * docs[at]!.length) / averageLength)
        scores.set(at, (scores.get(at) ?? 0) + (idf * tf * 2.2) / norm)
      })
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || (tools[a[0]]!.name < tools[b[0]]!.name ? -1 : 1))
      .slice(0, maxResults)
      .map(([at]) => tools[at]!.name)
  }
}
