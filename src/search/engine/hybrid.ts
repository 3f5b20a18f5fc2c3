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
  const neighbours = hybrid.vectors.search(hybrid.vector, VECTOR_CANDIDATES, (id) => {
    const ord = state.ordOf.get(id);
    return ord !== undefined && isAlive(state, ord) && filters.every((filter) => filter.accepts(ord));
  });
  const best = neighbours[0]?.score ?? 0;
  const worst = neighbours[neighbours.length - 1]?.score ?? 0;
  const vectorScore = new Map<number, number>();
  for (const { id, score } of neighbours) {
    const ord = state.ordOf.get(id);
    if (ord !== undefined) vectorScore.set(ord, best > worst ? (score - worst) / (best - worst) : 1);
  }

  // Fused scores computed once per candidate, read by ordinal while ordering; `member` marks candidates.
  const fused = new Float64Array(state.ids.length);
  const member = new Uint8Array(state.ids.length);
  const ords = keyword ? keyword.ords.slice() : [];
  const keywordWeight = 1 - hybrid.ratio;
  for (const ord of ords) {
    member[ord] = 1;
    fused[ord] = keyword?.keywordScore ? keywordWeight * keyword.keywordScore(ord) : 0;
  }
  for (const [ord, score] of vectorScore) {
    if (!member[ord]) ords.push(ord);
    fused[ord] += hybrid.ratio * score;
  }
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
