/**
 * InstantSearch's `facetFilters` and `numericFilters` as the service's filters (one per facet id):
 * an OR group is a `term` filter, several values that must all hold an `and` filter, excluded values a
 * `not` filter, numeric bounds a `range`. A hierarchical level (`tags.lvl1:a/b`) filters its categories facet
 * (`tags`) by term: a categories facet holds every path prefix, so a term filter matches what a `tree` filter
 * does, and the typed client can send it by GET (cacheable) where `tree` needs POST.
 */
import type { FacetFilters, NumericFilters } from './algolia';
import type { SearchFilter as Filter } from './transport';

/** A filter the service cannot express in one request (the adapter never guesses). */
export class UnsupportedFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedFilterError';
  }
}

const LEVEL = /^(.+)\.lvl(\d+)$/;

/** The service's facet id of an InstantSearch attribute: `tags.lvl1` (a hierarchicalMenu level) is `tags`. */
export function facetIdOf(attribute: string): string {
  return LEVEL.exec(attribute)?.[1] ?? attribute;
}

/** The hierarchy level an attribute names (`tags.lvl1` is 1), or undefined for a plain attribute. */
export function levelOf(attribute: string): number | undefined {
  const match = LEVEL.exec(attribute);
  return match ? Number(match[2]) : undefined;
}

interface FacetTerms {
  /** OR groups (inner arrays of facetFilters), each a list of values. */
  groups: string[][];
  /** Values that must all hold (top-level strings). */
  required: string[];
  excluded: string[];
}

/** `attr:value` split at the first colon; `-value` excludes, `\-value` is a value starting with a dash. */
function parseFacetFilter(filter: string): { attribute: string; value: string; excluded: boolean } {
  const colon = filter.indexOf(':');
  if (colon <= 0) throw new UnsupportedFilterError(`facet filter '${filter}' is not attribute:value`);
  let attribute = filter.slice(0, colon);
  let value = filter.slice(colon + 1);
  let excluded = false;
  if (attribute.startsWith('-')) {
    attribute = attribute.slice(1);
    excluded = true;
  } else if (value.startsWith('-')) {
    value = value.slice(1);
    excluded = true;
  } else if (value.startsWith('\\-')) value = value.slice(1);
  return { attribute, value, excluded };
}

type Nested = string | Nested[];

/** The AND list of a filter parameter, each entry a string or an OR group of strings. */
function andList(value: Nested | undefined): Array<string | string[]> {
  const entries = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return entries.map((entry) => {
    if (typeof entry === 'string') return entry;
    if (entry.every((item): item is string => typeof item === 'string')) return entry;
    throw new UnsupportedFilterError(`filters nested deeper than an OR group are not supported: ${JSON.stringify(entry)}`);
  });
}

/** The service's filters for InstantSearch's facet and numeric filters; throws UnsupportedFilterError. */
export function translateFilters(
  facetFilters: FacetFilters | string | undefined,
  numericFilters: NumericFilters | string | undefined,
): Record<string, Filter> {
  const terms = new Map<string, FacetTerms>();
  const termsOf = (attribute: string) => {
    const id = facetIdOf(attribute);
    let entry = terms.get(id);
    if (!entry) terms.set(id, (entry = { groups: [], required: [], excluded: [] }));
    return entry;
  };
  for (const filter of andList(facetFilters)) {
    if (Array.isArray(filter)) {
      const parsed = filter.map(parseFacetFilter);
      const attributes = new Set(parsed.map((p) => facetIdOf(p.attribute)));
      if (attributes.size !== 1 || parsed.some((p) => p.excluded))
        throw new UnsupportedFilterError(`an OR group must name one facet without exclusions: ${JSON.stringify(filter)}`);
      termsOf(parsed[0].attribute).groups.push(parsed.map((p) => p.value));
    } else {
      const { attribute, value, excluded } = parseFacetFilter(filter);
      const entry = termsOf(attribute);
      (excluded ? entry.excluded : entry.required).push(value);
    }
  }

  const filters: Record<string, Filter> = {};
  for (const [id, entry] of terms) filters[id] = termFilter(id, entry);
  for (const [id, range] of numericRanges(numericFilters)) {
    if (filters[id]) throw new UnsupportedFilterError(`facet '${id}' has both value and numeric filters`);
    filters[id] = range;
  }
  return filters;
}

