/**
 * mulberry32: a small, fast, seeded pseudo-random generator, for what must come out the same from the
 * same seed (the demo journal, the benchmarks' synthetic journals, the model-based tests' events). Not
 * for anything secret. Returns numbers in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
