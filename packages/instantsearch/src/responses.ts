/** A service search answer as the Algolia result InstantSearch reads. */
import type { AlgoliaHit, AlgoliaRequest, AlgoliaResult, HighlightResult, MatchLevel } from './algolia';
import { facetIdOf, levelOf } from './filters';
import { DEFAULT_HITS_PER_PAGE, requestedFacets } from './requests';
import type { SearchResult } from './transport';

/** InstantSearch's own default tags, used when a query names none (the service's default is `<mark>`). */
const DEFAULT_PRE = '<mark>';
const DEFAULT_POST = '</mark>';
const CATEGORY_SEPARATOR = '/';

export function toAlgoliaResult(request: AlgoliaRequest, result: SearchResult): AlgoliaResult {
  const params = request.params ?? {};
  const hitsPerPage = params.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const tags = { pre: params.highlightPreTag ?? DEFAULT_PRE, post: params.highlightPostTag ?? DEFAULT_POST };
  const queryWords = words(params.query ?? '');
  return {
    index: request.indexName,
    query: params.query ?? '',
    params: '',
    hits: hitsPerPage === 0 ? [] : result.documents.map((doc) => toHit(doc, tags, queryWords)),
    nbHits: result.total,
    nbPages: hitsPerPage === 0 ? 0 : Math.ceil(result.total / hitsPerPage),
    page: params.page ?? 0,
    hitsPerPage,
    facets: toFacets(result, requestedFacets(request)),
    facets_stats: result.facetStats ?? {},
    processingTimeMS: result.time,
    exhaustiveNbHits: true,
    exhaustiveFacetsCount: result.exhaustiveFacetsCount ?? true,
  };
}

type Tags = { pre: string; post: string };

function toHit(doc: SearchResult['documents'][number], tags: Tags, queryWords: string[]): AlgoliaHit {
  const hit: AlgoliaHit = { ...doc.document, objectID: doc.id };
  if (doc.highlight) hit._highlightResult = mapMarked(doc.highlight, (value) => highlightResult(value, tags, queryWords));
  if (doc.snippet)
    hit._snippetResult = mapMarked(doc.snippet, (value) => {
      const { matchLevel } = highlightResult(value, tags, queryWords);
      return { value, matchLevel };
    });
  return hit;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * Algolia answers highlighted values as raw text with tags and InstantSearch escapes them (`escapeHTML`), so
 * the service's escaping of the five HTML characters is undone here, else text would be escaped twice.
 */
function unescapeHtml(value: string): string {
  return value.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);
}

function mapMarked<T>(marked: Record<string, string | string[]>, convert: (value: string) => T): Record<string, T | T[]> {
  const one = (value: string) => convert(unescapeHtml(value));
  return Object.fromEntries(Object.entries(marked).map(([field, value]) => [field, Array.isArray(value) ? value.map(one) : one(value)]));
}

/** Algolia's match level from the marks: `full` when every query word is marked, `partial` when some are. */
function highlightResult(value: string, tags: Tags, queryWords: string[]): HighlightResult {
  const matched = new Set<string>();
  for (let at = value.indexOf(tags.pre); at >= 0; at = value.indexOf(tags.pre, at + 1)) {
    const end = value.indexOf(tags.post, at + tags.pre.length);
    if (end < 0) break;
    matched.add(value.slice(at + tags.pre.length, end).toLowerCase());
  }
  const matchedWords = queryWords.filter((word) => [...matched].some((mark) => word.startsWith(mark) || mark.startsWith(word)));
  const matchLevel: MatchLevel = matched.size === 0 ? 'none' : matchedWords.length >= queryWords.length ? 'full' : 'partial';
  return {
    value,
    matchLevel,
    matchedWords,
    fullyHighlighted: matchLevel === 'full' && value.startsWith(tags.pre) && value.endsWith(tags.post),
  };
}

function words(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/**
 * `{ attribute: { value: count } }` for the attributes asked (every facet when none are listed); a
 * hierarchical level `tags.lvlN` gets the values of `tags` with N + 1 path segments.
 */
function toFacets(result: SearchResult, attributes: string[] | undefined): AlgoliaResult['facets'] {
  const byId = new Map(result.facets.map((facet) => [facet.id, facet]));
  const facets: AlgoliaResult['facets'] = {};
  for (const attribute of attributes ?? [...byId.keys()]) {
    const facet = byId.get(facetIdOf(attribute));
    if (!facet) continue;
    const level = levelOf(attribute);
    const values = level === undefined ? facet.values : facet.values.filter((v) => v.value.split(CATEGORY_SEPARATOR).length === level + 1);
    facets[attribute] = Object.fromEntries(values.map((v) => [v.value, v.count]));
  }
  return facets;
}
