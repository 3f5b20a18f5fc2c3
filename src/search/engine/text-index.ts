/**
 * The full-text part of an index: MiniSearch's radix tree (`SearchableMap`) as the term dictionary,
 * giving prefix and fuzzy look-ups, and compact postings per term. A postings entry is two integers:
 * `ord << 5 | slot` (document ordinal and text field slot) and the term frequency.
 * Removed documents stay in postings until the next compaction; readers skip them by liveness.
 */
import SearchableMap from 'minisearch/SearchableMap';

export type Postings = number[] | Int32Array;

const MAX_LENGTH = 0xffff;

export class TextIndex {
  readonly dictionary: SearchableMap<number>;
  readonly terms: string[];
  readonly postings: Postings[];
  /** Per slot: token count of the field in each document. */
  readonly lengths: Uint16Array[];
  readonly totalLength: number[];
  readonly documentsWithField: number[];

  constructor(
    slots: number,
    state?: { terms: string[]; postings: Postings[]; lengths: Uint16Array[]; totalLength: number[]; documentsWithField: number[] },
  ) {
    this.terms = state?.terms ?? [];
    this.postings = state?.postings ?? [];
    this.lengths = state?.lengths ?? Array.from({ length: slots }, () => new Uint16Array(1024));
    this.totalLength = state?.totalLength ?? new Array(slots).fill(0);
    this.documentsWithField = state?.documentsWithField ?? new Array(slots).fill(0);
    this.dictionary = new SearchableMap<number>();
    this.terms.forEach((term, id) => this.dictionary.set(term, id));
  }

  /** Indexes the tokens of each text field slot of a document. */
  add(ord: number, slotTokens: Array<[slot: number, tokens: string[]]>): void {
    for (const [slot, tokens] of slotTokens) {
      if (!tokens.length) continue;
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      for (const [term, frequency] of frequencies) {
        const list = this.mutablePostings(this.termId(term));
        list.push((ord << 5) | slot, frequency);
      }
      this.setLength(slot, ord, Math.min(tokens.length, MAX_LENGTH));
      this.totalLength[slot] += Math.min(tokens.length, MAX_LENGTH);
      this.documentsWithField[slot] += 1;
    }
  }

  /** Forgets a document's field lengths; its postings entries are skipped as dead from now on. */
  remove(ord: number): void {
    this.lengths.forEach((lengths, slot) => {
      const length = ord < lengths.length ? lengths[ord] : 0;
      if (!length) return;
      this.totalLength[slot] -= length;
      this.documentsWithField[slot] -= 1;
      lengths[ord] = 0;
    });
  }

  length(slot: number, ord: number): number {
    const lengths = this.lengths[slot];
    return ord < lengths.length ? lengths[ord] : 0;
  }

  averageLength(slot: number): number {
    return this.documentsWithField[slot] ? this.totalLength[slot] / this.documentsWithField[slot] : 1;
  }

  private termId(term: string): number {
    let id = this.dictionary.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.postings.push([]);
      this.dictionary.set(term, id);
    }
    return id;
  }

  /** Postings loaded from a snapshot are typed-array views; the first write turns them into a growable array. */
  private mutablePostings(id: number): number[] {
    const list = this.postings[id];
    if (Array.isArray(list)) return list;
    const copy = Array.from(list);
    this.postings[id] = copy;
    return copy;
  }

  private setLength(slot: number, ord: number, length: number): void {
    let lengths = this.lengths[slot];
    if (ord >= lengths.length) {
      const grown = new Uint16Array(Math.max(ord + 1, lengths.length * 2));
      grown.set(lengths);
      this.lengths[slot] = lengths = grown;
    }
    lengths[ord] = length;
  }
}
