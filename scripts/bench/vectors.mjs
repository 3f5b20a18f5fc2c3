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

const QUERIES = 200;

function timings(run, count) {
  const ms = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    run(i);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { count, p50: ms[Math.ceil(count / 2) - 1], p99: ms[Math.ceil(count * 0.99) - 1] };
}

/**
 * Vector-only and hybrid search on the whole catalogue: one clustered 384-d vector per document in the engine's
 * VectorIndex beside the loaded keyword `index`. Answers build time, memory (via `memoryAfterGc`), serialized size,
 * p50/p99 of vector-only search (and of exact float32 brute force), recall@10 against exact float32 cosine, the share
 * of queries whose exact nearest neighbour is in the top 10, and p50/p99 of hybrid keyword + vector searches.
 */
export async function measureVectors({ VectorIndex, index, ids, keywordRequest, memoryAfterGc, iterations }) {
  const { vectors, queries } = clusteredVectors(ids.length, QUERIES);
  const before = await memoryAfterGc();
  const buildStart = process.hrtime.bigint();
  const vectorIndex = new VectorIndex(DIMENSIONS);
  ids.forEach((id, i) => vectorIndex.add(id, vectors[i]));
  const buildSeconds = Number(process.hrtime.bigint() - buildStart) / 1e9;
  const after = await memoryAfterGc();
  const memoryMB = (after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 2 ** 20;
  const serializedMB = vectorIndex.serialize().byteLength / 2 ** 20;

  const exact = queries.map((q) => exactNearest(vectors, q, 10).map((d) => ids[d]));
  const approximate = queries.map((q) => vectorIndex.search(q, 10).map((hit) => hit.id));
  const nearestKept = exact.filter((top, i) => approximate[i].includes(top[0])).length / queries.length;

  for (let i = 0; i < 50; i++) vectorIndex.search(queries[i % QUERIES], 10);
  const vectorOnly = timings((i) => vectorIndex.search(queries[i % QUERIES], 10), iterations);
  const bruteForce = timings((i) => exactNearest(vectors, queries[i % QUERIES], 10), Math.min(iterations, QUERIES));
  const hybridRequest = (i) => [
    { page: 1, rows: 10, ...keywordRequest(i) },
    { vectors: vectorIndex, vector: queries[i % QUERIES], ratio: 0.5 },
  ];
  for (let i = 0; i < 50; i++) index.search(...hybridRequest(i));
  const hybrid = timings((i) => index.search(...hybridRequest(i)), iterations);
  const keyword = timings((i) => index.search(hybridRequest(i)[0]), iterations);
  return {
    documents: ids.length,
    dimensions: DIMENSIONS,
    buildSeconds,
    memoryMB,
    serializedMB,
    recallAt10: recallAtK(exact, approximate),
    nearestKept,
    vectorOnly,
    bruteForce,
    hybrid,
    keyword,
  };
}
