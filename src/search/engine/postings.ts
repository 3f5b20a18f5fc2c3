import SearchableMap from 'minisearch/SearchableMap';

/**
 * Term dictionary and postings.
 * Text terms live in a radix tree (prefix and fuzzy lookups); exact keys (whole phrases, scalar values)
 * in a plain Map. Both map to a term id. A posting is one integer: ordinal * 2048 + slot * 8 + min(tf, 7),
 * where slot is the searchable field's index (< 256). Postings of a term are in ordinal order: a frozen
 * base (one Uint32Array for all terms, read from the serialized form or the last compaction) followed by
 * a growable delta array of the documents added since.
 */
export const SLOT_SHIFT = 8;
export const ORDINAL_FACTOR = 2048;
export const MAX_ORDINALS = Math.floor(2 ** 32 / ORDINAL_FACTOR);

export function packPosting(ordinal: number, slot: number, tf: number): number {
  return ordinal * ORDINAL_FACTOR + slot * 8 + Math.min(tf, 7);
}
export const postingOrdinal = (posting: number): number => Math.floor(posting / ORDINAL_FACTOR);
export const postingSlot = (posting: number): number => (posting >>> 3) & 0xff;
export const postingTf = (posting: number): number => posting & 7;

export class Postings {
  textTerms = new SearchableMap<number>();
  exactTerms = new Map<string, number>();
  termCount = 0;
  baseOffsets = new Uint32Array(1);
  baseData = new Uint32Array(0);
  delta: Array<number[] | undefined> = [];
  deltaSize = 0;

  textTermId(term: string): number {
    let id = this.textTerms.get(term);
    if (id === undefined) this.textTerms.set(term, (id = this.termCount++));
    return id;
  }

  exactTermId(key: string): number {
    let id = this.exactTerms.get(key);
    if (id === undefined) this.exactTerms.set(key, (id = this.termCount++));
    return id;
  }

  append(termId: number, posting: number): void {
    const list = this.delta[termId];
    if (list) list.push(posting);
    else this.delta[termId] = [posting];
    this.deltaSize++;
  }

  count(termId: number): number {
    const base = termId + 1 < this.baseOffsets.length ? this.baseOffsets[termId + 1] - this.baseOffsets[termId] : 0;
    return base + (this.delta[termId]?.length ?? 0);
  }

  forEach(termId: number, visit: (posting: number) => void): void {
    if (termId + 1 < this.baseOffsets.length) {
      const data = this.baseData;
      for (let i = this.baseOffsets[termId], end = this.baseOffsets[termId + 1]; i < end; i++) visit(data[i]);
    }
    const list = this.delta[termId];
    if (list) for (let i = 0; i < list.length; i++) visit(list[i]);
  }

  /** Merges the delta into the base, renumbering ordinals (-1 = dropped document). Empty terms are forgotten. */
  compact(remap: Int32Array | null): void {
    const terms: Array<[string, number, boolean]> = [];
    for (const [term, id] of this.textTerms) terms.push([term, id, true]);
    for (const [key, id] of this.exactTerms) terms.push([key, id, false]);
    terms.sort((a, b) => a[1] - b[1]);
    const data = new Uint32Array(this.baseData.length + this.deltaSize);
    const offsets = new Uint32Array(terms.length + 1);
    const textTerms = new SearchableMap<number>();
    const exactTerms = new Map<string, number>();
    let n = 0;
    let newId = 0;
    for (const [term, oldId, isText] of terms) {
      const start = n;
      this.forEach(oldId, (posting) => {
        if (!remap) data[n++] = posting;
        else {
          const ordinal = remap[postingOrdinal(posting)];
          if (ordinal >= 0) data[n++] = ordinal * ORDINAL_FACTOR + (posting % ORDINAL_FACTOR);
        }
      });
      if (n === start) continue;
      offsets[newId] = start;
      offsets[newId + 1] = n;
      if (isText) textTerms.set(term, newId);
      else exactTerms.set(term, newId);
      newId++;
    }
    this.baseData = n === data.length ? data : data.slice(0, n);
    this.baseOffsets = offsets.slice(0, newId + 1);
    this.termCount = newId;
    this.delta = [];
    this.deltaSize = 0;
    this.textTerms = textTerms;
    this.exactTerms = exactTerms;
  }
}
