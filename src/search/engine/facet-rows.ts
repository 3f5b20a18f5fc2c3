/**
 * Facet value ids by document, row after row: every facet column's ids of one document side by side, so counting
 * all facets over a set of documents reads one place in memory per document, where the columns (columns.ts, which
 * filters and sorts read) take one per facet. An entry is its place in the tally above `ID_BITS` (0: a pattern,
 * k + 1: facet column k in the index's facet order) and the id there below. Rows are appended for the ordinals added
 * since the last count (a document only ever gets a fresh ordinal; a removed one keeps its row, never counted, as
 * only live documents are).
 *
 * Columns of few values (a section, a priority, a yes/no) are joined: a document's first values of all of them are
 * one pattern, and its row holds the pattern once instead of one entry per column (the catalogue's 63,436 documents
 * have 366 patterns of five such columns). The patterns counted are spread over their columns' values after the
 * count: a count per pattern instead of one per column and document.
 */
import type { ValueColumn } from './columns';
import { capacity, type IndexState } from './state';

const ID_BITS = 24;
const ID_MASK = (1 << ID_BITS) - 1;
/** Column indexes (+ 1 for the patterns' place) stay below the sign bit of an entry. */
const MAX_COLUMNS = 127;
/** The tally place of patterns; facet column k counts at place k + 1. */
const PATTERNS = 0;
/**
 * Columns are joined, fewest values first, while the product of their value counts (+ 1 for none) stays within
 * this: few patterns, so spreading the counted ones costs little beside counting one entry less per document.
 */
const MAX_PATTERN_SPACE = 1 << 16;
/** Pattern keys stay below this: small integers, which V8 keeps unboxed. */
const MAX_KEY = 1 << 30;

export interface FacetRows {
  /** The facet columns in the index's order (`state.facets`, which only grows). */
  columns: ValueColumn[];
  /**
   * The joined columns (chosen when the rows are first built): their indexes in `columns`, and the radix of each in
   * a pattern's key, the key being its value ids + 1 (0: none) in mixed radix. A value id without room in its radix
   * (the column grew) is left out of the pattern: an entry of the row, as a column's further values are.
   */
  joined: number[];
  radixes: number[];
  /** A pattern's key -> pattern id. */
  patternIds: Map<number, number>;
  /** Pattern p's value id in joined column j at `patternValues[p * joined.length + j]`, -1 for none. */
  patternValues: number[];
  /** Ordinal `ord`'s entries are `entries[starts[ord]]` up to `entries[starts[ord + 1]]`, for ordinals below `filled`. */
  starts: Uint32Array;
  entries: Int32Array;
  filled: number;
}

/** Per-value counts of every facet column over one set of documents, reused from query to query. */
export interface RowTally {
  /** Tally place (0 patterns, k + 1 column k) -> where its ids start in `counts`, for the columns as of the count. */
  offsets: Int32Array;
  /** Id + its place's offset -> count (0 for every position not in `touched`). */
  counts: Uint32Array;
  /** The entries (place and id) counted, the first `size`. */
  touched: Int32Array;
  size: number;
  /** The patterns counted, listed while spreading them. */
  patterns: Int32Array;
}

/** The index's facet rows brought up to date; undefined when the facets do not fit an entry (too many columns or values). */
export function facetRows(state: IndexState): FacetRows | undefined {
  if (state.facets.size > MAX_COLUMNS) return undefined;
  for (const column of state.facets.values()) if (column.values.length > ID_MASK) return undefined;
  let rows = state.caches.facetRows;
  if (!rows) {
    const columns = [...state.facets.values()];
    const { joined, radixes } = joinable(columns);
    rows = {
      columns,
      joined,
      radixes,
      patternIds: new Map(),
      patternValues: [],
      starts: new Uint32Array(1025),
      entries: new Int32Array(4096),
      filled: 0,
    };
    state.caches.facetRows = rows;
  }
  if (rows.columns.length < state.facets.size) rows.columns = [...state.facets.values()];
  // Each ordinal appended may bring a pattern: their ids must fit an entry too.
  if (rows.patternIds.size + capacity(state) - rows.filled > ID_MASK) return undefined;
  appendRows(rows, capacity(state));
  return rows;
}

/**
 * The columns to join: those of fewest values, while their patterns stay few (`MAX_PATTERN_SPACE`); each column's
 * radix leaves room for its values to double, its keys within small integers (fast map keys).
 */
function joinable(columns: ValueColumn[]): { joined: number[]; radixes: number[] } {
  const byValues = columns.map((_, k) => k).sort((a, b) => columns[a].values.length - columns[b].values.length);
  const joined: number[] = [];
  const radixes: number[] = [];
  let space = 1;
  let keys = 1;
  for (const k of byValues) {
    const values = columns[k].values.length;
    const radix = 2 ** Math.ceil(Math.log2(2 * (values + 1)));
    space *= values + 1;
    keys *= radix;
    if (space > MAX_PATTERN_SPACE || keys > MAX_KEY) break;
    joined.push(k);
    radixes.push(radix);
  }
  // One column alone gains nothing: its pattern is its value.
  return joined.length > 1 ? { joined, radixes } : { joined: [], radixes: [] };
}

