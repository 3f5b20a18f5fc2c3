/** Facet counts: over filtered candidates (each facet without its own `or` filter), or over everything (cached). */
import { compareStrings, type ValueColumn } from './columns';
import type { Filtered } from './filters';
import { selectTop } from './ranking';
import type { IndexState } from './state';
import type { Facet } from './types';

/** Facet counts over every document with no filter depend only on the index version. */
export interface FacetCache {
  version: number;
  limit: number;
  facets: Facet[];
}

/** Counts per facet value over the filtered candidates, each facet leaving out its own `or` filter. */
export function countFacets(state: IndexState, limit: number, { shared, passes, disjunctive }: Filtered): Facet[] {
  const all = (1 << disjunctive.length) - 1;
  return facetList(state, (facetId, column) => {
    const own = disjunctive.findIndex((f) => f.facetId === facetId);
    const needed = own < 0 ? all : all & ~(1 << own);
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
    return topValues(column, tally, limit);
  });
}

/** Counts over every live document (no query, no filter). */
export function facetsOfEverything(state: IndexState, limit: number): Facet[] {
  const cached = state.caches.browseFacets;
  if (cached && cached.version === state.version && cached.limit === limit) return cached.facets;
  const facets = facetList(state, (_, column) => topValues(column, column.live, limit));
  state.caches.browseFacets = { version: state.version, limit, facets };
  return facets;
}

function facetList(state: IndexState, values: (facetId: string, column: ValueColumn) => Facet['values']): Facet[] {
  const facets: Facet[] = [];
  for (const [facetId, column] of state.facets) {
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
