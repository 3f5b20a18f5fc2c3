/**
 * Per-document columns, indexed by document ordinal: facet values (value ids into a per-facet dictionary),
 * numbers (range filters and sorts) and strings (sorts). Facet counting and filtering read these for the
 * matched documents only.
 */

function grown<T extends Int32Array | Float64Array | Uint16Array | Uint8Array>(array: T, capacity: number, fill = 0): T {
  if (array.length >= capacity) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(capacity, array.length * 2, 64));
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}
export { grown };

/** Facet values of each document. head: 0 none, > 0 a single value id + 1, < 0 -(offset + 1) into pool ([count, ...ids]). */
export class ValueColumn {
  values: string[] = [];
  valueIds = new Map<string, number>();
  head = new Int32Array(0);
  pool: number[] | Int32Array = [];

  constructor(readonly id: string) {}

  valueId(value: string): number {
    let id = this.valueIds.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.valueIds.set(value, id);
    }
    return id;
  }

  set(ordinal: number, values: string[]): void {
    this.head = grown(this.head, ordinal + 1);
    const unique = [...new Set(values)];
    if (unique.length === 0) this.head[ordinal] = 0;
    else if (unique.length === 1) this.head[ordinal] = this.valueId(unique[0]) + 1;
    else {
      if (!Array.isArray(this.pool)) this.pool = Array.from(this.pool);
      this.head[ordinal] = -(this.pool.length + 1);
      this.pool.push(unique.length, ...unique.map((value) => this.valueId(value)));
    }
  }

  /** Calls visit with each value id of the document. */
  forEach(ordinal: number, visit: (valueId: number) => void): void {
    const head = ordinal < this.head.length ? this.head[ordinal] : 0;
    if (head > 0) visit(head - 1);
    else if (head < 0) {
      const offset = -head - 1;
      const pool = this.pool;
      for (let i = offset + 1, end = offset + 1 + pool[offset]; i < end; i++) visit(pool[i]);
    }
  }

  has(ordinal: number, valueId: number): boolean {
    const head = ordinal < this.head.length ? this.head[ordinal] : 0;
    if (head > 0) return head - 1 === valueId;
    if (head === 0) return false;
    const offset = -head - 1;
    for (let i = offset + 1, end = offset + 1 + this.pool[offset]; i < end; i++) if (this.pool[i] === valueId) return true;
    return false;
  }

  /** Rebuilds for dense ordinals (remap[old] = new or -1), dropping values no document has any more. */
  compact(remap: Int32Array, size: number): void {
    const old = { values: this.values, head: this.head, pool: this.pool };
    this.values = [];
    this.valueIds = new Map();
    this.head = new Int32Array(size);
    this.pool = [];
    for (let ordinal = 0; ordinal < remap.length; ordinal++) {
      if (remap[ordinal] < 0) continue;
      const values: string[] = [];
      const head = ordinal < old.head.length ? old.head[ordinal] : 0;
      if (head > 0) values.push(old.values[head - 1]);
      else if (head < 0) {
        const offset = -head - 1;
        for (let i = offset + 1; i < offset + 1 + old.pool[offset]; i++) values.push(old.values[old.pool[i]]);
      }
      this.set(remap[ordinal], values);
    }
  }
}

/** One number per document (NaN = none): numeric/date facets' ranges and sorts. */
export class NumberColumn {
  data = new Float64Array(0);
  set(ordinal: number, value: number): void {
    this.data = grown(this.data, ordinal + 1, NaN);
    this.data[ordinal] = value;
  }
  get(ordinal: number): number {
    return ordinal < this.data.length ? this.data[ordinal] : NaN;
  }
  compact(remap: Int32Array, size: number): void {
    const next = new Float64Array(size).fill(NaN);
    for (let ordinal = 0; ordinal < remap.length; ordinal++) if (remap[ordinal] >= 0) next[remap[ordinal]] = this.get(ordinal);
    this.data = next;
  }
}

/** One normalized string per document: string sorts. */
export class StringColumn {
  data: Array<string | undefined> = [];
  set(ordinal: number, value: string | undefined): void {
    this.data[ordinal] = value;
  }
  get(ordinal: number): string | undefined {
    return this.data[ordinal];
  }
  compact(remap: Int32Array, size: number): void {
    const next: Array<string | undefined> = new Array(size);
    for (let ordinal = 0; ordinal < remap.length; ordinal++) if (remap[ordinal] >= 0) next[remap[ordinal]] = this.data[ordinal];
    this.data = next;
  }
}
