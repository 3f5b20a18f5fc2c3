/**
 * Facet counts and numeric facet stats: over filtered candidates (each facet without its own `or` or range
 * filter), or over everything (cached per index version); only the facets a request selects.
 */
import { compareStrings, type NumberColumn, type Tally, type ValueColumn } from './columns';
import { clearRowTally, countedIds, countRows, facetRows, prepareRowTally, uncountRows, type CountsByColumn } from './facet-rows';
import { facetField, type Filtered } from './filters';
import type { Covering } from './matching';
import { isNumeric } from './plan';
import { QueryError } from './query-error';
import { capacity, liveOrds, type IndexState } from './state';
import { coveredCounts, valueCounts, type CoveredCounts } from './term-counts';
import type { Facet, FacetStats, SearchAppField, SearchRequest } from './types';
import { categoryPaths } from './values';

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

/**
 * Per categories facet, the categories whose children it answers (`facetPaths`): the top (`''`) and each level of
 * the path a menu is opened at, in that order.
 */
export type OpenedCategories = (facetId: string) => string[] | undefined;

/** A request's opened categories (no check of the ids: `checkedFacetPaths` does). */
export function openedCategoriesOf(request: Pick<SearchRequest, 'facetPaths'>): OpenedCategories {
  const paths = request.facetPaths ?? {};
  return (facetId) => {
    const path = paths[facetId];
    if (path === undefined) return undefined;
    const levels = categoryPaths(path)[0]?.split('/') ?? [];
    return ['', ...levels.map((_, i) => levels.slice(0, i + 1).join('/'))];
  };
}

/** The request's opened categories; throws `QueryError` for a `facetPaths` id that is no categories facet. */
export function checkedFacetPaths(state: IndexState, request: Pick<SearchRequest, 'facetPaths'>): OpenedCategories {
  const problems = Object.keys(request.facetPaths ?? {}).flatMap((id) => {
    const field = facetField(state, id);
    if (field?.dataType === 'categories') return [];
    return [{ path: `facetPaths.${id}`, message: field ? `'${id}' is not a categories facet` : `unknown facet '${id}'` }];
  });
  if (problems.length) throw new QueryError(problems);
  return openedCategoriesOf(request);
}

/** The parent category of a category value: `a/b` of `a/b/c`, `''` of a top-level value. */
const parentOf = (value: string) => value.slice(0, Math.max(0, value.lastIndexOf('/')));

/** `items` by the opened category they are children of, in the order of `opened`; children of other categories are left out. */
export function childrenOfOpened<T>(items: Iterable<T>, valueOf: (item: T) => string, opened: string[]): T[][] {
  const groups = new Map(opened.map((category) => [category, [] as T[]]));
  for (const item of items) groups.get(parentOf(valueOf(item)))?.push(item);
  return [...groups.values()];
}

