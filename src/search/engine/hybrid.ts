/**
 * Hybrid candidates: the keyword matches and the nearest documents by vector, fused by a weighted sum of
 * normalized scores (docs/decisions.md, issue 12):
 *   (1 − ratio) × keyword score + ratio × vector score,
 * the keyword score being the share of query words matched × BM25 relative to the best match (0 to 1), the
 * vector score the cosine min-max normalized over the neighbours (0 to 1); a list a document is not in adds 0.
 * Vector neighbours are taken among documents passing the filters, so the filters, facets, sorts and paging of
 * the search plan apply to the fused set as to keyword candidates.
 *
 * Over shards, both normalizations are the whole index's: each shard first reports what they need (`hybridNormsPart`:
 * its best keyword score, its neighbours' similarities), the caller combines them (`combineHybridNorms`), and every
 * shard then fuses with the combined `HybridNorms`, so its fused scores are the ones one index would compute.
 */
import { compareStrings } from './columns';
import type { TypoReport } from './expansions';
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
  /** The whole index's normalization, when this index is one shard of several (else its own). */
  norms?: HybridNorms;
}

/** What a hybrid search normalizes by: the best keyword score and the range of the nearest documents' similarities. */
export interface HybridNorms {
  /** The highest keyword score (BM25 with priors, before the share of words matched) of any keyword match. */
  keywordBest: number;
  /** The highest and lowest similarity among the `VECTOR_CANDIDATES` nearest documents passing the filters. */
  vectorBest: number;
  vectorWorst: number;
  /** The id of the last of them (documents as similar as it come by id: the later ones are not among them). */
  lastNeighbour: string;
}

/** One shard's contribution to `HybridNorms`: its best keyword score and its nearest documents' similarities. */
export interface HybridNormsPart {
  keywordBest: number;
  /** The shard's nearest documents passing the filters, nearest first. */
  nearest: Array<{ id: string; score: number }>;
  /** Nothing here matched the query's words as typed (the keyword score is of the relaxed query). */
  relaxed: boolean;
  /** The typo expansions kept per query word (`settleParts`). */
  typoReport?: TypoReport;
}

/** The fused candidates of `keyword` (the keyword matches; absent without query words or at ratio 1) and the vector neighbours. */
export function hybridCandidates(
  state: IndexState,
  keyword: Candidates | undefined,
  hybrid: HybridQuery,
  filters: CompiledFilter[],
): Candidates {
  const { norms } = hybrid;
  // Over shards: this shard's neighbours among the whole index's nearest.
  const neighbours = nearestNeighbours(state, hybrid, filters).filter(
    ({ key, score }) => !norms || isNeighbour(norms, state.ids[key], score),
  );
  const keywordBest = norms?.keywordBest ?? keyword?.keywordBest?.() ?? 0;
  const keywordScore = (ord: number) => keyword?.keywordScore?.(ord, keywordBest) ?? 0;
  const range = norms && { best: norms.vectorBest, worst: norms.vectorWorst };
  // Fused scores computed once per candidate, read by ordinal while ordering.
  const fused = new Float64Array(state.ids.length);
  const ords: number[] = [];
  blendScores(
    keyword?.ords ?? [],
    keywordScore,
    neighbours,
    hybrid.ratio,
    (ord, score) => {
      ords.push(ord);
      fused[ord] = score;
    },
    range,
  );
  const keywordOrder = keyword?.relevance;
  const keywordKey = keyword?.mergeKey;
  return {
    ords: Int32Array.from(ords),
    relevance: (a, b) => fused[b] - fused[a] || (keywordOrder?.(a, b) ?? 0) || compareStrings(state.ids[a], state.ids[b]),
    mergeKey: {
      order: ['desc', ...(keywordKey?.order ?? ['asc'])],
      key: (ord) => [fused[ord], ...(keywordKey ? keywordKey.key(ord) : [state.ids[ord]])],
    },
    done: () => keyword?.done(),
  };
}

/** The `VECTOR_CANDIDATES` live documents passing the filters nearest to the query vector, by ordinal, nearest first. */
export function nearestNeighbours(state: IndexState, hybrid: HybridQuery, filters: CompiledFilter[]): Array<ScoredCandidate<number>> {
  const neighbours: Array<ScoredCandidate<number>> = [];
  const found = hybrid.vectors.search(hybrid.vector, VECTOR_CANDIDATES, (id) => {
    const ord = state.ordOf.get(id);
    return ord !== undefined && isAlive(state, ord) && filters.every((filter) => filter.accepts(ord));
  });
  for (const { id, score } of found) {
    const ord = state.ordOf.get(id);
    if (ord !== undefined) neighbours.push({ key: ord, score });
  }
  return neighbours;
}

/**
 * The whole index's `HybridNorms` from every shard's part: the best keyword score of the parts asked (the ones that
 * will answer strictly bring nothing), and the range of the `VECTOR_CANDIDATES` best similarities of all shards.
 */
export function combineHybridNorms(parts: HybridNormsPart[], strict: ReadonlySet<number>): HybridNorms {
  const keywordBest = Math.max(0, ...parts.map((part, i) => (strict.has(i) ? 0 : part.keywordBest)));
  const nearest = parts
    .flatMap((part) => part.nearest)
    .sort((a, b) => b.score - a.score || compareStrings(a.id, b.id))
    .slice(0, VECTOR_CANDIDATES);
  const last = nearest[nearest.length - 1];
  return { keywordBest, vectorBest: nearest[0]?.score ?? 0, vectorWorst: last?.score ?? 0, lastNeighbour: last?.id ?? '' };
}

/** Whether a shard's neighbour is among the whole index's nearest `VECTOR_CANDIDATES` (ordered as `VectorIndex.search` orders). */
function isNeighbour(norms: HybridNorms, id: string, score: number): boolean {
  return score > norms.vectorWorst || (score === norms.vectorWorst && compareStrings(id, norms.lastNeighbour) <= 0);
}

/** A candidate of one ranking (an ordinal, a document id) and its score there. */
export interface ScoredCandidate<K> {
  key: K;
  score: number;
}

/**
 * The fusion of a hybrid search, in one place for the engine and for a merger of shard answers: each candidate of
 * either list scores (1 − ratio) × its keyword score (0 to 1, as given) + ratio × its vector similarity min-max
 * normalized over `vector` (0 to 1; over `range` when given: the whole index's, for a shard); a list a candidate is
 * not in adds 0. `fused` receives each candidate once, the keyword candidates first, in their order.
 */
export function blendScores<K>(
  keyword: Iterable<K>,
  keywordScore: (key: K) => number,
  vector: ReadonlyArray<ScoredCandidate<K>>,
  ratio: number,
  fused: (key: K, score: number) => void,
  range?: { best: number; worst: number },
): void {
  let best = range?.best ?? -Infinity;
  let worst = range?.worst ?? Infinity;
  if (!range) {
    for (const { score } of vector) {
      best = Math.max(best, score);
      worst = Math.min(worst, score);
    }
  }
  const vectorScore = new Map<K, number>();
  for (const { key, score } of vector) vectorScore.set(key, best > worst ? (score - worst) / (best - worst) : 1);
  for (const key of keyword) {
    fused(key, (1 - ratio) * keywordScore(key) + ratio * (vectorScore.get(key) ?? 0));
    vectorScore.delete(key);
  }
  for (const [key, score] of vectorScore) fused(key, ratio * score);
}
