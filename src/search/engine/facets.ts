/**
 * Facet counts and numeric facet stats: over filtered candidates (each facet without its own `or` or range
 * filter), or over everything (cached per index version); only the facets a request selects.
 */
import { compareStrings, type ValueColumn } from './columns';
import { facetField, type Filtered } from './filters';
import { isNumeric } from './plan';
import { QueryError } from './query-error';
import { selectTop } from './ranking';
import { liveOrds, type IndexState } from './state';
import type { Facet, FacetStats, SearchRequest } from './types';

/** Values per facet when a request names no limit. */
const DEFAULT_FACET_LIMIT = 50;

/** How many values a request asks of each facet. */
export interface FacetLimits {
  of(facetId: string): number;
  /** The largest limit of any facet. */
  max: number;
}

/** A request's limits: `facetLimits[id]`, else `facetLimit`, else 50 (no check of the ids: `checkedFacetLimits` does). */
export function facetLimitsOf(request: Pick<SearchRequest, 'facetLimit' | 'facetLimits'>): FacetLimits {
  const limit = request.facetLimit ?? DEFAULT_FACET_LIMIT;
  const limits = request.facetLimits ?? {};
  return { of: (facetId) => limits[facetId] ?? limit, max: Math.max(limit, ...Object.values(limits)) };
}

/** The request's limits; throws `QueryError` for a `facetLimits` id that is no facet. */
export function checkedFacetLimits(state: IndexState, request: Pick<SearchRequest, 'facetLimit' | 'facetLimits'>): FacetLimits {
  const problems = Object.keys(request.facetLimits ?? {}).flatMap((id) =>
    facetField(state, id) ? [] : [{ path: `facetLimits.${id}`, message: `unknown facet '${id}'` }],
  );
  if (problems.length) throw new QueryError(problems);
  return facetLimitsOf(request);
}

/** What a search answers about facets. */
export interface FacetAnswer {
  facets: Facet[];
  facetStats: Record<string, FacetStats>;
  /** How many matching documents each `facetStats` entry covers (what merging shards' averages needs). */
  facetStatCounts: Record<string, number>;
}

/** Facets over every document with no filter depend only on the index version; kept with `limit` values each. */
export interface FacetCache extends FacetAnswer {
  version: number;
  limit: number;
}

/** Whether a request wants a facet id. */
export type FacetSelection = (facetId: string) => boolean;

/** The facets a request lists (every one when `ids` is absent); throws `QueryError` for an id that is no facet. */
export function selectFacets(state: IndexState, ids: string[] | undefined): FacetSelection {
  if (!ids) return () => true;
  const problems = ids.flatMap((id, i) => (facetField(state, id) ? [] : [{ path: `facets.${i}`, message: `unknown facet '${id}'` }]));
  if (problems.length) throw new QueryError(problems);
  const wanted = new Set(ids);
  return (facetId) => wanted.has(facetId);
}

/** Counts and stats over the filtered candidates, each facet leaving out its own disjunctive filter. */
export function filteredFacets(state: IndexState, limits: FacetLimits, filtered: Filtered, selected: FacetSelection): FacetAnswer {
  const { shared, passes } = filtered;
  const facets = facetList(state, selected, (facetId, column) => {
    if (limits.of(facetId) === 0) return [];
    const needed = neededBits(filtered, facetId);
    const tally = new Uint32Array(column.values.length);
    const first = column.first;
    const extra = column.extra;
    for (let i = 0; i < shared.length; i++) {
      if (needed && (passes[i] & needed) !== needed) continue;
      const ord = shared[i];
      const id = ord < first.length ? first[ord] : -1;
      if (id < 0) continue;
      tally[id]++;
      const more = extra[ord];
      if (more) for (const other of more) tally[other]++;
    }
    return topValues(column, tally, limits.of(facetId));
  });
  return { facets, ...numericStats(state, filtered, selected) };
}

/** Counts and stats over every live document (no query, no filter): the cached top values, cut to each facet's limit. */
export function facetsOfEverything(state: IndexState, limits: FacetLimits, selected: FacetSelection): FacetAnswer {
  let cached = state.caches.browseFacets;
  if (!cached || cached.version !== state.version || cached.limit < limits.max) {
    const limit = limits.max;
    const everything: Filtered = { shared: liveOrds(state), passes: [], disjunctive: [] };
    cached = {
      version: state.version,
      limit,
      facets: facetList(
        state,
        () => true,
        (_, column) => topValues(column, column.live, limit),
      ),
      ...numericStats(state, everything, () => true),
    };
    state.caches.browseFacets = cached;
  }
  return {
    facets: cached.facets
      .filter((facet) => selected(facet.id))
      .map((facet) => ({ ...facet, values: facet.values.slice(0, limits.of(facet.id)) })),
    facetStats: Object.fromEntries(Object.entries(cached.facetStats).filter(([id]) => selected(id))),
    facetStatCounts: cached.facetStatCounts,
  };
}

/** The disjunctive filters a candidate must pass to count for `facetId`: all but the facet's own. */
function neededBits({ disjunctive }: Filtered, facetId: string): number {
  const all = (1 << disjunctive.length) - 1;
  const own = disjunctive.findIndex((f) => f.facetId === facetId);
  return own < 0 ? all : all & ~(1 << own);
}

/** Min, max, average and sum of each selected numeric facet over the candidates that count for it. */
function numericStats(state: IndexState, filtered: Filtered, selected: FacetSelection): Omit<FacetAnswer, 'facets'> {
  const stats: Record<string, FacetStats> = {};
  const counts: Record<string, number> = {};
  const { shared, passes } = filtered;
  for (const field of state.plan.facets) {
    const column = state.numbers.get(field.code);
    if (!column || !isNumeric(field) || !selected(field.code)) continue;
    const needed = neededBits(filtered, field.code);
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    let count = 0;
    for (let i = 0; i < shared.length; i++) {
      if (needed && (passes[i] & needed) !== needed) continue;
      const value = column.get(shared[i]);
      if (Number.isNaN(value)) continue;
      if (value < min) min = value;
      if (value > max) max = value;
      sum += value;
      count++;
    }
    if (!count) continue;
    stats[field.code] = { min, max, avg: sum / count, sum };
    counts[field.code] = count;
  }
  return { facetStats: stats, facetStatCounts: counts };
}

function facetList(
  state: IndexState,
  selected: FacetSelection,
  values: (facetId: string, column: ValueColumn) => Facet['values'],
): Facet[] {
  const facets: Facet[] = [];
  for (const [facetId, column] of state.facets) {
    if (!selected(facetId)) continue;
    const name = facetId.includes('.') ? facetId.slice(facetId.indexOf('.') + 1) : facetId;
    facets.push({ id: facetId, name, values: values(facetId, column) });
  }
  return facets.sort((a, b) => compareStrings(a.id, b.id));
}

function topValues(column: ValueColumn, counts: ArrayLike<number>, limit: number) {
  const ids: number[] = [];
  for (let id = 0; id < counts.length; id++) if (counts[id] > 0) ids.push(id);
  const order = (a: number, b: number) => counts[b] - counts[a] || compareStrings(column.values[a], column.values[b]);
  return selectTop(ids, limit, order).map((id) => ({ value: column.values[id], count: counts[id] }));
}
