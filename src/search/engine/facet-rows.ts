/**
 * Facet value ids by document, row after row: every facet column's ids of one document side by side, so counting
 * all facets over a set of documents reads one place in memory per document, where the columns (columns.ts, which
 * filters and sorts read) take one per facet. An entry is the value's place in the tally: its column's region start
 * plus the value id. Regions leave room for their column to grow, and entries take 16 bits while every region fits
 * below 65,536 places (the Debian catalogue's 45,214 values), 32 bits beyond: a row half the memory of entries of
 * 32 bits, which is what counting broad queries waits on. A column outgrowing its region lays the regions out anew
 * and every entry moves to its new place. Rows are appended for the ordinals added since the last count (a document
 * only ever gets a fresh ordinal; a removed one keeps its row, never counted, as only live documents are).
 *
 * The small columns (a region of at most `SMALL_REGION` places: Debian's section, priority, architecture, multi-arch
 * and essential) take one entry per row between them, a combination's place: the places of the row's values in those
 * columns, as distinct sets of them go (a few hundred in the catalogue). Counting a row then adds 1 once for them, and
 * each combination counted adds its count to its places after (`spreadCombinations`): 9.5 → 6.2 entries a row.
 */
import type { ValueColumn } from './columns';
import { capacity, type IndexState } from './state';

/** Column indexes of the tally's places fit a byte. */
const MAX_COLUMNS = 255;
/** The most places 16-bit entries can hold. */
const NARROW_PLACES = 1 << 16;
/** Places a region has beyond its values' share of room. */
const MIN_ROOM = 16;
/** A column whose region holds at most this many places is a small one: its values go into a row's combination. */
const SMALL_REGION = 256;
/** Combinations of small columns' places kept; a row whose set is new once they are all taken holds its places as they are. */
const MAX_COMBINATIONS = 1024;

export interface FacetRows {
  /** The facet columns in the index's order (`state.facets`, which only grows). */
  columns: ValueColumn[];
  /**
   * Column index -> where its region of places starts; then where the combinations' region starts (their places are
   * its start plus the combination's number: `columnAt` gives them the index after the last column); the last entry
   * is the number of places.
   */
  regions: Int32Array;
  /** Place -> the index of the column whose region holds it. */
  columnAt: Uint8Array;
  combinations: Combinations;
  /** Ordinal `ord`'s entries are `entries[starts[ord]]` up to `entries[starts[ord + 1]]`, for ordinals below `filled`. */
  starts: Uint32Array;
  entries: Uint16Array | Uint32Array;
  filled: number;
  /** The value ids the rows below `filled` hold (a combination's entry stands for several). */
  valueIds: number;
}

/** Sets of small columns' places that rows hold as one entry, numbered as they first come. */
interface Combinations {
  /** Combination c's places are `places[starts[c]]` up to `places[starts[c + 1]]`. */
  starts: Int32Array;
  places: Int32Array;
  count: number;
  /** The places joined by commas -> the combination's number. */
  byKey: Map<string, number>;
}

/** Per-value counts of every facet column over one set of documents, reused from query to query. */
export interface RowTally {
  /** Place (`FacetRows.regions`) -> count (0 for every place not counted). */
  counts: Uint32Array;
  /**
   * The value ids counted, each column's in its own region of places as it is in `counts`: column k's are `ids[regions[k]]`
   * up to `ids[ends[k]]`, in the order first counted (the combinations' too, until `spreadCombinations` adds them up).
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
  const narrowRoom = (NARROW_PLACES - MIN_ROOM * columns.length - MAX_COMBINATIONS) / Math.max(values, 1) - 1;
  const room = narrowRoom >= 1 / 8 ? Math.min(narrowRoom, 1 / 2) : 1 / 2;
  const regions = new Int32Array(columns.length + 2);
  columns.forEach((column, k) => (regions[k + 1] = regions[k] + Math.floor(column.values.length * (1 + room)) + MIN_ROOM));
  regions[columns.length + 1] = regions[columns.length] + MAX_COMBINATIONS;
  const places = regions[columns.length + 1];
  const columnAt = new Uint8Array(places);
  for (let k = 0; k <= columns.length; k++) columnAt.fill(k, regions[k], regions[k + 1]);
  const length = before ? before.starts[before.filled] : 0;
  const size = Math.max(length, 4096);
  const entries = places <= NARROW_PLACES ? new Uint16Array(size) : new Uint32Array(size);
  const combinations: Combinations = {
    starts: new Int32Array(MAX_COMBINATIONS + 1),
    places: new Int32Array(0),
    count: 0,
    byKey: new Map(),
  };
  if (before) {
    // The columns' regions of `before` are the first of these (columns are only added), its combinations' region follows them.
    const moved = (place: number) => {
      const k = before.columnAt[place];
      return (k === before.columns.length ? regions[columns.length] : regions[k]) + place - before.regions[k];
    };
    for (let j = 0; j < length; j++) entries[j] = moved(before.entries[j]);
    const { starts, places: kept, count } = before.combinations;
    combinations.places = kept.map(moved);
    combinations.starts.set(starts);
    combinations.count = count;
    for (let c = 0; c < count; c++) combinations.byKey.set(combinations.places.subarray(starts[c], starts[c + 1]).join(','), c);
  }
  return {
    columns,
    regions,
    columnAt,
    combinations,
    starts: before?.starts ?? new Uint32Array(1025),
    entries,
    filled: before?.filled ?? 0,
    valueIds: before?.valueIds ?? 0,
  };
}

function appendRows(rows: FacetRows, size: number): void {
  if (rows.filled >= size) return;
  if (rows.starts.length < size + 1) rows.starts = grown(rows.starts, size + 1);
  let length = rows.starts[rows.filled];
  let needed = length;
  for (let ord = rows.filled; ord < size; ord++) for (const column of rows.columns) column.forEachId(ord, () => needed++);
  if (rows.entries.length < needed) rows.entries = grown(rows.entries, needed);
  rows.valueIds += needed - length;
  const { entries, regions, columns } = rows;
  const small: number[] = [];
  for (let ord = rows.filled; ord < size; ord++) {
    small.length = 0;
    columns.forEach((column, k) =>
      column.forEachId(ord, (id) => {
        if (regions[k + 1] - regions[k] <= SMALL_REGION) small.push(regions[k] + id);
        else entries[length++] = regions[k] + id;
      }),
    );
    const combination = small.length > 1 ? combinationOf(rows.combinations, small) : -1;
    if (combination >= 0) entries[length++] = regions[columns.length] + combination;
    else for (const place of small) entries[length++] = place;
    rows.starts[ord + 1] = length;
  }
  rows.filled = size;
}

/** The number of the combination of `places`, a new one if there is room (-1 when there is none). */
function combinationOf(combinations: Combinations, places: number[]): number {
  const key = places.join(',');
  const known = combinations.byKey.get(key);
  if (known !== undefined) return known;
  if (combinations.count === MAX_COMBINATIONS) return -1;
  const c = combinations.count++;
  const from = combinations.starts[c];
  if (combinations.places.length < from + places.length) {
    const bigger = new Int32Array(Math.max(from + places.length, combinations.places.length * 2, 64));
    bigger.set(combinations.places);
    combinations.places = bigger;
  }
  combinations.places.set(places, from);
  combinations.starts[c + 1] = from + places.length;
  combinations.byKey.set(key, c);
  return c;
}

/** A copy of `array` with room for `size` (and half as much again as it had, so appending stays linear). */
function grown<T extends Uint16Array | Uint32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, Math.ceil(array.length * 1.5)));
  bigger.set(array);
  return bigger;
}

