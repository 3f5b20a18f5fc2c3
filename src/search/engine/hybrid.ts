/**
 * Hybrid candidates: the keyword matches and the nearest documents by vector, fused by a weighted sum of
 * normalized scores (docs/decisions.md, issue 12):
 *   (1 − ratio) × keyword score + ratio × vector score,
 * the keyword score being the share of query words matched × BM25 relative to the best match (0 to 1), the
 * vector score the cosine min-max normalized over the neighbours (0 to 1); a list a document is not in adds 0.
 * Vector neighbours are taken among documents passing the filters, so the filters, facets, sorts and paging of
 * the search plan apply to the fused set as to keyword candidates.
 */
import { compareStrings } from './columns';
import type { CompiledFilter } from './filters';
import type { Candidates } from './search';
import { isAlive, type IndexState } from './state';
import type { VectorIndex } from './vectors';

/** Nearest documents by vector joining the candidates. */
export const VECTOR_CANDIDATES = 100;

/** The query vector of a hybrid search, the document vectors, and the weight of vector ranking (0 to 1). */
export interface HybridQuery {
  vectors: VectorIndex;
  vector: ArrayLike<number>;
  ratio: number;
}

/** The fused candidates of `keyword` (the keyword matches; absent without query words or at ratio 1) and the vector neighbours. */
export function hybridCandidates(
  state: IndexState,
  keyword: Candidates | undefined,
  hybrid: HybridQuery,
  filters: CompiledFilter[],
): Candidates {
  const neighbours: Array<ScoredCandidate<number>> = [];
  const found = hybrid.vectors.search(hybrid.vector, VECTOR_CANDIDATES, (id) => {
    const ord = state.ordOf.get(id);
    return ord !== undefined && isAlive(state, ord) && filters.every((filter) => filter.accepts(ord));
  });
  for (const { id, score } of found) {
    const ord = state.ordOf.get(id);
    if (ord !== undefined) neighbours.push({ key: ord, score });
  }
  // Fused scores computed once per candidate, read by ordinal while ordering.
  const fused = new Float64Array(state.ids.length);
  const ords: number[] = [];
  blendScores(keyword?.ords ?? [], keyword?.keywordScore ?? (() => 0), neighbours, hybrid.ratio, (ord, score) => {
    ords.push(ord);
    fused[ord] = score;
  });
  const keywordOrder = keyword?.relevance;
  const keywordKey = keyword?.mergeKey;
  return {
    ords,
    relevance: (a, b) => fused[b] - fused[a] || (keywordOrder?.(a, b) ?? 0) || compareStrings(state.ids[a], state.ids[b]),
    mergeKey: {
      order: ['desc', ...(keywordKey?.order ?? ['asc'])],
      key: (ord) => [fused[ord], ...(keywordKey ? keywordKey.key(ord) : [state.ids[ord]])],
    },
    done: () => keyword?.done(),
  };
}

/** A candidate of one ranking (an ordinal, a document id) and its score there. */
export interface ScoredCandidate<K> {
  key: K;
  score: number;
}

/**
 * The fusion of a hybrid search, in one place for the engine and for a merger of shard answers: each candidate of
 * either list scores (1 − ratio) × its keyword score (0 to 1, as given) + ratio × its vector similarity min-max
 * normalized over `vector` (0 to 1); a list a candidate is not in adds 0. `fused` receives each candidate once,
 * the keyword candidates first, in their order.
 */
export function blendScores<K>(
  keyword: Iterable<K>,
  keywordScore: (key: K) => number,
  vector: ReadonlyArray<ScoredCandidate<K>>,
  ratio: number,
  fused: (key: K, score: number) => void,
): void {
  let best = -Infinity;
  let worst = Infinity;
  for (const { score } of vector) {
    best = Math.max(best, score);
    worst = Math.min(worst, score);
  }
  const vectorScore = new Map<K, number>();
  for (const { key, score } of vector) vectorScore.set(key, best > worst ? (score - worst) / (best - worst) : 1);
  for (const key of keyword) {
    fused(key, (1 - ratio) * keywordScore(key) + ratio * (vectorScore.get(key) ?? 0));
    vectorScore.delete(key);
  }
  for (const [key, score] of vectorScore) fused(key, ratio * score);
}
