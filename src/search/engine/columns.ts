/**
 * Per-document columns for facets, filters and sorts, in typed arrays indexed by document ordinal:
 * filtering and facet counting read the matching documents' value ids, never the documents.
 */

/**
 * Categorical values (strings, booleans, category paths, attribute values) of each document, as value ids:
 * the first value in a typed array, further values (category levels, lists) in a side map.
 */
export class ValueColumn {
  readonly values: string[] = [];
  readonly idOf = new Map<string, number>();
  /** Value id -> number of live documents carrying it. */
  readonly live: number[] = [];
  first: Int32Array<ArrayBufferLike> = new Int32Array(1024).fill(-1);
  /** Document ordinal -> value ids after the first, for documents with several values. */
  readonly extra: (number[] | undefined)[] = [];
  private sortRanks?: Uint32Array;

  add(ord: number, values: Iterable<string>): void {
    const ids: number[] = [];
    for (const value of values) {
      const id = this.valueId(value);
      if (!ids.includes(id)) ids.push(id);
    }
    if (!ids.length) return;
    this.setFirst(ord, ids[0]);
    if (ids.length > 1) this.extra[ord] = ids.slice(1);
    for (const id of ids) this.live[id] += 1;
  }

  remove(ord: number): void {
    this.forEachId(ord, (id) => (this.live[id] -= 1));
    if (ord < this.first.length) this.first[ord] = -1;
    if (this.extra[ord]) this.extra[ord] = undefined;
  }

  firstId(ord: number): number {
    return ord < this.first.length ? this.first[ord] : -1;
  }

  has(ord: number, id: number): boolean {
    return this.firstId(ord) === id || (this.extra[ord]?.includes(id) ?? false);
  }

  forEachId(ord: number, fn: (id: number) => void): void {
    const first = this.firstId(ord);
    if (first < 0) return;
    fn(first);
    const more = this.extra[ord];
    if (more) for (const id of more) fn(id);
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
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
