/**
 * Per-document columns for facets, filters and sorts, in typed arrays indexed by document ordinal:
 * filtering and facet counting read the matching documents' value ids, never the documents.
 */

const NO_STARTS = new Uint32Array(0);

/**
 * Categorical values (strings, booleans, category paths, attribute values) of each document, as value ids:
 * the first value in a typed array, further values (category levels, lists) packed in one typed pool,
 * `moreIds[moreStart[ord]]` up to `moreIds[moreStart[ord + 1]]` (documents are added in ordinal order, so the pool
 * only grows; a removed document's ids stay in it, hidden by its `first` of -1, until compaction rebuilds the index).
 */
export class ValueColumn {
  readonly values: string[] = [];
  readonly idOf = new Map<string, number>();
  /** Value id -> number of live documents carrying it. */
  readonly live: number[] = [];
  first: Int32Array<ArrayBufferLike> = new Int32Array(1024).fill(-1);
  /** Start of each ordinal's further ids in `moreIds`, for ordinals below `moreFilled` (absent while no document has any). */
  private moreStart?: Uint32Array;
  private moreIds = new Int32Array(0);
  private moreFilled = 0;
  private sortRanks?: Uint32Array;

  /** Adds the values of a document; ordinals come in increasing order (a fresh ordinal per document). */
  add(ord: number, values: Iterable<string>): void {
    const ids: number[] = [];
    for (const value of values) {
      const id = this.valueId(value);
      if (!ids.includes(id)) ids.push(id);
    }
    this.addIds(ord, ids);
  }

  /** `add` with value ids (`valueId`) instead of values. */
  addIds(ord: number, ids: number[]): void {
    if (!ids.length) return;
    this.setFirst(ord, ids[0]);
    if (ids.length > 1) this.addMore(ord, ids.slice(1));
    for (const id of ids) this.live[id] += 1;
  }

  remove(ord: number): void {
    this.forEachId(ord, (id) => (this.live[id] -= 1));
    if (ord < this.first.length) this.first[ord] = -1;
  }

  firstId(ord: number): number {
    return ord < this.first.length ? this.first[ord] : -1;
  }

  has(ord: number, id: number): boolean {
    const first = this.firstId(ord);
    if (first === id) return first >= 0;
    if (first < 0 || !this.moreStart || ord >= this.moreFilled) return false;
    for (let j = this.moreStart[ord]; j < this.moreStart[ord + 1]; j++) if (this.moreIds[j] === id) return true;
    return false;
  }

  /** Whether the document carries a value whose id is marked 1 in `wanted`. */
  hasAny(ord: number, wanted: Uint8Array): boolean {
    const first = this.firstId(ord);
    if (first < 0) return false;
    if (wanted[first] === 1) return true;
    if (!this.moreStart || ord >= this.moreFilled) return false;
    for (let j = this.moreStart[ord]; j < this.moreStart[ord + 1]; j++) if (wanted[this.moreIds[j]] === 1) return true;
    return false;
  }

  /** Sets `bit` in `marks[i]` where `ords[i]` carries a value marked in `wanted` (`hasAny`). */
  markHasAny(ords: ArrayLike<number>, wanted: Uint8Array, marks: Int32Array, bit: number): void {
    // `hasAny` with the column's arrays taken once (as `count` does), not read from the column per document.
    const first = this.first;
    const ordLimit = first.length;
    const start = this.moreStart ?? NO_STARTS;
    const more = this.moreIds;
    const filled = this.moreStart ? this.moreFilled : 0;
    for (let i = 0; i < ords.length; i++) {
      const ord = ords[i];
      const id = ord < ordLimit ? first[ord] : -1;
      if (id < 0) continue;
      let any = wanted[id] === 1;
      if (!any && ord < filled) for (let j = start[ord], end = start[ord + 1]; j < end && !any; j++) any = wanted[more[j]] === 1;
      if (any) marks[i] |= bit;
    }
  }

  forEachId(ord: number, fn: (id: number) => void): void {
    const first = this.firstId(ord);
    if (first < 0) return;
    fn(first);
    if (!this.moreStart || ord >= this.moreFilled) return;
    for (let j = this.moreStart[ord]; j < this.moreStart[ord + 1]; j++) fn(this.moreIds[j]);
  }

