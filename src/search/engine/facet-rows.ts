/**
 * Facet value ids by document, row after row: every facet column's ids of one document side by side, so counting
 * all facets over a set of documents reads one place in memory per document, where the columns (columns.ts, which
 * filters and sorts read) take one per facet. An entry is the value's place in the tally: its column's region start
 * plus the value id. Regions leave room for their column to grow, and entries take 16 bits while every region fits
 * below 65,536 places (the Debian catalogue's 45,214 values), 32 bits beyond: a row half the memory of entries of
 * 32 bits, which is what counting broad queries waits on. A column outgrowing its region lays the regions out anew
 * and every entry moves to its new place. Rows are appended for the ordinals added since the last count (a document
 * only ever gets a fresh ordinal; a removed one keeps its row, never counted, as only live documents are).
 */
import type { ValueColumn } from './columns';
import { capacity, type IndexState } from './state';

/** Column indexes of the tally's places fit a byte. */
const MAX_COLUMNS = 255;
/** The most places 16-bit entries can hold. */
const NARROW_PLACES = 1 << 16;
/** Places a region has beyond its values' share of room. */
const MIN_ROOM = 16;

export interface FacetRows {
  /** The facet columns in the index's order (`state.facets`, which only grows). */
  columns: ValueColumn[];
  /** Column index -> where its region of places starts; the last entry is the number of places. */
  regions: Int32Array;
  /** Place -> the index of the column whose region holds it. */
  columnAt: Uint8Array;
  /** Ordinal `ord`'s entries are `entries[starts[ord]]` up to `entries[starts[ord + 1]]`, for ordinals below `filled`. */
  starts: Uint32Array;
  entries: Uint16Array | Uint32Array;
  filled: number;
}

/** Per-value counts of every facet column over one set of documents, reused from query to query. */
export interface RowTally {
  /** Place (`FacetRows.regions`) -> count (0 for every place not counted). */
  counts: Uint32Array;
  /**
   * The value ids counted, each column's in its own region of places as it is in `counts`: column k's are `ids[regions[k]]`
   * up to `ids[ends[k]]`, in the order first counted.
   */
  ids: Int32Array;
  ends: Int32Array;
  /** The places counted, each once, in the order first counted (`countRows`' list before `ids` sorts it by column; one to spare). */
  firsts: Int32Array;
}

/** The index's facet rows brought up to date; undefined when the facets have too many columns for a row. */
export function facetRows(state: IndexState): FacetRows | undefined {
  if (state.facets.size > MAX_COLUMNS) return undefined;
  let rows = state.caches.facetRows;
  if (!rows || rows.columns.length < state.facets.size || outgrown(rows)) rows = state.caches.facetRows = laidOut(state, rows);
  appendRows(rows, capacity(state));
  return rows;
}

function outgrown({ columns, regions }: FacetRows): boolean {
  for (let k = 0; k < columns.length; k++) if (columns[k].values.length > regions[k + 1] - regions[k]) return true;
  return false;
}

/**
 * Rows with a region for every column, with room for its values to grow by half, or by less where that keeps every
 * place within 16 bits (room for at least an eighth more); `before`'s rows moved into them.
 */
function laidOut(state: IndexState, before: FacetRows | undefined): FacetRows {
  const columns = [...state.facets.values()];
  let values = 0;
  for (const column of columns) values += column.values.length;
  const narrowRoom = (NARROW_PLACES - MIN_ROOM * columns.length) / Math.max(values, 1) - 1;
  const room = narrowRoom >= 1 / 8 ? Math.min(narrowRoom, 1 / 2) : 1 / 2;
  const regions = new Int32Array(columns.length + 1);
  columns.forEach((column, k) => (regions[k + 1] = regions[k] + Math.floor(column.values.length * (1 + room)) + MIN_ROOM));
  const places = regions[columns.length];
  const columnAt = new Uint8Array(places);
  for (let k = 0; k < columns.length; k++) columnAt.fill(k, regions[k], regions[k + 1]);
  const length = before ? before.starts[before.filled] : 0;
  const size = Math.max(length, 4096);
  const entries = places <= NARROW_PLACES ? new Uint16Array(size) : new Uint32Array(size);
  if (before) {
    for (let j = 0; j < length; j++) {
      const place = before.entries[j];
      const k = before.columnAt[place];
      entries[j] = regions[k] + place - before.regions[k];
    }
  }
  return { columns, regions, columnAt, starts: before?.starts ?? new Uint32Array(1025), entries, filled: before?.filled ?? 0 };
}

