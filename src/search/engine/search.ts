/**
 * A search as a plan: validate the sort and filters, take the candidates (documents the keywords matched,
 * ranked, or every document), filter them while counting facets, then order and page what passes.
 * Work is proportional to the matching documents: text matches come from postings, filters and facet
 * counts from per-value document lists and per-document value ids.
 */
import { expand, typoKey, typoRanks, type TypoCutoffs, type TypoReport } from './expansions';
import { checkedFacetLimits, checkedFacetPaths, facetsOfEverything, filteredFacets, selectFacets, type FacetAnswer } from './facets';
import { applyFilters, compileFilters, filterEverything } from './filters';
import { hybridCandidates, nearestNeighbours, type HybridNormsPart, type HybridQuery } from './hybrid';
import { matchMarks, matchOf, matchPlan, release, type Covering } from './matching';
import { planQuery, type QueryPlan } from './query-plan';
import {
  feedingOrder,
  fieldValue,
  popcount,
  relevanceOrder,
  resolveSort,
  selectTop,
  slice,
  sortOrder,
  weightedLength,
  type Compare,
} from './ranking';
import type { SortSpec } from './plan';
import { liveOrds, type IndexState } from './state';
import type { EngineSearchResult, MergeKeyPart, SearchRequest } from './types';

/**
 * The documents a search starts from, with their relevance order. Keyword matching yields them
 * (`keywordCandidates`); filters, facets, sort and paging apply to whatever set arrives here.
 */
export interface Candidates {
  ords: Int32Array;
  /** Relevance order, best first; absent for a search without a query (feeding order). */
  relevance?: Compare;
  /** The first `k` of `ords` passing the filters by `relevance` (`selectTop` with it when absent). */
  top?(ords: Int32Array, k: number): number[];
  /** How well a keyword candidate matched, 0 to 1: the share of query words it matched × its BM25 score relative to `best`. */
  keywordScore?: (ord: number, best: number) => number;
  /** The best BM25 score among the keyword candidates (what `keywordScore` is relative to in one index). */
  keywordBest?(): number;
  /** `relevance` as a key per document, for merging shards' hits; absent with `relevance`. */
  mergeKey?: KeyOf;
  /** A term whose every document is among `ords` (matching.ts `Covering`). */
  covering?: Covering;
  /** Per ordinal, not 0 exactly for the documents of `ords` (`Filtered.marks`). */
  marks?: ArrayLike<number>;
  /** The query was relaxed: its words as typed matched nothing. */
  relaxed?: boolean;
  /** In a shard's part: the typo expansions it kept per query word (`TypoReport`). */
  typoReport?: TypoReport;
  /** Frees per-query memory once the search is answered. */
  done(): void;
}

/** A merge key per ordinal, and the direction of each of its parts. */
export interface KeyOf {
  order: Array<'asc' | 'desc'>;
  key(ord: number): MergeKeyPart[];
}

/**
 * How a shard answers its part of a sharded search so that it is its share of one index's answer; what the shards'
 * first parts report decides it (`settleParts`).
 */
export interface PartRules {
  /**
   * Another shard matched the query's words: do not relax it even when nothing matched here (one index relaxes
   * only when no document matched; a part that relaxed says so in `relaxed`).
   */
  strict?: boolean;
  /** Per query word one index cuts the typo expansions of, the last it keeps (`typoCutoffs`). */
  typoCutoffs?: TypoCutoffs;
}

/** What a shard's part of a sharded search needs besides the request. */
export interface ShardPartOptions extends PartRules {
  /** The position of a document in the app's feeding order (documents without a query or sort merge by it). */
  feedingKey(id: string): number;
}

/**
 * The documents matching the query words, ranked; undefined when the query has no words. `filtered`: filters will
 * narrow them down (so matching details only the documents the page can reach, as it does for a query of several words).
 * With `part` (a shard's part), its rules apply and the candidates carry a `typoReport`.
 */
export function keywordCandidates(state: IndexState, q: string, part?: PartRules, filtered = false): Candidates | undefined {
  const plan = planQuery(state, q);
  if (!plan) return undefined;
  const plans = [plan];
  const detailsLater = (queryPlan: QueryPlan) => filtered || popcount(queryPlan.counted) > 1;
  const cutoffs = part?.typoCutoffs;
  if (cutoffs) withTypoCutoffs(plan, cutoffs);
  let matches = matchPlan(state, plan, detailsLater(plan));
  const relaxed = !part?.strict && !matches.ords.length;
  if (relaxed) {
    // Nothing matched: fall back to completing every word, with one more typo allowed.
    release(matches);
    const fallback = planQuery(state, q, true) ?? plan;
    if (cutoffs) withTypoCutoffs(fallback, cutoffs);
    plans.push(fallback);
    matches = matchPlan(state, fallback, detailsLater(fallback));
  }
  const found = matches;
  const { counted } = found.plan;
  const custom = state.plan.ranking.customRanking;
  const words = popcount(counted) || 1;
  const { compare, finish, top } = relevanceOrder(state, found);
  return {
    ords: found.ords,
    covering: found.covering,
    marks: matchMarks(found),
    relaxed,
    ...(part ? { typoReport: typoReport(state, plans) } : {}),
    relevance: compare,
    top,
    keywordScore: (ord, relativeTo) => {
      const match = matchOf(found, ord);
      if (match < 0) return 0;
      finish(ord);
      return (popcount(found.words[match] & counted) / words) * (relativeTo > 0 ? found.score[match] / relativeTo : 1);
    },
    keywordBest: () => {
      let best = 0;
      // Indexed loops over ordinal lists: V8 runs `for…of` over a 48,000-entry array several times slower. A match's
      // number is its place in `ords`.
      for (let i = 0; i < found.ords.length; i++) {
        finish(found.ords[i]);
        best = Math.max(best, found.score[i]);
      }
      return best;
    },
    mergeKey: {
      order: ['desc', 'desc', ...custom.map((rule) => rule.direction), 'asc', 'asc'],
      key: (ord) => {
        const match = matchOf(found, ord);
        finish(ord);
        const criteria = match < 0 ? [0, 0] : [found.rank[match], found.score[match]];
        return [...criteria, ...custom.map((rule) => fieldValue(state, rule.field, ord)), weightedLength(state, ord), state.ids[ord]];
      },
    },
    done: () => release(found),
  };
}

