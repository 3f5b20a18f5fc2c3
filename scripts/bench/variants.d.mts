// Types of variants.mjs for the TypeScript callers (the seeded shard interleavings).
/** A small seeded generator (mulberry32): the same seed gives the same numbers, in [0, 1). */
export function random(seed: number): () => number;