function appendRows(rows: FacetRows, size: number): void {
  if (rows.filled >= size) return;
  if (rows.starts.length < size + 1) rows.starts = grown(rows.starts, size + 1);
  let length = rows.starts[rows.filled];
  let needed = length;
  for (let ord = rows.filled; ord < size; ord++) for (const column of rows.columns) column.forEachId(ord, () => needed++);
  if (rows.entries.length < needed) rows.entries = grown(rows.entries, needed);
  const { entries, regions } = rows;
  for (let ord = rows.filled; ord < size; ord++) {
    rows.columns.forEach((column, k) => column.forEachId(ord, (id) => (entries[length++] = regions[k] + id)));
    rows.starts[ord + 1] = length;
  }
  rows.filled = size;
}

/** A copy of `array` with room for `size` (and half as much again as it had, so appending stays linear). */
function grown<T extends Uint16Array | Uint32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, Math.ceil(array.length * 1.5)));
  bigger.set(array);
  return bigger;
}

/** `tally` emptied and sized for the places of `rows` as they are now. */
export function prepareRowTally(tally: RowTally | undefined, rows: FacetRows): RowTally {
  const places = rows.regions[rows.columns.length];
  const columns = rows.columns.length;
  if (!tally || tally.counts.length < places) {
    const room = Math.max(places, (tally?.counts.length ?? 0) * 2, 256);
    tally = { counts: new Uint32Array(room), ids: new Int32Array(room), ends: new Int32Array(columns), firsts: new Int32Array(room + 1) };
  }
  if (tally.ends.length < columns) tally.ends = new Int32Array(columns);
  tally.ends.set(rows.regions.subarray(0, columns));
  return tally;
}

/** Documents whose rows are looked up together before they are counted (`countRows`). */
const BATCH = 64;

/** The bounds in `FacetRows.entries` of a batch's rows that hold entries, reused from query to query (`countRows`). */
const batchStarts = new Uint32Array(BATCH);
const batchEnds = new Uint32Array(BATCH);

/** Counts of a set of documents by column: column k's value ids counted (once each) are `ids[starts[k]]` up to `ids[starts[k + 1]]`, with their `counts`. */
export interface CountsByColumn {
  ids: Int32Array;
  counts: Uint32Array;
  starts: Int32Array;
}

/**
 * Adds 1 to the count of each value id of each document of `ords` (live documents), every facet column at once;
 * with `listed`, lists each value id the first time it is counted (`countedIds`). Unlisted saves the listing, where
 * every count is read anyway. `base` (listed only): the counts of other documents, added first, each of its value ids listed in its column.
 *
 * Counting waits on memory and on mispredicted branches more than on its instructions: a matched document's bounds
 * in `starts` and its row miss the cache, and a loop that counts a row before it looks up the next waits for each
 * miss in turn (and only learns where a row ends once its bound arrives). So the documents go in batches: a tight
 * loop reads the batch's bounds, the next counts each row's first entry, a third the rest of each row; each loop's
 * reads are independent of one another, so the processor has many of the batch's misses under way at once. A
 * place is listed without a branch (whether a `source` or `installedSize` value is new is a coin toss) and the list
 * sorted out by column after the count.
 */
