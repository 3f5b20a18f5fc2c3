/**
 * A POST search body as the GET search's query string, when GET says exactly the same: GET answers are cached
 * at the edge and by browsers, and a GET without a body needs no CORS preflight. The parameters come in one
 * fixed order (filters by id, their values sorted), so the same question is always the same URL.
 */
import type { SearchBody, SearchFilter } from '../../../src/contract/index.ts';
import { FACET_LIMIT_PREFIX, FACET_PATH_PREFIX, FILTER_PREFIX, RANGE, rangeBound } from '../../../src/contract/search-query-string.ts';

/** Longer query strings go by POST: some proxies and servers refuse long URLs. */
const MAX_QUERY_CHARS = 4000;

/** Body fields GET has a parameter for, in the order the query string lists them. */
const TEXT_FIELDS = ['q', 'highlightPreTag', 'highlightPostTag', 'userId', 'sessionId', 'requestOrigin', 'requestId'] as const;
const NUMBER_FIELDS = ['page', 'rows', 'facetLimit'] as const;
const LIST_FIELDS = ['facets', 'attributesToRetrieve', 'attributesToHighlight', 'attributesToSnippet'] as const;
const KNOWN_FIELDS = new Set<string>([
  ...TEXT_FIELDS,
  ...NUMBER_FIELDS,
  ...LIST_FIELDS,
  'facetLimits',
  'facetPaths',
  'sort',
  'hybrid',
  'filters',
]);
const FILTER_FIELDS = new Set(['filterType', 'filterOperator', 'filterDataType', 'values', 'minValue', 'maxValue']);
const FILTER_DATA_TYPES = new Set(['string', 'number', 'date']);

type Parameters = Array<[string, string]>;

/** Thrown inside: the body has something only POST can say. */
class NeedsPost extends Error {}

function need(condition: boolean): asserts condition {
  if (!condition) throw new NeedsPost();
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The GET query parameters of `body`, in canonical order; undefined when only POST expresses it (`and`/`not`
 * operators, `tree` and `slider` filters, a term value with `..` or a text bound GET would read as a number,
 * list entries with commas or outer spaces, text no URL carries, a query string over 4,000 characters).
 */
export function searchQueryParameters(body: SearchBody): Parameters | undefined {
  try {
    const parameters = toParameters(body);
    // encodeURIComponent throws URIError for text no URL can carry (a lone surrogate).
    const chars = parameters.reduce(
      (sum, [name, value]) => sum + encodeURIComponent(name).length + encodeURIComponent(value).length + 2,
      0,
    );
    return chars <= MAX_QUERY_CHARS ? parameters : undefined;
  } catch (error) {
    if (error instanceof NeedsPost || error instanceof URIError) return undefined;
    throw error;
  }
}

function toParameters(body: SearchBody): Parameters {
  const fields = body as Record<string, unknown>;
  need(Object.keys(fields).every((name) => fields[name] === undefined || KNOWN_FIELDS.has(name)));
  const parameters: Parameters = [];
  const add = (name: string, value: string | undefined) => value !== undefined && parameters.push([name, value]);

  need(body.q === undefined || isText(body.q));
  add('q', body.q);
  for (const name of NUMBER_FIELDS) add(name, number(body[name]));
  for (const [id, limit] of byId(body.facetLimits)) add(FACET_LIMIT_PREFIX + id, number(limit));
  for (const [id, path] of byId(body.facetPaths)) {
    need(isText(path));
    add(FACET_PATH_PREFIX + id, path);
  }
  add('sort', sortOf(body.sort));
  add('semanticRatio', semanticRatioOf(body.hybrid));
  for (const name of LIST_FIELDS) add(name, commaList(body[name]));
  for (const name of TEXT_FIELDS.slice(1)) {
    need(body[name] === undefined || isText(body[name]));
    add(name, body[name]);
  }
  for (const [id, filter] of byId(body.filters)) for (const value of filterValues(filter)) add(FILTER_PREFIX + id, value);
  return parameters;
}

/** The entries of a record keyed by facet id, by id. */
function byId<T>(record: Record<string, T> | undefined): Array<[string, T]> {
  need(record === undefined || (typeof record === 'object' && record !== null && !Array.isArray(record)));
  const entries = Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  need(entries.every(([id]) => id !== ''));
  return entries;
}

/** Page, rows and facet limits: the service reads numbers written as text the same way in both. */
function number(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  need(isFiniteNumber(value) || isText(value));
  return String(value);
}

/** POST takes a sort id or `{ sort }` (other keys ignored); an empty id is no sort. */
function sortOf(sort: SearchBody['sort']): string | undefined {
  const id = sort !== null && typeof sort === 'object' ? sort.sort : sort;
  need(id === undefined || isText(id));
  return id || undefined;
}

function semanticRatioOf(hybrid: SearchBody['hybrid']): string | undefined {
  if (hybrid === undefined) return undefined;
  need(hybrid !== null && typeof hybrid === 'object' && Object.keys(hybrid).every((key) => key === 'semanticRatio'));
  need(hybrid.semanticRatio === undefined || isFiniteNumber(hybrid.semanticRatio));
  return hybrid.semanticRatio === undefined ? undefined : String(hybrid.semanticRatio);
}

/** GET splits lists at commas and trims entries; an empty list is an empty parameter (none). */
function commaList(list: readonly string[] | undefined): string | undefined {
  if (list === undefined) return undefined;
  need(Array.isArray(list) && list.every((entry) => isText(entry) && entry !== '' && entry === entry.trim() && !entry.includes(',')));
  return list.join(',');
}

/** A term filter's values (sorted: their order means nothing), or a range as `min..max`. */
function filterValues(filter: SearchFilter): string[] {
  need(filter !== null && typeof filter === 'object' && Object.keys(filter).every((key) => FILTER_FIELDS.has(key)));
  need(filter.filterOperator === undefined || filter.filterOperator === 'or');
  need(filter.filterDataType === undefined || FILTER_DATA_TYPES.has(filter.filterDataType));
  if (filter.filterType === 'term') {
    need(filter.minValue === undefined && filter.maxValue === undefined);
    need(Array.isArray(filter.values) && filter.values.length > 0);
    const values = filter.values.map((value) => {
      need(isText(value) || isFiniteNumber(value) || typeof value === 'boolean');
      return String(value);
    });
    need(values.every((value) => !RANGE.test(value)));
    return values.sort();
  }
  need(filter.filterType === 'range' && filter.values === undefined);
  const [min, max] = [bound(filter.minValue), bound(filter.maxValue)];
  // GET splits at the first `..` (a bound holding one, or a line break, would split elsewhere).
  const split = RANGE.exec(`${min}..${max}`);
  need(split?.[1] === min && split[2] === max);
  return [`${min}..${max}`];
}

/** A range bound as GET reads it back to the same value: text that would read as a number needs POST. */
function bound(value: number | string | undefined): string {
  if (value === undefined) return '';
  need(isFiniteNumber(value) || isText(value));
  const written = String(value);
  need(rangeBound(written) === (value === '' ? undefined : value));
  return written;
}
