/**
 * The search engine of one search app: full text, exact matches, filters, disjunctive facets, sorts and
 * suggestions over an in-memory index that serializes to compact bytes. Pure TypeScript with no Workers
 * imports, so Node loads it for benchmarks.
 *
 * Modules: `state` (the data), `documents` (add/remove), `codec` (bytes), and the query side:
 * `search` (the plan) over `matching`, `ranking`, `filters`, `facets`; `suggest`; `analysis` (text).
 */
import { decodeIndex, encodeIndex } from './codec';
import { readOtherShards, statisticsShare, type StatisticsShare } from './corpus';
import { addDocument, removeDocument } from './documents';
import type { HybridNormsPart, HybridQuery } from './hybrid';
import { Highlighter, type HighlightRequest } from './highlight';
import { runHybridNormsPart, runSearch, type PartRules, type ShardPartOptions } from './search';
import { createState, type IndexState } from './state';
import { rankedSuggestions, runSuggest, type RankedSuggestion } from './suggest';
import type { DocumentPayload, EngineSearchResult, IndexConfig, SearchEngine, SearchRequest, SuggestRequest, Suggestion } from './types';

export { editDistance, fuzzyDistance, normalize, tokenize } from './analysis';
export { QueryError } from './query-error';
export { VectorIndex } from './vectors';
export { blendScores, combineHybridNorms, type HybridNorms, type HybridNormsPart, type HybridQuery } from './hybrid';
export type { PartRules, ShardPartOptions } from './search';
export type { RankedSuggestion } from './suggest';
export { facetLimitsOf, openedCategoriesOf } from './facets';
export { decodeShare, encodeShare, othersShare, sumShares, type StatisticsShare } from './corpus';
export {
  compactFacets,
  mergeFacets,
  mergeFacetStats,
  mergeHits,
  mergeSuggestions,
  settleParts,
  shardFacetLimit,
  type CompactFacet,
} from './merge';
export { displayFields, retrievedFields } from './values';

/** Compaction runs once dead ordinals are this share of all ordinals (and at least MIN_DEAD). */
const DEAD_SHARE = 0.3;
const MIN_DEAD = 2048;

/**
 * The in-memory index of one search app, built from its {@link IndexConfig} (schema fields and named sorts).
 * Documents get an ordinal on insertion; a replaced or removed document leaves a dead ordinal that searches
 * skip and that compaction (run once enough are dead) and `serialize()` drop.
 *
 * @example
 * ```ts
 * const index = new SearchIndex({ fields, sorts: [] });
 * index.add('vim', { name: 'vim', description: 'Vi IMproved, a text editor' });
 * index.search({ q: 'editr', page: 1, rows: 10 }).hits; // [{ id: 'vim', position: 1 }]
 * const copy = SearchIndex.load(index.config, index.serialize());
 * ```
 */
export class SearchIndex implements SearchEngine {
  #state: IndexState;

  /** An empty index for `config`; its fields' `searchMode`, `facet`, `sort` and `suggest` decide what is kept. */
  constructor(config: IndexConfig) {
    this.#state = createState(config);
  }

  /**
   * The index `serialize()` produced, for the same configuration (otherwise it throws).
   *
   * @example
   * ```ts
   * const index = SearchIndex.load(config, bytes);
   * ```
   */
  static load(config: IndexConfig, bytes: Uint8Array): SearchIndex {
    const index = new SearchIndex(config);
    index.#state = decodeIndex(config, bytes);
    return index;
  }

  get config(): IndexConfig {
    return this.#state.config;
  }

  /** Live documents. */
  get size(): number {
    return this.#state.liveCount;
  }

  has(id: string): boolean {
    return this.#state.ordOf.has(id);
  }