/** A facet column with its id and the name a facet answers. */
export interface FacetColumn {
  id: string;
  name: string;
  column: ValueColumn;
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

/**
 * Counts and stats over the filtered candidates, each facet leaving out its own disjunctive filter. A set of
 * more than half the live documents is counted through its complement (live counts minus the rest's). When every
 * facet counts over the same documents, they are counted all at once, document by document (facet-rows.ts), else
 * facet by facet. `covering`: a term whose every document is among the candidates (a keyword query's matches, no
 * filter), whose documents' counts may be kept (term-counts.ts), as a navigation facet's frequent value's are
 * (`Filtered.value`: browsing narrowed to it, whose other facets then count by rows).
 */
export function filteredFacets(
  state: IndexState,
  limits: FacetLimits,
  filtered: Filtered,
  selected: FacetSelection,
  opened: OpenedCategories = () => undefined,
  covering?: Covering,
): FacetAnswer {
  const sets = new Map<number, CountedSet>();
  const setOf = (needed: number) => {
    let set = sets.get(needed);
    if (!set) sets.set(needed, (set = countedSet(state, filtered, needed)));
    return set;
  };
  let together = countedTogether(state, filtered, selected, limits);
  if (together === 0 && covering) {
    const covered = coveredSet(state, filtered.shared, covering);
    if (covered) sets.set(0, covered);
  }
  if (together === undefined && everyFacetCounted(state, selected, limits)) {
    // Browsing narrowed to one value: the other facets count over its documents, from its kept counts, by rows.
    const kept = valueSet(state, filtered);
    if (kept) sets.set((together = allBits(filtered)), kept);
  }
  const byRows = together !== undefined ? rowCounts(state, setOf(together)) : undefined;
  const tally = tallyFor(state);
  // Each column's counts over the documents its facet stats read, as counted by rows.
  const countedByRows = new Map<ValueColumn, ColumnCounts>();
  const facets = facetList(state, selected, (facetId, column) => {
    const limit = limits.of(facetId);
    if (limit === 0) return [];
    const needed = neededBits(filtered, facetId);
    const set = setOf(needed);
    const categories = opened(facetId);
    const fromRows = needed === together ? byRows?.of(column) : undefined;
    if (fromRows) {
      const values = countedValues(column, fromRows, set.complement, limit, categories);
      countedByRows.set(column, fromRows);
      return values;
    }
    prepare(tally, column.values.length);
    column.count(set.ords, set.ords.length, tally);
    const values = countedValues(
      column,
      { counts: tally.counts, ids: tally.touched.subarray(0, tally.size) },
      set.complement,
      limit,
      categories,
    );
    if (set.complement) tally.counts.fill(0, 0, column.values.length);
    else for (let i = 0; i < tally.size; i++) tally.counts[tally.touched[i]] = 0;
    tally.size = 0;
    return values;
  });
  const stats = numericStats(state, filtered, selected, countedByRows);
  byRows?.clear();
  return { facets, ...stats };
}

/** One facet's counts over its set: `counts[id]` for the value ids listed in `ids` (every id when absent), 0 for the others. */
interface ColumnCounts {
  counts: Uint32Array;
  ids: ArrayLike<number> | undefined;
}

/** The values to answer of a facet's counts, or (`complement`) of the live counts minus them (`counts` rewritten so). */
function countedValues(column: ValueColumn, counted: ColumnCounts, complement: boolean, limit: number, opened?: string[]): Facet['values'] {
  if (!complement) return topValues(column, counted.counts, counted.ids, limit, opened);
  const { counts } = counted;
  const { live } = column;
  for (let id = 0, size = column.values.length; id < size; id++) counts[id] = live[id] - counts[id];
  return topValues(column, counts, undefined, limit, opened);
}

/**
 * The disjunctive filters every facet of the index must pass to count, when every one is to be counted over the
 * same documents: then counting by document pays (with facets left out or counted over other documents, rows
 * would count their values for nothing).
 */
function countedTogether(state: IndexState, filtered: Filtered, selected: FacetSelection, limits: FacetLimits): number | undefined {
  if (!everyFacetCounted(state, selected, limits)) return undefined;
  let needed: number | undefined;
  for (const facetId of state.facets.keys()) {
    const own = neededBits(filtered, facetId);
    if (needed !== undefined && own !== needed) return undefined;
    needed = own;
  }
  return state.facets.size > 1 ? needed : undefined;
}

/** Whether a request counts every facet of the index (rows count every facet's values, for nothing where one is left out). */
function everyFacetCounted(state: IndexState, selected: FacetSelection, limits: FacetLimits): boolean {
  for (const facetId of state.facets.keys()) if (!selected(facetId) || limits.of(facetId) === 0) return false;
  return true;
}

/** Every facet's counts over a set, counted by document; `of` a column answers its counts, `clear` readies the tally for the next query. */
function rowCounts(state: IndexState, set: CountedSet): { of(column: ValueColumn): ColumnCounts | undefined; clear(): void } | undefined {
  const rows = facetRows(state);
  if (!rows) return undefined;
  const tally = (state.caches.rowTally = prepareRowTally(state.caches.rowTally, rows));
  // A complement's counts are rewritten for every value id (`countedValues`): no list of the ids counted.
  countRows(rows, set.ords, tally, !set.complement, set.base);
  if (set.removed?.length) uncountRows(rows, set.removed, tally);
  return {
    of: (column) => {
      const k = rows.columns.indexOf(column);
      if (k < 0) return undefined;
      const counts = tally.counts.subarray(rows.regions[k], rows.regions[k + 1]);
      return { counts, ids: set.complement ? undefined : countedIds(rows, tally, k) };
    },
    clear: () => clearRowTally(rows, tally, set.complement),
  };
}

/** The query's reusable tally, large enough for the largest facet column (a search runs alone on its index). */
function tallyFor(state: IndexState): Tally {
  return (state.caches.tally ??= { counts: new Uint32Array(0), touched: new Int32Array(0), size: 0 });
}

/** Makes room in `tally` for a column of `values` value ids. */
function prepare(tally: Tally, values: number): void {
  if (tally.counts.length >= values) return;
  const size = Math.max(values, tally.counts.length * 2, 256);
  tally.counts = new Uint32Array(size);
  tally.touched = new Int32Array(size);
}

/** The documents a facet counts over, or (`complement`) the live documents outside them. */
interface CountedSet {
  ords: ArrayLike<number>;
  complement: boolean;
  /** The counts of other documents, to add to those of `ords` (not with `complement`), less those of `removed`. */
  base?: CountsByColumn;
  removed?: Int32Array;
}

/** The candidates as a frequent term's kept counts plus the rest of them, when that counts less (term-counts.ts). */
function coveredSet(state: IndexState, candidates: ArrayLike<number>, covering: Covering): CountedSet | undefined {
  const rows = facetRows(state);
  return keptSet(rows && coveredCounts(state, rows, candidates, covering));
}

/** The documents of a lone filter's one value (`Filtered.value`) as the value's kept counts plus the rest of them, when that counts less. */
function valueSet(state: IndexState, { value, passing }: Filtered): CountedSet | undefined {
  if (!value || !passing) return undefined;
  const rows = facetRows(state);
  return keptSet(rows && valueCounts(state, rows, value.column, value.id, passing));
}

function keptSet(covered: CoveredCounts | undefined): CountedSet | undefined {
  return covered && { ords: covered.rest, complement: false, base: covered.counts, removed: covered.removed };
}

/** The candidates passing the disjunctive filters of `needed`, or their complement when that is smaller. */
function countedSet(state: IndexState, filtered: Filtered, needed: number): CountedSet {
  const { from, test } = lookIn(filtered, needed);
  let ords: ArrayLike<number> = from;
  if (test) {
    const kept = new Int32Array(from.length);
    let length = 0;
    for (let i = 0; i < from.length; i++) if ((filtered.passes[i] & test) === test) kept[length++] = from[i];
    ords = kept.subarray(0, length);
  }
  if (ords.length * 2 <= state.liveCount) return { ords, complement: false };
  return { ords: liveOrdsOutside(state, ords, ords === filtered.shared ? filtered.marks : undefined), complement: true };
}

/** The live ordinals not in `ords` (live ordinals, each once), in ordinal order; `marks`: not 0 exactly at `ords`' ordinals. */
function liveOrdsOutside(state: IndexState, ords: ArrayLike<number>, marks?: ArrayLike<number>): Int32Array {
  // Every live ordinal (a browse whose facet leaves out the only filter): nothing outside.
  if (ords.length === state.liveCount) return new Int32Array(0);
  const size = capacity(state);
  if (marks) {
    const unmarked = new Int32Array(state.liveCount - ords.length + 1);
    return unmarked.subarray(0, listLiveUnmarked(state.alive, marks, size, unmarked));
  }
  if (!state.caches.outside || state.caches.outside.length < size) state.caches.outside = new Uint8Array(Math.ceil(size * 1.5));
  const outside = state.caches.outside;
  outside.set(state.alive.subarray(0, size));
  unmark(outside, ords);
  const listed = new Int32Array(state.liveCount - ords.length + 1);
  return listed.subarray(0, listMarked(outside, size, listed));
}

// `liveOrdsOutside`'s loops, each alone in a function with nothing after it: the function runs a few times a round of
// queries, so TurboFan compiles its loops on stack replacement, and such code compiled on the first call reached code
// after the loop with no type feedback yet; each later call entered that kept code and left it again (two deopts a
// call for its first twenty or so calls after a start).

/** Sets `marks` to 0 at each of `ords`. */
function unmark(marks: Uint8Array, ords: ArrayLike<number>): void {
  for (let i = 0; i < ords.length; i++) marks[ords[i]] = 0;
}

/** Lists in `listed` (one place to spare) the ordinals below `size` marked 1 in `marks`; answers how many. */
function listMarked(marks: Uint8Array, size: number, listed: Int32Array): number {
  let length = 0;
  // Every ordinal written, the next one over it unless it is marked: no branch on where the marks fall.
  for (let ord = 0; ord < size; ord++) {
    listed[length] = ord;
    length += marks[ord];
  }
  return length;
}

/** Lists in `listed` (one place to spare) the ordinals below `size` alive and marked 0 in `marks`; answers how many. */
function listLiveUnmarked(alive: Uint8Array, marks: ArrayLike<number>, size: number, listed: Int32Array): number {
  let length = 0;
  for (let ord = 0; ord < size; ord++) {
    listed[length] = ord;
    length += alive[ord] & Number(marks[ord] === 0);
  }
  return length;
}

/** Counts and stats over every live document (no query, no filter): the cached top values, cut to each facet's limit. */
export function facetsOfEverything(
  state: IndexState,
  limits: FacetLimits,
  selected: FacetSelection,
  opened: OpenedCategories = () => undefined,
): FacetAnswer {
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
        (_, column) => topValues(column, column.live, undefined, limit),
      ),
      ...numericStats(state, everything, () => true),
    };
    state.caches.browseFacets = cached;
  }
  return {
    facets: cached.facets
      .filter((facet) => selected(facet.id))
      .map((facet) => {
        const categories = opened(facet.id);
        const column = state.facets.get(facet.id);
        // The cached top values need not hold a deep level's children: those are picked from the live counts.
        if (categories && column) return { ...facet, values: topValues(column, column.live, undefined, limits.of(facet.id), categories) };
        return { ...facet, values: facet.values.slice(0, limits.of(facet.id)) };
      }),
    facetStats: Object.fromEntries(Object.entries(cached.facetStats).filter(([id]) => selected(id))),
    facetStatCounts: cached.facetStatCounts,
  };
}

