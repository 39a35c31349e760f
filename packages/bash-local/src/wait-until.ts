/**
 * Polls `done` with growing pauses (1, 2, 4 … ms) until it holds or `withinMs` passes; resolves to
 * whether it held. For waits on the kernel that have no event to listen to.
 */
export async function waitUntil(done: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs
  for (let pause = 1; !done(); pause = Math.min(pause * 2, 32)) {
    if (performance.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
  return true
}
