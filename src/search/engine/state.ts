/**
 * The state of one index, owned by `SearchIndex` and passed explicitly to the functions that read or
 * change it (documents, codec, query). Per-index query caches live here too, so they go with the state
 * when compaction replaces it.
 */
import type { OtherShards } from './corpus';
import { NumberColumn, ValueColumn, type Tally } from './columns';
import type { FacetRows, RowTally } from './facet-rows';
import type { FacetCache, FacetColumn } from './facets';
import type { ExpansionCache } from './expansions';
import type { FamilyCache } from './families';
import type { Scratch } from './matching';
import type { TermCountsCache } from './term-counts';
import { planIndex, type IndexPlan } from './plan';
import { TextIndex } from './text-index';
import type { IndexConfig } from './types';

export interface IndexState {
  readonly config: IndexConfig;
  readonly plan: IndexPlan;
  /** Ordinal -> document id; a removed document leaves a dead ordinal until compaction. */
  ids: string[];
  ordOf: Map<string, number>;
  /** 1 where the ordinal is a live document. */
  alive: Uint8Array;
  liveCount: number;
  /** Bumped by every change, so per-version caches know when they are stale. */
  version: number;
  text: TextIndex;
  /** Facet id -> values; attribute facets (`<code>.<key>`) appear as keys are seen. */
  facets: Map<string, ValueColumn>;
  /** Exact-match and string sort columns by field code, holding phrases (`phrase()` of the value). */
  values: Map<string, ValueColumn>;
  numbers: Map<string, NumberColumn>;
  readonly caches: QueryCaches;
  /** In a shard of a larger index: what the other shards hold of this one's terms and titles (corpus.ts). */
  others?: OtherShards;
}

/** Reusable query memory and answers that depend only on the index version. */
export interface QueryCaches {
  scratch?: Scratch;
  expansions?: ExpansionCache;
  browseFacets?: FacetCache;
  /** The facet columns in the string order of their ids (facets.ts `facetsById`). */
  facetsById?: FacetColumn[];
  /** `liveOrds` of one index version. */
  live?: { version: number; ords: Int32Array };
  /** Facet counting's per-value counts (facets.ts), by column and by document (facet-rows.ts). */
  tally?: Tally;
  rowTally?: RowTally;
  facetRows?: FacetRows;
  /** Facet counts of frequent terms' documents, derived again after enough changes (term-counts.ts). */
  termCounts?: TermCountsCache;
  /** 1 where a live ordinal is outside the set a complement counts (facets.ts `liveOrdsOutside`), for one query. */
  outside?: Uint8Array;
  families?: FamilyCache;
  /** Suggest's marks of the documents already counted for a term (suggest.ts). */
  seen?: SeenStamps;
  /** Numeric facets' values as numbers, for stats from their counts (facets.ts `exactNumbers`). */
  facetNumbers?: Map<ValueColumn, FacetNumbers>;
  /** `documentsByValue` of the columns asked so far, of one index version. */
  documentsByValue?: { version: number; columns: Map<ValueColumn, DocumentsByValue> };
}

/**
 * A numeric facet's values as numbers by value id (the first `converted`), and whether the ordinals checked so far
 * (below `checked`) make its counts give the same stats as its number column; `largest`: the largest magnitude.
 */
export interface FacetNumbers {
  numbers: Float64Array;
  converted: number;
  checked: number;
  exact: boolean;
  largest: number;
}

/** A value column's live documents per value id: value id `id`'s are `ords[starts[id]]` up to `ords[starts[id + 1]]`, in ordinal order. */
export interface DocumentsByValue {
  starts: Int32Array;
  ords: Int32Array;
}

/** One number per ordinal: an ordinal is marked when its number equals `stamp`, and unmarked by the next stamp. */
export interface SeenStamps {
  stamps: Uint32Array;
  stamp: number;
}

/** An empty index state for a configuration. */
export function createState(config: IndexConfig): IndexState {
  const plan = planIndex(config);
  const state: IndexState = {
    config,
    plan,
    ids: [],
    ordOf: new Map(),
    alive: new Uint8Array(1024),
    liveCount: 0,
    version: 0,
    text: new TextIndex(plan.text.length),
    facets: new Map(),
    values: new Map(),
    numbers: new Map(),
    caches: {},
  };
  for (const field of plan.facets) if (field.dataType !== 'attributes') state.facets.set(field.code, new ValueColumn());
  for (const field of plan.valueColumns) state.values.set(field.code, new ValueColumn());
  for (const field of plan.numbers) state.numbers.set(field.code, new NumberColumn());
  return state;
}

/** Ordinals handed out so far, dead ones included. */
export function capacity(state: IndexState): number {
  return state.ids.length;
}

export function isAlive(state: IndexState, ord: number): boolean {
  return state.alive[ord] === 1;
}

/** Every live ordinal, in feeding order (computed once per index version). */
export function liveOrds(state: IndexState): Int32Array {
  const cached = state.caches.live;
  if (cached?.version === state.version) return cached.ords;
  const ords = new Int32Array(state.liveCount);
  let length = 0;
  for (let ord = 0; ord < state.ids.length; ord++) if (state.alive[ord] === 1) ords[length++] = ord;
  state.caches.live = { version: state.version, ords };
  return ords;
}

export function markAlive(state: IndexState, ord: number): void {
  if (ord >= state.alive.length) {
    const grown = new Uint8Array(Math.max(ord + 1, state.alive.length * 2));
    grown.set(state.alive);
    state.alive = grown;
  }
  state.alive[ord] = 1;
  state.liveCount += 1;
}

/**
 * The live documents of each value of a column (computed once per index version): a query matching a value reads
 * its documents instead of testing every live document.
 */
export function documentsByValue(state: IndexState, column: ValueColumn): DocumentsByValue {
  let cached = state.caches.documentsByValue;
  if (cached?.version !== state.version) cached = state.caches.documentsByValue = { version: state.version, columns: new Map() };
  let lists = cached.columns.get(column);
  if (lists) return lists;
  const live = liveOrds(state);
  const starts = new Int32Array(column.values.length + 1);
  for (let i = 0; i < live.length; i++) column.forEachId(live[i], (id) => starts[id + 1]++);
  for (let id = 0; id < column.values.length; id++) starts[id + 1] += starts[id];
  const ords = new Int32Array(starts[column.values.length]);
  const next = starts.slice(0, column.values.length);
  for (let i = 0; i < live.length; i++) column.forEachId(live[i], (id) => (ords[next[id]++] = live[i]));
  lists = { starts, ords };
  cached.columns.set(column, lists);
  return lists;
}