export function countRows(rows: FacetRows, ords: ArrayLike<number>, tally: RowTally, listed: boolean, base?: CountsByColumn): void {
  const { starts, entries } = rows;
  const { counts, firsts } = tally;
  // The module's batch bounds as locals, read once (esbuild's bundle makes them context slots, loaded and checked per use).
  const rowStarts = batchStarts;
  const rowEnds = batchEnds;
  const batch = BATCH;
  let firstCount = 0;
  if (base) {
    const { regions } = rows;
    const { ids, ends } = tally;
    const { ids: baseIds, counts: baseCounts, starts: baseStarts } = base;
    for (let k = 0; k < rows.columns.length; k++) {
      const region = regions[k];
      let end = ends[k];
      for (let i = baseStarts[k], to = baseStarts[k + 1]; i < to; i++) {
        const id = baseIds[i];
        counts[region + id] = baseCounts[i];
        ids[end++] = id;
      }
      ends[k] = end;
    }
  }
  for (let from = 0; from < ords.length; from += batch) {
    const to = Math.min(from + batch, ords.length);
    let size = 0;
    for (let i = from; i < to; i++) {
      const ord = ords[i];
      rowStarts[size] = starts[ord];
      rowEnds[size] = starts[ord + 1];
      size += Number(rowStarts[size] < rowEnds[size]);
    }
    if (listed) {
      for (let b = 0; b < size; b++) firstCount = countListed(counts, firsts, firstCount, entries[rowStarts[b]]);
      for (let b = 0; b < size; b++)
        for (let j = rowStarts[b] + 1, end = rowEnds[b]; j < end; j++) firstCount = countListed(counts, firsts, firstCount, entries[j]);
    } else {
      for (let b = 0; b < size; b++) counts[entries[rowStarts[b]]]++;
      for (let b = 0; b < size; b++) for (let j = rowStarts[b] + 1, end = rowEnds[b]; j < end; j++) counts[entries[j]]++;
    }
  }
  if (listed) listByColumn(rows, tally, firstCount);
}

/** Adds 1 to the count of `place` and lists it at `firsts[firstCount]`; the list's length after it. */
function countListed(counts: Uint32Array, firsts: Int32Array, firstCount: number, place: number): number {
  const count = counts[place];
  counts[place] = count + 1;
  // Written whatever the count; the list's end moves on for a first count only.
  firsts[firstCount] = place;
  return firstCount + Number(count === 0);
}

/** The first `size` places of `tally.firsts` listed as value ids in their columns' regions of `tally.ids`. */
function listByColumn({ columnAt, regions }: FacetRows, { firsts, ids, ends }: RowTally, size: number): void {
  for (let i = 0; i < size; i++) {
    const place = firsts[i];
    const k = columnAt[place];
    ids[ends[k]++] = place - regions[k];
  }
}

/** Takes 1 off the count of each value id of each document of `ords`, every one of them counted before (after `countRows`: none is listed again). */
export function uncountRows(rows: FacetRows, ords: ArrayLike<number>, tally: RowTally): void {
  const { starts, entries } = rows;
  const { counts } = tally;
  for (let i = 0; i < ords.length; i++) for (let j = starts[ords[i]], end = starts[ords[i] + 1]; j < end; j++) counts[entries[j]]--;
}

/** The counts of `ords` (live documents) by column, counted in `tally` (prepared: `prepareRowTally`), which is left cleared. */
export function countsByColumn(rows: FacetRows, ords: ArrayLike<number>, tally: RowTally): CountsByColumn {
  countRows(rows, ords, tally, true);
  const { ids, ends, counts } = tally;
  const { regions } = rows;
  const columns = rows.columns.length;
  const starts = new Int32Array(columns + 1);
  for (let k = 0; k < columns; k++) starts[k + 1] = starts[k] + ends[k] - regions[k];
  const counted: CountsByColumn = { ids: new Int32Array(starts[columns]), counts: new Uint32Array(starts[columns]), starts };
  for (let k = 0, at = 0; k < columns; k++)
    for (let i = regions[k]; i < ends[k]; i++) {
      counted.ids[at] = ids[i];
      counted.counts[at++] = counts[regions[k] + ids[i]];
    }
  clearRowTally(rows, tally, false);
  return counted;
}

/** The value ids column k counted in `tally` (in the order first counted). */
export function countedIds(rows: FacetRows, tally: RowTally, k: number): Int32Array {
  return tally.ids.subarray(rows.regions[k], tally.ends[k]);
}

/** Sets every count of `tally` back to 0; `rewritten`: whole columns' counts were rewritten (a complement's live counts). */
export function clearRowTally(rows: FacetRows, tally: RowTally, rewritten: boolean): void {
  const { counts, ids, ends } = tally;
  const { regions } = rows;
  if (rewritten) counts.fill(0, 0, regions[rows.columns.length]);
  else
    for (let k = 0; k < rows.columns.length; k++)
      for (let i = regions[k], region = regions[k], end = ends[k]; i < end; i++) counts[region + ids[i]] = 0;
}