/** The disjunctive filters a candidate must pass to count for `facetId`: all but the facet's own. */
function neededBits(filtered: Filtered, facetId: string): number {
  const own = filtered.disjunctive.findIndex((f) => f.facetId === facetId);
  return own < 0 ? allBits(filtered) : allBits(filtered) & ~(1 << own);
}

/** The bits of every disjunctive filter. */
function allBits({ disjunctive }: Filtered): number {
  return (1 << disjunctive.length) - 1;
}

/**
 * Where the candidates passing the filters of `needed` are: among `from`, those whose `passes` hold the bits of
 * `test`; when that is every filter, the list of candidates passing them all, with nothing left to test.
 */
function lookIn(filtered: Filtered, needed: number): { from: ArrayLike<number>; test: number } {
  if (needed && needed === allBits(filtered) && filtered.passing) return { from: filtered.passing, test: 0 };
  return { from: filtered.shared, test: needed };
}

/**
 * Min, max, average and sum of each selected numeric facet over the candidates that count for it; from its facet's
 * counts where those were counted over the same documents and give the same figures (`exactNumbers`).
 */
function numericStats(
  state: IndexState,
  filtered: Filtered,
  selected: FacetSelection,
  countedByRows?: ReadonlyMap<ValueColumn, ColumnCounts>,
): Omit<FacetAnswer, 'facets'> {
  const stats: Record<string, FacetStats> = {};
  const counts: Record<string, number> = {};
  for (const field of state.plan.facets) {
    const column = state.numbers.get(field.code);
    if (!column || !isNumeric(field) || !selected(field.code)) continue;
    const facet = state.facets.get(field.code);
    const counted = facet && countedByRows?.get(facet);
    const byValue = counted && exactNumbers(state, field, facet, column);
    const figures = byValue ? statsOfCounts(byValue, counted) : statsOfDocuments(column, filtered, neededBits(filtered, field.code));
    if (!figures.count) continue;
    stats[field.code] = { min: figures.min, max: figures.max, avg: figures.sum / figures.count, sum: figures.sum };
    counts[field.code] = figures.count;
  }
  return { facetStats: stats, facetStatCounts: counts };
}

