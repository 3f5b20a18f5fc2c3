import { describe, expect, it } from 'vitest';
import { blendScores, VectorIndex } from '../../src/search/engine';
import { RERANK_CANDIDATES } from '../../src/search/engine/vectors';

/** A deterministic pseudo-random unit vector per seed. */
function vector(seed: number, dimensions = 384): Float32Array {
  let state = seed * 2654435761;
  return Float32Array.from({ length: dimensions }, () => {
    state = (Math.imul(state, 1103515245) + 12345) | 0;
    return (state >>> 8) / 2 ** 23 - 1;
  });
}

function near(base: Float32Array, amount: number, seed: number): Float32Array {
  const noise = vector(seed, base.length);
  return base.map((x, i) => x + amount * noise[i]);
}

describe('VectorIndex', () => {
  it('finds the nearest vectors by cosine, best first, and scores them', () => {
    const index = new VectorIndex(384);
    const base = vector(1);
    index.add('far', vector(2));
    index.add('close', near(base, 0.1, 3));
    index.add('closer', near(base, 0.01, 4));
    for (let i = 0; i < 500; i++) index.add(`other-${i}`, vector(100 + i));
    const hits = index.search(base, 3);
    expect(hits.slice(0, 2).map((h) => h.id)).toEqual(['closer', 'close']);
    expect(hits[0].score).toBeGreaterThan(0.99);
    expect(hits[0].score).toBeLessThanOrEqual(1.01);
  });

  it('replaces and removes vectors, asks the filter in distance order, and survives serialize and load', () => {
    const index = new VectorIndex(384);
    const base = vector(1);
    for (let i = 0; i < 300; i++) index.add(`d${i}`, near(base, i / 20, 10 + i));
    expect(index.search(base, 1)[0].id).toBe('d0');
    index.add('d0', vector(9)); // replaced far away
    index.remove('d1');
    expect(index.size).toBe(299);
    expect(index.search(base, 2).map((h) => h.id)).toEqual(['d2', 'd3']);
    // A filter that lets only odd documents through still answers the nearest passing ones.
    expect(index.search(base, 2, (id) => Number(id.slice(1)) % 2 === 1).map((h) => h.id)).toEqual(['d3', 'd5']);

    const loaded = VectorIndex.load(index.serialize().slice());
    expect(loaded.size).toBe(299);
    expect(loaded.search(base, 10)).toEqual(index.search(base, 10));
    expect(() => index.add('x', vector(1, 10))).toThrow('a vector of 10 dimensions in an index of 384');
  });

  it('compacts dead entries away without changing answers', () => {
    const index = new VectorIndex(64);
    for (let i = 0; i < 5000; i++) index.add(`d${i}`, vector(i, 64));
    const query = vector(42, 64);
    for (let i = 0; i < 4000; i++) if (i !== 42) index.remove(`d${i}`);
    expect(index.size).toBe(1001);
    expect(index.ids.length).toBeLessThan(5000);
    expect(index.search(query, 1)[0].id).toBe('d42');
  });

  it('reranks the documents nearest by the Hamming distance of their whole binary codes, ties by insertion order', () => {
    const index = new VectorIndex(384);
    for (let i = 0; i < 3000; i++) index.add(`d${i}`, vector(1000 + i));
    // The query is a document's own vector, so its binary code is that document's.
    const query = vector(1007);
    const { words, bits, ids } = index;
    const distance = (ord: number, upTo: number) => {
      let d = 0;
      for (let w = 0; w < upTo; w++) for (let x = bits[ord * words + w] ^ bits[7 * words + w]; x; x &= x - 1) d++;
      return d;
    };
    const byDistance = (upTo: number) => (a: number, b: number) => distance(a, upTo) - distance(b, upTo) || a - b;
    // The coarse pass keeps the 2,000 nearest by the first 128 bits; the whole codes pick the reranked ones among them.
    const coarse = ids
      .map((_, ord) => ord)
      .sort(byDistance(4))
      .slice(0, 2000);
    const reranked = coarse.sort(byDistance(words)).slice(0, RERANK_CANDIDATES);
    const hits = index.search(query, RERANK_CANDIDATES);
    expect(hits.map((hit) => hit.id).sort()).toEqual(reranked.map((ord) => ids[ord]).sort());
    expect(hits[0].id).toBe('d7');
  });
});

describe('blendScores', () => {
  it('weighs keyword scores and min-max normalized vector similarities by the ratio; a missing list adds 0', () => {
    const fused: Array<[string, number]> = [];
    const keyword = new Map([
      ['both', 0.5],
      ['keyword-only', 1],
    ]);
    const vector = [
      { key: 'vector-only', score: 0.9 },
      { key: 'both', score: 0.7 },
      { key: 'farthest', score: 0.5 },
    ];
    blendScores(
      keyword.keys(),
      (key) => keyword.get(key) ?? 0,
      vector,
      0.25,
      (key, score) => fused.push([key, score]),
    );
    expect(fused).toEqual([
      ['both', 0.75 * 0.5 + 0.25 * 0.5],
      ['keyword-only', 0.75],
      ['vector-only', 0.25],
      ['farthest', 0],
    ]);
  });
});