function appendRows(rows: FacetRows, size: number): void {
  if (rows.filled >= size) return;
  if (rows.starts.length < size + 1) rows.starts = grown(rows.starts, size + 1);
  const { columns, joined, radixes } = rows;
  let length = rows.starts[rows.filled];
  // At most every id and a pattern per document.
  let needed = length + (size - rows.filled);
  for (let ord = rows.filled; ord < size; ord++) for (const column of columns) needed += column.idCount(ord);
  if (rows.entries.length < needed) rows.entries = grown(rows.entries, needed);
  const { entries } = rows;
  // Per column: 1 when the document's first value is in its pattern.
  const inPattern = new Uint8Array(columns.length);
  for (let ord = rows.filled; ord < size; ord++) {
    let key = 0;
    for (let j = joined.length - 1; j >= 0; j--) {
      const digit = columns[joined[j]].firstId(ord) + 1;
      const fits = digit > 0 && digit < radixes[j];
      inPattern[joined[j]] = fits ? 1 : 0;
      key = key * radixes[j] + (fits ? digit : 0);
    }
    if (key > 0) entries[length++] = (PATTERNS << ID_BITS) | patternId(rows, key);
    for (let k = 0; k < columns.length; k++) {
      const count = columns[k].idCount(ord);
      if (count === 0) continue;
      columns[k].copyIds(ord, entries, length, (k + 1) << ID_BITS);
      // The first value, when in the pattern, gives its place to the last (the order within a row counts for nothing).
      if (inPattern[k] === 1) entries[length] = entries[length + count - 1];
      length += count - inPattern[k];
    }
    rows.starts[ord + 1] = length;
  }
  rows.filled = size;
}

function patternId(rows: FacetRows, key: number): number {
  let id = rows.patternIds.get(key);
  if (id === undefined) {
    id = rows.patternIds.size;
    rows.patternIds.set(key, id);
    for (const radix of rows.radixes) {
      rows.patternValues.push((key % radix) - 1);
      key = Math.floor(key / radix);
    }
  }
  return id;
}

/** A copy of `array` with room for `size` (and half as much again as it had, so appending stays linear). */
function grown<T extends Uint32Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, Math.ceil(array.length * 1.5)));
  bigger.set(array);
  return bigger;
}

/** `tally` emptied and sized for the patterns and columns of `rows` as they are now. */
export function prepareRowTally(tally: RowTally | undefined, rows: FacetRows): RowTally {
  const offsets = new Int32Array(rows.columns.length + 2);
  offsets[PATTERNS + 1] = rows.patternIds.size;
  rows.columns.forEach((column, k) => (offsets[k + 2] = offsets[k + 1] + column.values.length));
  const size = offsets[rows.columns.length + 1];
  if (!tally || tally.counts.length < size) {
    const room = Math.max(size, (tally?.counts.length ?? 0) * 2, 256);
    return { offsets, counts: new Uint32Array(room), touched: new Int32Array(room), size: 0, patterns: new Int32Array(room) };
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
  spreadPatterns(rows, tally);
}

/** Moves the counts of the patterns counted to their columns' values (the patterns' counts back to 0). */
function spreadPatterns(rows: FacetRows, tally: RowTally): void {
  const { counts, touched, patterns } = tally;
  let kept = 0;
  let found = 0;
  for (let i = 0; i < tally.size; i++) {
    const entry = touched[i];
    if (entry >>> ID_BITS === PATTERNS) patterns[found++] = entry & ID_MASK;
    else touched[kept++] = entry;
  }
  const { joined, patternValues } = rows;
  const places = joined.map((k) => k + 1);
  const offsets = joined.map((k) => tally.offsets[k + 1]);
  for (let i = 0; i < found; i++) {
    const pattern = patterns[i];
    const count = counts[pattern];
    counts[pattern] = 0;
    for (let j = 0, at = pattern * joined.length; j < joined.length; j++, at++) {
      const id = patternValues[at];
      if (id < 0) continue;
      if (counts[offsets[j] + id] === 0) touched[kept++] = (places[j] << ID_BITS) | id;
      counts[offsets[j] + id] += count;
    }
  }
  tally.size = kept;
}

/** The value ids each column counted in `tally`: column k's are `ids[starts[k]]` up to `ids[starts[k + 1]]`. */
export function countedIds(tally: RowTally): { starts: Int32Array; ids: Int32Array } {
  const { touched, size } = tally;
  // Column k counts at place k + 1 (no pattern is left once spread): place p's count goes to `starts[p]`, then summed.
  const starts = new Int32Array(tally.offsets.length - 1);
  for (let i = 0; i < size; i++) starts[touched[i] >>> ID_BITS]++;
  for (let k = 1; k < starts.length; k++) starts[k] += starts[k - 1];
  const next = starts.slice();
  const ids = new Int32Array(size);
  for (let i = 0; i < size; i++) ids[next[(touched[i] >>> ID_BITS) - 1]++] = touched[i] & ID_MASK;
  return { starts, ids };
}

/** Column k's counts in `tally`, by value id. */
export function countsOfColumn(tally: RowTally, k: number): Uint32Array {
  return tally.counts.subarray(tally.offsets[k + 1], tally.offsets[k + 2]);
}

/** Sets every count of `tally` back to 0; `rewritten`: whole columns' counts were rewritten (a complement's live counts). */
export function clearRowTally(tally: RowTally, rewritten: boolean): void {
  const { offsets, counts, touched } = tally;
  if (rewritten) counts.fill(0, 0, offsets[offsets.length - 1]);
  else for (let i = 0; i < tally.size; i++) counts[offsets[touched[i] >>> ID_BITS] + (touched[i] & ID_MASK)] = 0;
  tally.size = 0;
}
