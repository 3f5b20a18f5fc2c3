/**
 * Facet value ids by document, row after row: every facet column's ids of one document side by side, so counting
 * all facets over a set of documents reads one place in memory per document, where the columns (columns.ts, which
 * filters and sorts read) take one per facet. An entry is the column's index in the index's facet order above
 * `ID_BITS` and the value id below. Rows are appended for the ordinals added since the last count (a document only
 * ever gets a fresh ordinal; a removed one keeps its row, never counted, as only live documents are).
 */
import type { ValueColumn } from './columns';
import { capacity, type IndexState } from './state';

const ID_BITS = 24;
const ID_MASK = (1 << ID_BITS) - 1;
/** Column indexes stay below the sign bit of an entry. */
const MAX_COLUMNS = 128;

export interface FacetRows {
  /** The facet columns in the index's order (`state.facets`, which only grows). */
  columns: ValueColumn[];
  /** Ordinal `ord`'s entries are `entries[starts[ord]]` up to `entries[starts[ord + 1]]`, for ordinals below `filled`. */
  starts: Uint32Array;
  entries: Int32Array;
  filled: number;
}

/** Per-value counts of every facet column over one set of documents, reused from query to query. */
export interface RowTally {
  /** Column index -> where its value ids start in `counts`, for the columns as of the count. */
  offsets: Int32Array;
  /** Value id + its column's offset -> count (0 for every position not in `touched`). */
  counts: Uint32Array;
  /** The entries (column index and value id) counted, the first `size`. */
  touched: Int32Array;
  size: number;
}

/** The index's facet rows brought up to date; undefined when the facets do not fit an entry (too many columns or values). */
export function facetRows(state: IndexState): FacetRows | undefined {
  if (state.facets.size > MAX_COLUMNS) return undefined;
  for (const column of state.facets.values()) if (column.values.length > ID_MASK) return undefined;
  const rows = (state.caches.facetRows ??= { columns: [], starts: new Uint32Array(1025), entries: new Int32Array(4096), filled: 0 });
  if (rows.columns.length < state.facets.size) rows.columns = [...state.facets.values()];
  appendRows(rows, capacity(state));
  return rows;
}

function appendRows(rows: FacetRows, size: number): void {
  if (rows.filled >= size) return;
  if (rows.starts.length < size + 1) rows.starts = grown(rows.starts, size + 1);
  let length = rows.starts[rows.filled];
  let needed = length;
  for (let ord = rows.filled; ord < size; ord++) for (const column of rows.columns) column.forEachId(ord, () => needed++);
  if (rows.entries.length < needed) rows.entries = grown(rows.entries, needed);
  const { entries } = rows;
  for (let ord = rows.filled; ord < size; ord++) {
    rows.columns.forEach((column, k) => column.forEachId(ord, (id) => (entries[length++] = (k << ID_BITS) | id)));
    rows.starts[ord + 1] = length;
  }
  rows.filled = size;
}

/** A copy of `array` with room for `size` (and half as much again as it had, so appending stays linear). */
function grown<T extends Uint32Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, Math.ceil(array.length * 1.5)));
  bigger.set(array);
  return bigger;
}

/** `tally` emptied and sized for the columns of `rows` as they are now. */
export function prepareRowTally(tally: RowTally | undefined, rows: FacetRows): RowTally {
  const offsets = new Int32Array(rows.columns.length + 1);
  rows.columns.forEach((column, k) => (offsets[k + 1] = offsets[k] + column.values.length));
  const size = offsets[rows.columns.length];
  if (!tally || tally.counts.length < size) {
    const room = Math.max(size, (tally?.counts.length ?? 0) * 2, 256);
    return { offsets, counts: new Uint32Array(room), touched: new Int32Array(room), size: 0 };
  }
  tally.offsets = offsets;
  return tally;
}

/** Adds 1 to the count of each value id of each document of `ords` (live documents), every facet column at once. */
export function countRows(rows: FacetRows, ords: ArrayLike<number>, tally: RowTally): void {
  const { starts, entries } = rows;
  const { offsets, counts, touched } = tally;
  let size = tally.size;
  for (let i = 0; i < ords.length; i++) {
    const ord = ords[i];
    for (let j = starts[ord], end = starts[ord + 1]; j < end; j++) {
      const entry = entries[j];
      if (counts[offsets[entry >>> ID_BITS] + (entry & ID_MASK)]++ === 0) touched[size++] = entry;
    }
  }
  tally.size = size;
}

/** The value ids each column counted in `tally`: column k's are `ids[starts[k]]` up to `ids[starts[k + 1]]`. */
export function countedIds(tally: RowTally): { starts: Int32Array; ids: Int32Array } {
  const { touched, size } = tally;
  const starts = new Int32Array(tally.offsets.length);
  for (let i = 0; i < size; i++) starts[(touched[i] >>> ID_BITS) + 1]++;
  for (let k = 1; k < starts.length; k++) starts[k] += starts[k - 1];
  const next = starts.slice();
  const ids = new Int32Array(size);
  for (let i = 0; i < size; i++) ids[next[touched[i] >>> ID_BITS]++] = touched[i] & ID_MASK;
  return { starts, ids };
}

/** Sets every count of `tally` back to 0; `rewritten`: whole columns' counts were rewritten (a complement's live counts). */
export function clearRowTally(tally: RowTally, rewritten: boolean): void {
  const { offsets, counts, touched } = tally;
  if (rewritten) counts.fill(0, 0, offsets[offsets.length - 1]);
  else for (let i = 0; i < tally.size; i++) counts[offsets[touched[i] >>> ID_BITS] + (touched[i] & ID_MASK)] = 0;
  tally.size = 0;
}