/** `tally` emptied and sized for the places of `rows` as they are now. */
export function prepareRowTally(tally: RowTally | undefined, rows: FacetRows): RowTally {
  // The columns and the combinations.
  const regionCount = rows.columns.length + 1;
  const places = rows.regions[regionCount];
  if (!tally || tally.counts.length < places) {
    const room = Math.max(places, (tally?.counts.length ?? 0) * 2, 256);
    tally = {
      counts: new Uint32Array(room),
      ids: new Int32Array(room),
      ends: new Int32Array(regionCount),
      firsts: new Int32Array(room + 1),
    };
  }
  if (tally.ends.length < regionCount) tally.ends = new Int32Array(regionCount);
  tally.ends.set(rows.regions.subarray(0, regionCount));
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
  if (base) addCounts(rows, tally, base);
  const firstCount = countEntries(rows, ords, tally, listed);
  if (listed) listByColumn(rows, tally, firstCount);
  spreadCombinations(rows, tally, listed);
}

/** Sets the counts of `base` in `tally`, each of its value ids listed in its column. */
function addCounts(rows: FacetRows, tally: RowTally, base: CountsByColumn): void {
  const { regions } = rows;
  const { counts, ids, ends } = tally;
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

/**
 * `countRows`' count of the rows' entries; `listed`: each place counted first listed in `tally.firsts`, answering how
 * many. Alone in a function with nothing after its loop: TurboFan compiles it on stack replacement at a first broad
 * query, and code after the loop without type feedback by then made each later call leave that code again.
 */
function countEntries(rows: FacetRows, ords: ArrayLike<number>, tally: RowTally, listed: boolean): number {
  const { starts, entries } = rows;
  const { counts, firsts } = tally;
  // The module's batch bounds as locals, read once (esbuild's bundle makes them context slots, loaded and checked per use).
  const rowStarts = batchStarts;
  const rowEnds = batchEnds;
  const batch = BATCH;
  let firstCount = 0;
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
  return firstCount;
}

/**
 * Adds each combination's count to its places and sets it back to 0; `listed`: the combinations counted are listed
 * (in their region of `tally.ids`), and a place counted here first is listed in its column's.
 */
function spreadCombinations({ combinations, regions, columnAt, columns }: FacetRows, tally: RowTally, listed: boolean): void {
  const { counts, ids, ends } = tally;
  const { starts, places, count: combinationCount } = combinations;
  const region = regions[columns.length];
  const listedEnd = ends[columns.length];
  const count = listed ? listedEnd - region : combinationCount;
  for (let i = 0; i < count; i++) {
    const c = listed ? ids[region + i] : i;
    const times = counts[region + c];
    if (times === 0) continue;
    counts[region + c] = 0;
    for (let j = starts[c], end = starts[c + 1]; j < end; j++) {
      const place = places[j];
      if (listed && counts[place] === 0) {
        const k = columnAt[place];
        ids[ends[k]++] = place - regions[k];
      }
      counts[place] += times;
    }
  }
  ends[columns.length] = region;
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
  const { starts, entries, regions, columns, combinations } = rows;
  const { counts } = tally;
  const region = regions[columns.length];
  for (let i = 0; i < ords.length; i++)
    for (let j = starts[ords[i]], end = starts[ords[i] + 1]; j < end; j++) {
      const place = entries[j];
      if (place < region) counts[place]--;
      else
        for (let p = combinations.starts[place - region], to = combinations.starts[place - region + 1]; p < to; p++)
          counts[combinations.places[p]]--;
    }
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
  if (rewritten) counts.fill(0, 0, regions[rows.columns.length + 1]);
  else
    for (let k = 0; k < rows.columns.length; k++)
      for (let i = regions[k], region = regions[k], end = ends[k]; i < end; i++) counts[region + ids[i]] = 0;
}