  /** Adds 1 to `tally.counts[id]` for each value id of each of the first `length` ordinals of `ords`, noting new ids. */
  count(ords: ArrayLike<number>, length: number, tally: Tally): void {
    const { counts, touched } = tally;
    let size = tally.size;
    const first = this.first;
    const ordLimit = first.length;
    const start = this.moreStart ?? NO_STARTS;
    const more = this.moreIds;
    const filled = this.moreStart ? this.moreFilled : 0;
    // Documents in a row with the same first value are counted in a register and added once: most columns have a
    // few common values, and incrementing one counter in memory after another waits on the store before.
    let runId = -1;
    let run = 0;
    for (let i = 0; i < length; i++) {
      const ord = ords[i];
      const id = ord < ordLimit ? first[ord] : -1;
      if (id < 0) continue;
      if (id === runId) run++;
      else {
        if (run > 0 && counts[runId] === 0) touched[size++] = runId;
        if (run > 0) counts[runId] += run;
        runId = id;
        run = 1;
      }
      if (ord < filled) {
        for (let j = start[ord], end = start[ord + 1]; j < end; j++) {
          const other = more[j];
          if (counts[other]++ === 0) touched[size++] = other;
        }
      }
    }
    if (run > 0 && counts[runId] === 0) touched[size++] = runId;
    if (run > 0) counts[runId] += run;
    tally.size = size;
  }

  valueId(value: string): number {
    let id = this.idOf.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.idOf.set(value, id);
      this.live.push(0);
      this.sortRanks = undefined;
    }
    return id;
  }

  /** Rank of each value in ascending string order, for sorting by this column. */
  ranks(): Uint32Array {
    if (!this.sortRanks) {
      const order = this.values.map((_, i) => i).sort((a, b) => compareStrings(this.values[a], this.values[b]));
      const ranks = new Uint32Array(this.values.length);
      order.forEach((id, rank) => (ranks[id] = rank));
      this.sortRanks = ranks;
    }
    return this.sortRanks;
  }

  private setFirst(ord: number, id: number): void {
    if (ord >= this.first.length) {
      const grown = new Int32Array(Math.max(ord + 1, this.first.length * 2)).fill(-1);
      grown.set(this.first);
      this.first = grown;
    }
    this.first[ord] = id;
  }

  /**
   * Appends the value ids after the first of a document newer than every document given further ids so far
   * (`add` does it; decoding an index, whose `first` is set whole, too). Does not count them in `live`.
   */
  addMore(ord: number, more: ArrayLike<number>): void {
    if (ord < this.moreFilled) throw new Error(`ValueColumn: ordinal ${ord} added after ${this.moreFilled - 1}`);
    let start = this.moreStart;
    if (!start || ord + 2 > start.length) {
      start = new Uint32Array(Math.max(ord + 2, (start?.length ?? 512) * 2));
      if (this.moreStart) start.set(this.moreStart);
      this.moreStart = start;
    }
    const end = start[this.moreFilled];
    start.fill(end, this.moreFilled, ord + 1);
    if (end + more.length > this.moreIds.length) {
      const grown = new Int32Array(Math.max(end + more.length, this.moreIds.length * 2, 1024));
      grown.set(this.moreIds);
      this.moreIds = grown;
    }
    for (let i = 0; i < more.length; i++) this.moreIds[end + i] = more[i];
    start[ord + 1] = end + more.length;
    this.moreFilled = ord + 1;
  }
}

/**
 * Per-value counts of one facet over a set of documents, reused from query to query: `touched` lists the value ids
 * counted (the first `size`), so a small set costs no pass over every value of the column.
 */
export interface Tally {
  /** Value id -> count (0 for every id not in `touched`). */
  counts: Uint32Array;
  touched: Int32Array;
  size: number;
}

/** One number per document (long, double, date as epoch ms); NaN where the document has none. */
export class NumberColumn {
  data: Float64Array<ArrayBufferLike> = new Float64Array(1024).fill(NaN);

  set(ord: number, value: number): void {
    if (ord >= this.data.length) {
      const grown = new Float64Array(Math.max(ord + 1, this.data.length * 2)).fill(NaN);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[ord] = value;
  }

  get(ord: number): number {
    return ord < this.data.length ? this.data[ord] : NaN;
  }

  clear(ord: number): void {
    if (ord < this.data.length) this.data[ord] = NaN;
  }

  /** Whether the document has a value within `min` to `max` (inclusive; an undefined bound is open). */
  within(ord: number, min: number | undefined, max: number | undefined): boolean {
    const v = this.get(ord);
    return !Number.isNaN(v) && (min === undefined || v >= min) && (max === undefined || v <= max);
  }

  /** Sets `bit` in `marks[i]` where `ords[i]` is `within` the bounds. */
  markWithin(ords: ArrayLike<number>, min: number | undefined, max: number | undefined, marks: Int32Array, bit: number): void {
    for (let i = 0; i < ords.length; i++) if (this.within(ords[i], min, max)) marks[i] |= bit;
  }
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