  /** Inserts a document, or replaces the one with the same id. Payload keys are schema field codes. */
  add(id: string, payload: DocumentPayload): void {
    this.remove(id);
    addDocument(this.#state, id, payload);
  }

  /** Removes a document; answers whether it was indexed. */
  remove(id: string): boolean {
    const removed = removeDocument(this.#state, id);
    if (removed) this.#compactIfSparse();
    return removed;
  }

  /**
   * One page of documents matching `q` (all documents when it is empty), filtered, sorted (by relevance
   * unless `sort` names a sort), with facet counts. Throws `QueryError` for an unknown facet or sort, or
   * a filter value that does not fit its field. With `hybrid` (a query vector, the document vectors and a
   * semanticRatio above 0), keyword and vector rankings are fused; filters, facets, sorts and paging apply alike.
   * With `part`, the hits carry merge keys (`merge`): the search is one shard's part of a sharded search.
   *
   * @example
   * ```ts
   * index.search({ q: 'text editor', page: 1, rows: 20, filters: { section: { filterType: 'term', values: ['editors'] } } });
   * // { total, hits: [{ id, position }], facets: [{ id: 'section', name: 'section', values: [{ value, count }] }] }
   * ```
   */
  search(request: SearchRequest, hybrid?: HybridQuery, part?: ShardPartOptions): EngineSearchResult {
    return runSearch(this.#state, request, hybrid, part);
  }

  /**
   * This index's part of the normalization of a hybrid search over shards (its best keyword score, its nearest
   * documents' similarities), to combine with the other shards' (`combineHybridNorms`) and search with as
   * `hybrid.norms`, so each shard fuses as one index would. `rules` as for `ShardPartOptions`.
   */
  hybridNormsPart(request: SearchRequest, hybrid: HybridQuery, rules: PartRules = {}): HybridNormsPart {
    return runHybridNormsPart(this.#state, request, hybrid, rules);
  }

  /**
   * The highlighting `request` asks for, to apply to each returned document's display fields; throws
   * `QueryError` for a field that is not a displayed string field.
   *
   * @example
   * ```ts
   * index.highlighter({ q: 'edi', attributesToSnippet: [{ field: 'description', words: 8 }] }).apply(document);
   * // { highlight: { name: 'vim' }, snippet: { description: 'Vi IMproved, a text <mark>edi</mark>tor' } }
   * ```
   */
  highlighter(request: { q?: string } & HighlightRequest): Highlighter {
    return new Highlighter(this.#state.plan, request.q, request);
  }

  /**
   * Completions of the last word of `q` from the fields with `suggest: true`, by document count
   * (typo corrections after completions); never throws.
   *
   * @example
   * ```ts
   * index.suggest({ q: 'text ed', rows: 5 }); // [{ value: 'text editor', count: 12 }, …]
   * ```
   */
  suggest(request: SuggestRequest): Suggestion[] {
    return runSuggest(this.#state, request);
  }

  /**
   * This index's statistics, as one shard of a larger index: summed over the shards (`sumShares`), they give each
   * shard what the others hold (`othersShare`), for `useOtherShards`.
   */
  statisticsShare(): StatisticsShare {
    return statisticsShare(this.#state);
  }

  /**
   * Scores from now on as one index holding this one's documents and what the other shards hold (their share of
   * this index's terms and titles, from `othersShare`); undefined: this index alone.
   */
  useOtherShards(others: StatisticsShare | undefined): void {
    this.#state.others = others && readOtherShards(others);
    this.#state.version++;
  }

  /** `suggest` with each suggestion marked as a completion or a typo correction: one shard's part of a sharded suggest. */
  rankedSuggestions(request: SuggestRequest): RankedSuggestion[] {
    return rankedSuggestions(this.#state, request);
  }

  /**
   * A compact binary form of the live documents (the Durable Object stores it in chunks under SQLite's
   * row limit); `SearchIndex.load` reads it back.
   *
   * @example
   * ```ts
   * const bytes = index.serialize();
   * ```
   */
  serialize(): Uint8Array {
    return encodeIndex(this.#state);
  }

  /** Rebuilds the internals without dead ordinals. */
  compact(): void {
    const { others } = this.#state;
    this.#state = decodeIndex(this.#state.config, encodeIndex(this.#state));
    this.#state.others = others;
  }

  #compactIfSparse(): void {
    const dead = this.#state.ids.length - this.#state.liveCount;
    if (dead >= MIN_DEAD && dead >= this.#state.ids.length * DEAD_SHARE) this.compact();
  }
}
