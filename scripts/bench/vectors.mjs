// Vector search figures for the in-process benchmark: 384-dimension vectors with clustered structure (no real
// embedding weights are reachable offline), one per catalogue document, searched through the engine's VectorIndex
// (binary codes, int8 rerank) and compared with exact float32 cosine by brute force.

export const DIMENSIONS = 384;
/** Topics of the synthetic catalogue; a document is its topic's centre plus noise (cosine to it ≈ 0.6). */
const CLUSTERS = 1000;
const NOISE = 0.8;

/** A seeded PRNG (mulberry32), so every run searches the same vectors. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(next) {
  return Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
}

function normalize(vector) {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

function around(centre, next) {
  const v = new Float32Array(DIMENSIONS);
  for (let i = 0; i < DIMENSIONS; i++) v[i] = centre[i] + (NOISE * gaussian(next)) / Math.sqrt(DIMENSIONS);
  return normalize(v);
}

/** `count` clustered unit vectors and `queries` query vectors near random documents' topics. */
export function clusteredVectors(count, queries, seed = 7) {
  const next = random(seed);
  const centres = Array.from({ length: CLUSTERS }, () => normalize(Float32Array.from({ length: DIMENSIONS }, () => gaussian(next))));
  const vectors = Array.from({ length: count }, () => around(centres[Math.floor(next() * CLUSTERS)], next));
  const queryVectors = Array.from({ length: queries }, () => around(centres[Math.floor(next() * CLUSTERS)], next));
  return { vectors, queries: queryVectors };
}

/** Ordinals of the k nearest vectors by exact float32 cosine (the vectors are unit length: a dot product). */
export function exactNearest(vectors, query, k) {
  const scores = new Float32Array(vectors.length);
  for (let d = 0; d < vectors.length; d++) {
    const v = vectors[d];
    let dot = 0;
    for (let i = 0; i < DIMENSIONS; i++) dot += v[i] * query[i];
    scores[d] = dot;
  }
  const top = [];
  for (let d = 0; d < scores.length; d++) {
    if (top.length < k || scores[d] > scores[top[top.length - 1]]) {
      top.push(d);
      top.sort((a, b) => scores[b] - scores[a]);
      if (top.length > k) top.pop();
    }
  }
  return top;
}

/** Share of the exact top-k found by the approximate top-k, averaged over queries. */
export function recallAtK(exact, approximate) {
  let found = 0;
  let total = 0;
  exact.forEach((ids, q) => {
    const got = new Set(approximate[q]);
    for (const id of ids) if (got.has(id)) found += 1;
    total += ids.length;
  });
  return found / total;
}
