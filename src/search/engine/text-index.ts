/**
 * The full-text part of an index: MiniSearch's radix tree (`SearchableMap`) as the term dictionary,
 * giving prefix and fuzzy look-ups, and compact postings per term. A postings entry is two integers:
 * `ord << 5 | slot` (document ordinal and text field slot) and the term frequency.
 * A loaded index keeps all postings in two flat typed arrays (no object per term); entries added
 * afterwards go to a small growable array of the term. Removed documents stay in postings until the
 * next compaction; readers skip them by liveness.
 */
import SearchableMap from 'minisearch/SearchableMap';

/** Entries `[from, to)` of `data`: one run of a term's postings. */
export interface PostingRun {
  data: ArrayLike<number>;
  from: number;
  to: number;
}

/** Postings as loaded from a snapshot: term t owns `entries[offsets[t] .. offsets[t + 1])`. */
export interface LoadedPostings {
  offsets: Int32Array;
  entries: Int32Array;
}

const MAX_LENGTH = 0xffff;

export class TextIndex {
  readonly dictionary: SearchableMap<number>;
  readonly terms: string[];
  private readonly loaded?: LoadedPostings;
  private readonly appended: (number[] | undefined)[] = [];
  /** Per slot: token count of the field in each document. */
  readonly lengths: Uint16Array[];
  readonly totalLength: number[];
  readonly documentsWithField: number[];

  constructor(
    slots: number,
    state?: { terms: string[]; postings: LoadedPostings; lengths: Uint16Array[]; totalLength: number[]; documentsWithField: number[] },
  ) {
    this.terms = state?.terms ?? [];
    this.loaded = state?.postings;
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
        const id = this.termId(term);
        (this.appended[id] ??= []).push((ord << 5) | slot, frequency);
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

  /** The runs of a term's postings: the loaded one, then what was added since. */
  runs(termId: number): PostingRun[] {
    const runs: PostingRun[] = [];
    if (this.loaded && termId + 1 < this.loaded.offsets.length) {
      runs.push({ data: this.loaded.entries, from: this.loaded.offsets[termId], to: this.loaded.offsets[termId + 1] });
    }
    const added = this.appended[termId];
    if (added) runs.push({ data: added, from: 0, to: added.length });
    return runs;
  }

  /** Number of postings entries of a term (removed documents included). */
  count(termId: number): number {
    let entries = this.appended[termId]?.length ?? 0;
    if (this.loaded && termId + 1 < this.loaded.offsets.length) entries += this.loaded.offsets[termId + 1] - this.loaded.offsets[termId];
    return entries / 2;
  }

  private termId(term: string): number {
    let id = this.dictionary.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.dictionary.set(term, id);
    }
    return id;
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