function withTypoCutoffs(plan: QueryPlan, cutoffs: TypoCutoffs): void {
  for (const alternative of plan.alternatives) {
    if (alternative.typos) alternative.typoCutoff = cutoffs[typoKey(alternative.terms[0], alternative.typos)];
  }
}

/** The typo expansions each word of `plans` kept here (the same `expand` as matching's, so from its cache). */
function typoReport(state: IndexState, plans: QueryPlan[]): TypoReport {
  const report: TypoReport = {};
  for (const plan of plans)
    for (const { terms, prefix, typos, forms, typoCutoff } of plan.alternatives) {
      if (!typos) continue;
      const kept = typoRanks(state, expand(state, terms[0], prefix, typos, forms, typoCutoff));
      if (kept.length) report[typoKey(terms[0], typos)] = kept;
    }
  return report;
}

/**
 * A search; with `hybrid` (and a ratio above 0), keyword and vector rankings fused (see `hybridCandidates`).
 * With `part`, the hits carry merge keys: the search is one shard's part of a sharded one.
 */
export function runSearch(state: IndexState, request: SearchRequest, hybrid?: HybridQuery, part?: ShardPartOptions): EngineSearchResult {
  const sort = resolveSort(state, request.sort);
  const filters = compileFilters(state, request.filters ?? {});
  const selected = selectFacets(state, request.facets);
  const limits = checkedFacetLimits(state, request);
  const opened = checkedFacetPaths(state, request);
  const semantic = hybrid && hybrid.ratio > 0 ? hybrid : undefined;
  const keyword = semantic?.ratio === 1 ? undefined : keywordCandidates(state, request.q ?? '', part, filters.length > 0);
  const found = semantic ? hybridCandidates(state, keyword, semantic, filters) : keyword;
  const candidates = found ?? { ords: liveOrds(state), done: () => {} };
  try {
    let passing = candidates.ords;
    let facets: FacetAnswer;
    if (filters.length) {
      const { filtered, passing: accepted } = found ? applyFilters(candidates.ords, filters) : filterEverything(state, filters);
      passing = accepted;
      facets = filteredFacets(state, limits, filtered, selected, opened);
    } else {
      facets = candidates.relevance
        ? filteredFacets(
            state,
            limits,
            { shared: candidates.ords, passes: [], disjunctive: [], marks: candidates.marks },
            selected,
            opened,
            candidates.covering,
          )
        : facetsOfEverything(state, limits, selected, opened);
    }

    const start = (request.page - 1) * request.rows;
    const relevance = candidates.relevance ?? feedingOrder;
    const order = sort ? sortOrder(state, sort, relevance) : relevance;
    // Without a query or sort, documents come in feeding order, which is ordinal order already.
    const end = start + request.rows;
    const page =
      !candidates.relevance && !sort
        ? slice(passing, start, end)
        : (!sort && candidates.top ? candidates.top(passing, end) : selectTop(passing, end, order)).slice(start);
    const keys = part && mergeKeyOf(state, sort, candidates, part);
    return {
      total: passing.length,
      hits: page.map((ord, i) => ({ id: state.ids[ord], position: start + i + 1 })),
      ...facets,
      ...(keys
        ? {
            merge: { order: keys.order, keys: page.map((ord) => keys.key(ord)) },
            relaxed: keyword?.relaxed ?? false,
            ...(keyword?.typoReport ? { typoReport: keyword.typoReport } : {}),
          }
        : {}),
    };
  } finally {
    candidates.done();
  }
}

/** The merge key of the order a search returns: the sort's value first, then relevance (or feeding order). */
function mergeKeyOf(state: IndexState, sort: SortSpec | undefined, candidates: Candidates, part: ShardPartOptions): KeyOf {
  const relevance: KeyOf = candidates.mergeKey ?? { order: ['asc'], key: (ord) => [part.feedingKey(state.ids[ord])] };
  if (!sort) return relevance;
  return { order: [sort.direction, ...relevance.order], key: (ord) => [fieldValue(state, sort.field, ord), ...relevance.key(ord)] };
}

/**
 * This index's part of the `HybridNorms` of a sharded hybrid search: its best keyword score (`rules` as for
 * `keywordCandidates`) and the similarities of its nearest documents passing the request's filters.
 */
export function runHybridNormsPart(state: IndexState, request: SearchRequest, hybrid: HybridQuery, rules: PartRules = {}): HybridNormsPart {
  const filters = compileFilters(state, request.filters ?? {});
  const keyword = hybrid.ratio === 1 ? undefined : keywordCandidates(state, request.q ?? '', rules);
  try {
    const nearest = nearestNeighbours(state, hybrid, filters).map(({ key, score }) => ({ id: state.ids[key], score }));
    return {
      keywordBest: keyword?.keywordBest?.() ?? 0,
      nearest,
      relaxed: keyword?.relaxed ?? false,
      ...(keyword?.typoReport ? { typoReport: keyword.typoReport } : {}),
    };
  } finally {
    keyword?.done();
  }
}
