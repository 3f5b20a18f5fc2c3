/**
 * The contract of the search engine (src/search/engine), the search-app Durable Object
 * and the HTTP routes. The engine module has no Workers imports: Node loads it for benchmarks.
 */
import type { SearchAppField } from '../field-schema';
import type { TypoReport } from './expansions';

export type { SearchAppField };

/** A document's fields as fed (payload keys are schema field codes). */
export type DocumentPayload = Record<string, unknown>;

/** A named sort configured on the search app (admin API `sorts`). */
export interface NamedSort {
  id: string;
  field: string;
  direction: 'asc' | 'desc';
}

/**
 * A synonym rule of a search app: multi-way (`{ synonyms: ['tv', 'television'] }`, each finds the others) or
 * one-way (`{ input: 'phone', synonyms: ['smartphone'] }`: `phone` also finds `smartphone`, not the reverse).
 */
export interface SynonymRule {
  input?: string;
  synonyms: string[];
}

/** A custom ranking criterion: a numeric or boolean field, the last criterion before the id. */
export interface CustomRankingRule {
  field: string;
  direction: 'asc' | 'desc';
}

/** Per-app ranking settings (admin search-app PUT); absent parts take their defaults. */
export interface RankingSettings {
  synonyms?: SynonymRule[];
  /** Words that count as optional in queries; default an English list, `[]` for none. */
  stopWords?: string[];
  customRanking?: CustomRankingRule[];
}

/** What an index is built with; changes only through a re-index (schedule job) or a full feed. */
export interface IndexConfig {
  fields: SearchAppField[];
  sorts: NamedSort[];
  ranking?: RankingSettings;
}

export type FilterType = 'term' | 'range' | 'slider' | 'tree';
export type FilterDataType = 'string' | 'number' | 'date';
export type FilterOperator = 'or' | 'and' | 'not';

export interface Filter {
  filterType: FilterType;
  filterDataType?: FilterDataType;
  filterOperator?: FilterOperator;
  values?: string[];
  minValue?: number | string;
  maxValue?: number | string;
}

export interface SearchRequest {
  q?: string;
  /** 1-based. */
  page: number;
  rows: number;
  /** Sort identifier: `<field>_asc`, `<field>_desc` for sortable fields, or a named sort id. None = relevance. */
  sort?: string;
  /** Facet id -> filter. */
  filters?: Record<string, Filter>;
  /** Maximum values per facet (default 50). */
  facetLimit?: number;
  /** Per facet id, maximum values instead of `facetLimit`; 0 answers no values (a numeric facet's stats only). */
  facetLimits?: Record<string, number>;
  /** Facet ids to count (and give stats for); `[]` none; default every facet. */
  facets?: string[];
  /**
   * Per `categories` facet id, the path a hierarchical menu is opened at (`a/b`; `''` its top): that facet answers
   * only the top-level values and the children of each level of the path, up to its limit per level.
   */
  facetPaths?: Record<string, string>;
}

export interface FacetValue {
  value: string;
  count: number;
}

export interface Facet {
  id: string;
  name: string;
  values: FacetValue[];
}

/** A numeric facet over the matching documents (dates in epoch milliseconds): what a range slider needs. */
export interface FacetStats {
  min: number;
  max: number;
  avg: number;
  sum: number;
}

export interface Paging {
  page: number;
  rows: number;
  total: number;
  totalPages: number;
}

export interface ResultDocument {
  id: string;
  /** 1-based across pages. */
  position: number;
  /** Only the fields with `display: true`. */
  document: Record<string, unknown>;
  /** The requested display string fields with the query's words marked (see `engine/highlight.ts`). */
  highlight?: Record<string, string | string[]>;
  /** The requested display string fields cut around the best match, marked. */
  snippet?: Record<string, string | string[]>;
}

export interface SearchResult {
  total: number;
  /** Search execution milliseconds. */
  time: number;
  documents: ResultDocument[];
  facets: Facet[];
  /** Facet id -> stats, for the numeric facets that have values among the matching documents. */
  facetStats: Record<string, FacetStats>;
  paging: Paging;
  /**
   * False when facet counts may be low: an app of several shards, one of which had more values of a facet than it
   * returns (`shardFacetLimit`), as Algolia's `exhaustiveFacetsCount`; absent when every count is exact.
   */
  exhaustiveFacetsCount?: false;
  /**
   * Present when the search was hybrid: the semanticRatio applied, and `fallback`, the reason, when vector
   * ranking could not take part (keyword results only, ratio 0).
   */
  semantic?: { ratio: number; fallback?: string };
}

export interface SuggestRequest {
  q?: string;
  rows: number;
}

export interface Suggestion {
  value: string;
  count: number;
}

/** An invalid query (unknown facet id or sort, a value that does not fit its type): answered 400. */
export interface QueryProblem {
  path: string;
  message: string;
}

/** What the Durable Object answers over RPC: custom error classes do not survive RPC, so problems are data. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; status: 400 | 404 | 409; message: string; details?: QueryProblem[] };

/** One part of a hit's merge key: a number, a string (compared as the engine compares strings) or null (no value: last). */
export type MergeKeyPart = number | string | null;

/**
 * How the hits of several shards merge into the order one index would give: a key per hit, compared part by part,
 * each part ascending or descending (`order`).
 */
export interface MergeKeys {
  order: Array<'asc' | 'desc'>;
  /** One key per hit, in hit order. */
  keys: MergeKeyPart[][];
}

/** One page of a search as the engine answers it; the Durable Object adds the display fields. */
export interface EngineSearchResult {
  total: number;
  /** The requested page, best first; `position` is 1-based across pages. */
  hits: Array<{ id: string; position: number }>;
  facets: Facet[];
  facetStats: Record<string, FacetStats>;
  /** Matching documents behind each `facetStats` entry. */
  facetStatCounts: Record<string, number>;
  /** The hits' merge keys, when the search asked for them (a shard's part of a sharded search). */
  merge?: MergeKeys;
  /** A shard's part: its query was relaxed, nothing matching the words as typed here (see `ShardPartOptions.strict`). */
  relaxed?: boolean;
  /** A shard's part: the typo expansions it kept per query word (`settleParts`). */
  typoReport?: TypoReport;
}

/**
 * The in-memory index of one search app, implemented by `SearchIndex` in `./index.ts`
 * (`new SearchIndex(config)`, `SearchIndex.load(config, bytes)`).
 * `search` throws `QueryError` (with `details`) for an invalid query; `suggest` never throws.
 */
export interface SearchEngine {
  readonly config: IndexConfig;
  readonly size: number;
  /** Inserts or replaces a document. */
  add(id: string, payload: DocumentPayload): void;
  /** Removes a document; answers whether it was indexed. */
  remove(id: string): boolean;
  has(id: string): boolean;
  search(request: SearchRequest): EngineSearchResult;
  suggest(request: SuggestRequest): Suggestion[];
  /** A compact binary form; the Durable Object stores it in chunks under SQLite's 2 MB row limit. */
  serialize(): Uint8Array;
}