interface StatFigures {
  min: number;
  max: number;
  sum: number;
  count: number;
}

/** Stats of a number column over the candidates passing the disjunctive filters of `needed`: one read per document. */
function statsOfDocuments(column: NumberColumn, filtered: Filtered, needed: number): StatFigures {
  const { from, test } = lookIn(filtered, needed);
  const { passes } = filtered;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < from.length; i++) {
    if (test && (passes[i] & test) !== test) continue;
    const value = column.get(from[i]);
    if (Number.isNaN(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    sum += value;
    count++;
  }
  return { min, max, sum, count };
}

/** Stats from a numeric facet's counts: one read per value counted instead of one per document. */
function statsOfCounts(numbers: Float64Array, { counts, ids }: ColumnCounts): StatFigures {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  const size = ids ? ids.length : numbers.length;
  for (let i = 0; i < size; i++) {
    const id = ids ? ids[i] : i;
    const times = counts[id];
    if (times === 0) continue;
    const value = numbers[id];
    if (value < min) min = value;
    if (value > max) max = value;
    sum += value * times;
    count += times;
  }
  return { min, max, sum, count };
}

/**
 * A numeric facet's values as numbers by value id, when its counts give exactly the stats its number column gives:
 * every document holds at most one facet value, the one its number column holds (an array value is a facet's values
 * but no number), and every value is an integer small enough that no sum of them leaves the exact integers, so the
 * sum is the same in any order. Checked for the ordinals added since the last query (an ordinal's values never change).
 */
function exactNumbers(state: IndexState, field: SearchAppField, facet: ValueColumn, column: NumberColumn): Float64Array | undefined {
  if (field.dataType === 'date') return undefined;
  const cache = (state.caches.facetNumbers ??= new Map());
  let known = cache.get(facet);
  if (!known) cache.set(facet, (known = { numbers: new Float64Array(64), converted: 0, checked: 0, exact: true, largest: 0 }));
  if (!known.exact) return undefined;
  const { values } = facet;
  if (known.numbers.length < values.length) {
    const grown = new Float64Array(Math.max(values.length, known.numbers.length * 2));
    grown.set(known.numbers);
    known.numbers = grown;
  }
  for (; known.converted < values.length; known.converted++) {
    const value = Number(values[known.converted]);
    known.numbers[known.converted] = value;
    if (!Number.isSafeInteger(value)) known.exact = false;
    known.largest = Math.max(known.largest, Math.abs(value));
  }
  const size = capacity(state);
  let more = 0;
  const countMore = () => more++;
  for (; known.exact && known.checked < size; known.checked++) {
    const ord = known.checked;
    const number = column.get(ord);
    const id = facet.firstId(ord);
    more = 0;
    facet.forEachId(ord, countMore);
    if (id < 0 ? !Number.isNaN(number) : more > 1 || !Object.is(known.numbers[id], number)) known.exact = false;
  }
  return known.exact && known.largest * size <= Number.MAX_SAFE_INTEGER ? known.numbers.subarray(0, values.length) : undefined;
}

function facetList(
  state: IndexState,
  selected: FacetSelection,
  values: (facetId: string, column: ValueColumn) => Facet['values'],
): Facet[] {
  const facets: Facet[] = [];
  for (const { id, name, column } of facetsById(state)) if (selected(id)) facets.push({ id, name, values: values(id, column) });
  return facets;
}

/** The index's facet columns in the string order of their ids, with their names: kept until a column is added. */
function facetsById(state: IndexState): FacetColumn[] {
  let ordered = state.caches.facetsById;
  if (ordered?.length !== state.facets.size) {
    ordered = [...state.facets]
      .map(([id, column]) => ({ id, name: id.includes('.') ? id.slice(id.indexOf('.') + 1) : id, column }))
      .sort((a, b) => compareStrings(a.id, b.id));
    state.caches.facetsById = ordered;
  }
  return ordered;
}

/**
 * The `limit` values of most documents (ties by value), among `ids` (every value id when absent) with a count above 0;
 * with `opened` categories, the `limit` children of each of them instead, level by level.
 */
function topValues(
  column: ValueColumn,
  counts: ArrayLike<number>,
  ids: ArrayLike<number> | undefined,
  limit: number,
  opened?: string[],
): Facet['values'] {
  if (!opened) return topOf(column, counts, ids, limit);
  const counted: number[] = [];
  const size = ids ? ids.length : column.values.length;
  for (let i = 0; i < size; i++) {
    const id = ids ? ids[i] : i;
    if (counts[id] > 0) counted.push(id);
  }
  return childrenOfOpened(counted, (id) => column.values[id], opened).flatMap((children) => topOf(column, counts, children, limit));
}

/** `topValues` of `ids` (every value id when absent), without opened categories. */
function topOf(column: ValueColumn, counts: ArrayLike<number>, ids: ArrayLike<number> | undefined, limit: number): Facet['values'] {
  const { values } = column;
  const size = ids ? ids.length : values.length;
  const k = Math.min(limit, size);
  if (k <= 0) return [];
  let from = ids;
  let length = size;
  let least = 1;
  if (size > FLOOR_FROM * k) {
    // A broad query counts thousands of `source` and `installedSize` values once, most of them below its top 50: the
    // values reaching the count its answer's values reach are listed first, in loops that do nothing else, and the
    // heap below reads those only (its loop, holding the heap's code, reloads what it reads from the stack per value).
    const shortlist = shortlistFor(size);
    const twice = ids ? histogramOfListed(counts, ids, size, shortlist) : histogramOfAll(counts, size, shortlist);
    least = leastTopCount(k);
    if (least > 1) {
      from = shortlist;
      length = least > 2 ? reaching(counts, shortlist, twice, least) : twice;
    }
  }
  return heapTop(column, counts, from, length, k, least);
}

/** The best `k` (count, then rank) of the first `size` of `ids` (every value id when absent) counted at least `least`. */
function heapTop(
  column: ValueColumn,
  counts: ArrayLike<number>,
  ids: ArrayLike<number> | undefined,
  size: number,
  k: number,
  least: number,
): Facet['values'] {
  const { values } = column;
  // Values by their rank in string order: the same order as comparing the strings, without reading them.
  const ranks = column.ranks();
  const heap = topHeap(k);
  const { counts: keptCounts, ranks: keptRanks, ids: keptIds } = heap;
  let kept = 0;
  // One pass keeping the k best (count, then rank) seen: a value counted less than the worst kept is passed over
  // by its count alone, with no sort or closure.
  for (let i = 0; i < size; i++) {
    const id = ids ? ids[i] : i;
    const count = counts[id];
    if (count < least) continue;
    if (kept < k) {
      keptCounts[kept] = count;
      keptRanks[kept] = ranks[id];
      keptIds[kept++] = id;
      if (kept === k) heapify(heap, k);
    } else if (count > keptCounts[0] || (count === keptCounts[0] && ranks[id] < keptRanks[0])) sink(heap, 0, k, count, ranks[id], id);
  }
  if (kept < k) heapify(heap, kept);
  const top: Facet['values'] = new Array(kept);
  // The worst kept leaves the heap first: the best come last and go first.
  for (let n = kept; n > 0; n--) {
    top[n - 1] = { value: values[keptIds[0]], count: keptCounts[0] };
    sink(heap, 0, n - 1, keptCounts[n - 1], keptRanks[n - 1], keptIds[n - 1]);
  }
  return top;
}

/** `topOf` first finds the count its answer's values reach where it is to pick from more than this many times the values it answers. */
const FLOOR_FROM = 4;

/** The histogram of counts `leastTopCount` reads, the last bin holding every count from it on. */
const countHistogram = new Uint32Array(64);

/** `topOf`'s list of the values counted at least twice, reused. */
let reusedShortlist = new Int32Array(1024);

function shortlistFor(size: number): Int32Array {
  if (reusedShortlist.length < size) reusedShortlist = new Int32Array(Math.max(size, reusedShortlist.length * 2));
  return reusedShortlist;
}

// The histogram's loops, each alone in a function with nothing after it (`liveOrdsOutside`'s loops say why). A value
// is listed without a branch (whether a `source` value is counted twice is a coin toss): every one written, the next
// one over it unless it is counted twice or more.

/** `countHistogram` of the counts of the first `size` of `ids`; lists those counted twice or more in `twice`, answering how many. */
function histogramOfListed(counts: ArrayLike<number>, ids: ArrayLike<number>, size: number, twice: Int32Array): number {
  // The module's histogram taken once: esbuild's bundle makes it a context slot, loaded and checked per value.
  const histogram = countHistogram.fill(0);
  const last = histogram.length - 1;
  let length = 0;
  for (let i = 0; i < size; i++) {
    const id = ids[i];
    const count = counts[id];
    histogram[Math.min(count, last)]++;
    twice[length] = id;
    length += Number(count > 1);
  }
  return length;
}

/** `histogramOfListed` of every value id below `size`. */
function histogramOfAll(counts: ArrayLike<number>, size: number, twice: Int32Array): number {
  const histogram = countHistogram.fill(0);
  const last = histogram.length - 1;
  let length = 0;
  for (let id = 0; id < size; id++) {
    const count = counts[id];
    histogram[Math.min(count, last)]++;
    twice[length] = id;
    length += Number(count > 1);
  }
  return length;
}

/** Keeps the first `size` of `ids` counted at least `least` at the start of `ids`, in order; answers how many. */
function reaching(counts: ArrayLike<number>, ids: Int32Array, size: number, least: number): number {
  let length = 0;
  for (let i = 0; i < size; i++) {
    const id = ids[i];
    ids[length] = id;
    length += Number(counts[id] >= least);
  }
  return length;
}

/**
 * A count every one of the `k` best values of `countHistogram` reaches: the largest that at least `k` of them reach
 * (a count from the histogram's last bin on as that bin's), at least 1.
 */
function leastTopCount(k: number): number {
  const histogram = countHistogram;
  let reached = 0;
  for (let count = histogram.length - 1; count > 1; count--) {
    reached += histogram[count];
    if (reached >= k) return count;
  }
  return 1;
}

/** A min-heap of the best values seen, the worst at 0: worse is fewer documents, then later in string order. */
interface TopHeap {
  counts: Uint32Array;
  ranks: Uint32Array;
  ids: Int32Array;
}

/** `topOf`'s heap, reused (every facet of every request needs one; most limits are 50 or less). */
let reusedHeap: TopHeap = { counts: new Uint32Array(64), ranks: new Uint32Array(64), ids: new Int32Array(64) };

/** The reused heap with room for `k` entries. */
function topHeap(k: number): TopHeap {
  if (reusedHeap.counts.length < k) reusedHeap = { counts: new Uint32Array(k), ranks: new Uint32Array(k), ids: new Int32Array(k) };
  return reusedHeap;
}

/** Orders the heap's first `n` entries as a heap. */
function heapify(heap: TopHeap, n: number): void {
  for (let at = (n >> 1) - 1; at >= 0; at--) sink(heap, at, n, heap.counts[at], heap.ranks[at], heap.ids[at]);
}

/** Puts an entry at `at` of the heap's first `n` entries, moving better ones below it up past it. */
function sink({ counts, ranks, ids }: TopHeap, at: number, n: number, count: number, rank: number, id: number): void {
  for (;;) {
    const left = 2 * at + 1;
    if (left >= n) break;
    const right = left + 1;
    const child =
      right < n && (counts[right] < counts[left] || (counts[right] === counts[left] && ranks[right] > ranks[left])) ? right : left;
    if (counts[child] > count || (counts[child] === count && ranks[child] < rank)) break;
    counts[at] = counts[child];
    ranks[at] = ranks[child];
    ids[at] = ids[child];
    at = child;
  }
  counts[at] = count;
  ranks[at] = rank;
  ids[at] = id;
}
