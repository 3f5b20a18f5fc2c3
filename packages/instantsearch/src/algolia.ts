/**
 * The slice of Algolia's search API that InstantSearch.js 4 and react-instantsearch speak to a `searchClient`
 * (what `algoliasearch-helper` sends and reads), typed structurally so no Algolia package is needed.
 */

/** A facet filter: `attr:value`, `attr:-value` (excluded); an inner array is an OR group. */
export type FacetFilters = Array<string | string[]>;

/** A numeric filter: `attr>=10`, `attr<=20`, `attr=5`, `attr!=5`, `attr>1`, `attr<9`. */
export type NumericFilters = Array<string | string[]>;

export interface AlgoliaSearchParams {
  query?: string;
  page?: number;
  hitsPerPage?: number;
  facets?: string | string[];
  facetFilters?: FacetFilters | string;
  numericFilters?: NumericFilters | string;
  maxValuesPerFacet?: number;
  attributesToHighlight?: string | string[];
  attributesToSnippet?: string | string[];
  highlightPreTag?: string;
  highlightPostTag?: string;
  /** Anything else (analytics, clickAnalytics, tagFilters, ...) is accepted and ignored. */
  [other: string]: unknown;
}

export interface AlgoliaRequest {
  indexName: string;
  params?: AlgoliaSearchParams;
}

export type MatchLevel = 'none' | 'partial' | 'full';

export interface HighlightResult {
  value: string;
  matchLevel: MatchLevel;
  matchedWords: string[];
  fullyHighlighted?: boolean;
}

export type HighlightResults = Record<string, HighlightResult | HighlightResult[]>;

export interface AlgoliaHit {
  objectID: string;
  _highlightResult?: HighlightResults;
  _snippetResult?: Record<
    string,
    Omit<HighlightResult, 'matchedWords' | 'fullyHighlighted'> | Array<Omit<HighlightResult, 'matchedWords'>>
  >;
  [field: string]: unknown;
}

export interface AlgoliaFacetStats {
  min: number;
  max: number;
  avg: number;
  sum: number;
}

export interface AlgoliaResult {
  index: string;
  query: string;
  params: string;
  hits: AlgoliaHit[];
  nbHits: number;
  nbPages: number;
  page: number;
  hitsPerPage: number;
  facets: Record<string, Record<string, number>>;
  facets_stats: Record<string, AlgoliaFacetStats>;
  processingTimeMS: number;
  exhaustiveNbHits: boolean;
  exhaustiveFacetsCount: boolean;
}

export interface AlgoliaResponse {
  results: AlgoliaResult[];
}
