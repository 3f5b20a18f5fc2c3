/**
 * The full-text part of an index: MiniSearch's radix tree (`SearchableMap`) as the term dictionary,
 * giving prefix and fuzzy look-ups, and compact postings per term. A postings entry is two integers:
 * `ord << 5 | slot` (document ordinal and text field slot) and the occurrence (`packOccurrence`: term
 * frequency, first position in the field, and how many word parts the term spans).
 * A loaded index keeps all postings in two flat typed arrays (no object per term); entries added
 * afterwards go to a small growable array of the term. Removed documents stay in postings until the
 * next compaction; readers skip them by liveness.
 */
import SearchableMap from 'minisearch/SearchableMap';
import type { AnalyzedWord } from './analysis';
import { fnv1a } from './hash';

/** Entries `[from, to)` of `data`: one run of a term's postings. */
export interface PostingRun {
  data: ArrayLike<number>;
  from: number;
  to: number;
}

/** How many runs a term's postings come in (`TextIndex.run`). */
export const RUN_KINDS = 2;

const NO_POSTINGS: number[] = [];

/** Postings as loaded from a snapshot: term t owns `entries[offsets[t] .. offsets[t + 1])`. */
export interface LoadedPostings {
  offsets: Int32Array;
  entries: Int32Array;
}

const MAX_LENGTH = 0xffff;
const MAX_FREQUENCY = 0xff;
const MAX_POSITION = 0x7ffff;

/** Term frequency (8 bits), span - 1 (4 bits) and first position (19 bits) of a term in a field, in one integer. */
export function packOccurrence(frequency: number, position: number, span: number): number {
  return Math.min(frequency, MAX_FREQUENCY) | ((Math.min(span, 16) - 1) << 8) | (Math.min(position, MAX_POSITION) << 12);
}
export const frequencyOf = (occurrence: number) => occurrence & 0xff;
export const spanOf = (occurrence: number) => ((occurrence >>> 8) & 15) + 1;
export const positionOf = (occurrence: number) => occurrence >>> 12;

export class TextIndex {
  /** The terms as a radix tree, for completions and typos; `idOf` looks a whole term up. */
  readonly dictionary: SearchableMap<number>;
  readonly terms: string[];
  /**
   * Term ids by their FNV-1a hash, open addressing (-1: free), at most half full: a query looks up a dozen whole
   * words (its forms, splits, rarity), each a walk of ~2 µs through the radix tree's maps, a few hashed steps here.
   */
  private termSlots = new Int32Array(0);
  private readonly loaded?: LoadedPostings;
  private readonly appended: (number[] | undefined)[] = [];
  private readonly reusedRun: PostingRun = { data: NO_POSTINGS, from: 0, to: 0 };
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
    this.hashTerms();
  }

  /** The id of a term (undefined: not indexed). */
  idOf(term: string): number | undefined {
    const slots = this.termSlots;
    const mask = slots.length - 1;
    for (let at = fnv1a(term) & mask; ; at = (at + 1) & mask) {
      const id = slots[at];
      if (id < 0) return undefined;
      if (this.terms[id] === term) return id;
    }
  }

  /** Indexes the words of each text field slot of a document: their parts by position, and their extra terms. */
  add(ord: number, slotWords: Array<[slot: number, words: AnalyzedWord[]]>): void {
    for (const [slot, words] of slotWords) {
      const occurrences = new Map<string, { frequency: number; position: number; span: number }>();
      const see = (term: string, position: number, span: number) => {
        const seen = occurrences.get(term);
        if (seen) seen.frequency += 1;
        else occurrences.set(term, { frequency: 1, position, span });
      };
      let position = 0;
      for (const { parts, extras } of words) {
        for (const extra of extras) see(extra.term, position + extra.from, extra.span);
        for (const part of parts) see(part, position++, 1);
      }
      if (!position) continue;
      for (const [term, { frequency, position: first, span }] of occurrences) {
        const id = this.termId(term);
        (this.appended[id] ??= []).push((ord << 5) | slot, packOccurrence(frequency, first, span));
      }
      const length = Math.min(position, MAX_LENGTH);
      this.setLength(slot, ord, length);
      this.totalLength[slot] += length;
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
    for (let k = 0; k < RUN_KINDS; k++) {
      const run = this.run(termId, k);
      if (run) runs.push({ ...run });
    }
    return runs;
  }

  /**
   * Run `k` of a term's postings (0: the loaded one, 1: what was added since; `RUN_KINDS` of them), or undefined when
   * it has none there: one object reused from call to call, read before the next. Matching reads the runs of every
   * expansion of a query (a prefix has up to 64), where `runs` would make a list and its objects for each.
   */
  run(termId: number, k: number): PostingRun | undefined {
    const run = this.reusedRun;
    if (k === 0) {
      if (!this.loaded || termId + 1 >= this.loaded.offsets.length) return undefined;
      run.data = this.loaded.entries;
      run.from = this.loaded.offsets[termId];
      run.to = this.loaded.offsets[termId + 1];
      return run;
    }
    const added = this.appended[termId];
    if (!added) return undefined;
    run.data = added;
    run.from = 0;
    run.to = added.length;
    return run;
  }

  /** Number of postings entries of a term (removed documents included). */
  count(termId: number): number {
    let entries = this.appended[termId]?.length ?? 0;
    if (this.loaded && termId + 1 < this.loaded.offsets.length) entries += this.loaded.offsets[termId + 1] - this.loaded.offsets[termId];
    return entries / 2;
  }

  private termId(term: string): number {
    let id = this.idOf(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.dictionary.set(term, id);
      if (this.terms.length * 2 > this.termSlots.length) this.hashTerms();
      else this.placeTerm(id);
    }
    return id;
  }

  /** Lays every term out in `termSlots` anew, at most half full. */
  private hashTerms(): void {
    let size = 1024;
    while (size < this.terms.length * 2) size *= 2;
    this.termSlots = new Int32Array(size).fill(-1);
    for (let id = 0; id < this.terms.length; id++) this.placeTerm(id);
  }

  private placeTerm(id: number): void {
    const slots = this.termSlots;
    const mask = slots.length - 1;
    let at = fnv1a(this.terms[id]) & mask;
    while (slots[at] >= 0) at = (at + 1) & mask;
    slots[at] = id;
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
