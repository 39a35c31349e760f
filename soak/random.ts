// The soak's seeded PRNG: the same seed makes the same tree and, per worker, the same calls.

/** Draws from one seeded stream. */
export interface Random {
  /** In [0, 1). */
  float(): number
  /** An integer in [min, max]. */
  int(min: number, max: number): number
  pick<T>(items: readonly T[]): T
  chance(probability: number): boolean
}

/** A mulberry32 stream: small, fast, and the same on every machine. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0
  const float = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(float() * (max - min + 1))
  return {
    float,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list')
      return items[int(0, items.length - 1)]!
    },
    chance: (probability) => float() < probability,
  }
}