/**
 * The path a hierarchical menu on the categories facet `facetId` is opened at: the value of its deepest refined
 * level (`tags.lvl1:a/b` opens `a/b`, alone or as an OR group of one, as InstantSearch sends it), `''` when none is
 * refined; undefined when the facet is filtered otherwise (OR groups, several or excluded values), which no one
 * path describes.
 */
export function openedPath(facetFilters: FacetFilters | string | undefined, facetId: string): string | undefined {
  let path = '';
  let deepest = -1;
  for (const filter of andList(facetFilters)) {
    const entries = Array.isArray(filter) ? filter : [filter];
    const mine = entries.map(parseFacetFilter).filter((p) => facetIdOf(p.attribute) === facetId);
    if (!mine.length) continue;
    const [{ attribute, value, excluded }] = mine;
    const level = levelOf(attribute);
    if (entries.length > 1 || excluded || level === undefined || level === deepest) return undefined;
    if (level > deepest) [path, deepest] = [value, level];
  }
  return path;
}

function termFilter(id: string, { groups, required, excluded }: FacetTerms): Filter {
  const filterType = 'term';
  const kinds = [groups.length > 0, required.length > 0, excluded.length > 0].filter(Boolean).length;
  if (kinds > 1 || groups.length > 1) throw new UnsupportedFilterError(`facet '${id}' mixes OR groups, required and excluded values`);
  if (groups.length) return { filterType, filterOperator: 'or', values: groups[0] };
  if (excluded.length) return { filterType, filterOperator: 'not', values: excluded };
  return { filterType, filterOperator: required.length > 1 ? 'and' : 'or', values: required };
}

const NUMERIC = /^(.+?)\s*(>=|<=|!=|=|>|<)\s*(-?[\d.]+(?:e[+-]?\d+)?)$/i;

/** Per attribute, the bounds of its numeric filters; `>`/`<` become the next representable number inside. */
function numericRanges(numericFilters: NumericFilters | undefined): Map<string, Filter> {
  const ranges = new Map<string, Filter>();
  for (const filter of andList(numericFilters)) {
    if (Array.isArray(filter))
      throw new UnsupportedFilterError(`OR groups of numeric filters are not supported: ${JSON.stringify(filter)}`);
    const match = NUMERIC.exec(filter);
    if (!match) throw new UnsupportedFilterError(`numeric filter '${filter}' is not attribute<op>number`);
    const [, attribute, operator, text] = match;
    const value = Number(text);
    const range = ranges.get(attribute) ?? { filterType: 'range' };
    if (operator === '!=') {
      if (ranges.has(attribute)) throw new UnsupportedFilterError(`'${filter}' cannot be combined with other bounds on '${attribute}'`);
      ranges.set(attribute, { filterType: 'range', filterOperator: 'not', minValue: value, maxValue: value });
      continue;
    }
    if (operator.includes('>') || operator === '=')
      range.minValue = tighter(range.minValue, operator === '>' ? nextUp(value) : value, Math.max);
    if (operator.includes('<') || operator === '=')
      range.maxValue = tighter(range.maxValue, operator === '<' ? nextDown(value) : value, Math.min);
    ranges.set(attribute, range);
  }
  return ranges;
}

function tighter(current: number | string | undefined, value: number, pick: (a: number, b: number) => number): number {
  return current === undefined ? value : pick(Number(current), value);
}

const nextUp = (x: number) => (x === 0 ? Number.MIN_VALUE : x > 0 ? x * (1 + Number.EPSILON) : x * (1 - Number.EPSILON));
const nextDown = (x: number) => -nextUp(-x);
