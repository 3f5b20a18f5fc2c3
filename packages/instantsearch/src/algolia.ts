/**
 * The slice of Algolia's search API that InstantSearch.js 4 and react-instantsearch speak to a `searchClient`
 * (what `algoliasearch-helper` sends and reads), typed structurally so no Algolia package is needed.
 */

/**
 * Facet filters: `attr:value`, `attr:-value` (excluded); an array is an AND list, an array inside it an OR
 * group (Algolia's type nests further; the adapter refuses deeper nesting).
 */
export type FacetFilters = string | FacetFilters[];

/** Numeric filters: `attr>=10`, `attr<=20`, `attr=5`, `attr!=5`, `attr>1`, `attr<9`, nested like facet filters. */
export type NumericFilters = string | NumericFilters[];

export interface AlgoliaSearchParams {
  query?: string;
  page?: number;
  hitsPerPage?: number;
  facets?: string | string[];
  facetFilters?: FacetFilters;
  numericFilters?: NumericFilters;
  maxValuesPerFacet?: number;
  attributesToRetrieve?: string | string[];
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
