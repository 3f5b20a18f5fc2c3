/**
 * Whole-index statistics for the shards of one index, kept at ingest rather than gathered per query (the idea of
 * Elasticsearch's dfs_query_then_fetch without its extra round trip): every shard hands its share
 * (`statisticsShare`: documents, field lengths, each term's document frequency, its titles' beginnings), the shares
 * are summed (`sumShares`), and each shard is handed what the other shards hold of its own terms and titles
 * (`othersShare`). A shard scores with its own figures plus the others' (ranking's `corpusStatistics`, the families'
 * prior), so its scores are those of one index holding every document: its own changes count at once, the other
 * shards' at the next exchange.
 */
import { completionOrder, MAX_EXPANSIONS } from './expansions';
import { titleShare, type TitleShare } from './families';
import { fnv1a } from './hash';
import { packSections, unpackSections } from './sections';
import type { IndexState } from './state';

/** One index's statistics, or (from `othersShare`) what the other shards hold of one shard's terms and titles. */
export interface StatisticsShare {
  documents: number;
  /** Per text slot: words over all documents, and documents that have the field. */
  fieldLengths: Array<{ total: number; documents: number }>;
  terms: string[];
  /** Postings entries (documents, removed ones until compaction) of each of `terms`. */
  frequencies: Int32Array;
  titles: TitleShare;
  /**
   * From `othersShare`: the prefixes with more than `MAX_EXPANSIONS` completions in the whole index, each with the
   * last completion a query of it expands to (`completionCutoffs`), so every shard keeps the completions one index keeps.
   */
  completions?: CompletionCutoffs;
  /**
   * From `othersShare`: the terms only the other shards hold, as sorted hashes (`fnv1a`) with their frequencies, so
   * that a query is planned as in one index (whether a word is indexed, how common it is).
   */
  foreign?: { hashes: Uint32Array; frequencies: Int32Array };
}

/** Prefixes, and for each the frequency and term of the last completion kept (in `completionOrder`). */
export interface CompletionCutoffs {
  prefixes: string[];
  frequencies: Int32Array;
  terms: string[];
}

/** The other shards' share as a shard reads it. */
export interface OtherShards {
  /** By prefix: the last completion one index of every document keeps (`CompletionCutoffs`). */
  completions: Map<string, { frequency: number; term: string }>;
  documents: number;
  fieldLengths: Array<{ total: number; documents: number }>;
  frequencies: Map<string, number>;
  foreign: { hashes: Uint32Array; frequencies: Int32Array };
  beginnings: Map<number, number>;
  wholes: Map<number, number>;
  endings: Map<number, number>;
}

/** Every shard's share summed. */
export interface SummedShares {
  documents: number;
  fieldLengths: Array<{ total: number; documents: number }>;
  frequencies: Map<string, number>;
  titles: Map<number, TitleCounts>;
  completions: CompletionCutoffs;
}

/** A title key's counts (`TitleShare`). */
interface TitleCounts {
  beginnings: number;
  wholes: number;
  endings: number;
}

/** This index's share. */
export function statisticsShare(state: IndexState): StatisticsShare {
  const { text } = state;
  const terms: string[] = [];
  const frequencies: number[] = [];
  for (let termId = 0; termId < text.terms.length; termId++) {
    const count = text.count(termId);
    if (!count) continue;
    terms.push(text.terms[termId]);
    frequencies.push(count);
  }
  return {
    documents: state.liveCount,
    fieldLengths: state.plan.text.map(({ slot }) => ({ total: text.totalLength[slot], documents: text.documentsWithField[slot] })),
    terms,
    frequencies: Int32Array.from(frequencies),
    titles: titleShare(state),
  };
}

/** The shares of every shard summed: the statistics of one index holding every document. */
export function sumShares(shares: StatisticsShare[]): SummedShares {
  const frequencies = new Map<string, number>();
  const titles = new Map<number, TitleCounts>();
  for (const share of shares) {
    share.terms.forEach((term, i) => frequencies.set(term, (frequencies.get(term) ?? 0) + share.frequencies[i]));
    share.titles.keys.forEach((key, i) => {
      const known = titles.get(key) ?? { beginnings: 0, wholes: 0, endings: 0 };
      titles.set(key, {
        beginnings: known.beginnings + share.titles.beginnings[i],
        wholes: known.wholes + share.titles.wholes[i],
        endings: known.endings + share.titles.endings[i],
      });
    });
  }
  const slots = Math.max(0, ...shares.map((share) => share.fieldLengths.length));
  return {
    documents: sum(shares.map((share) => share.documents)),
    fieldLengths: Array.from({ length: slots }, (_, slot) => ({
      total: sum(shares.map((share) => share.fieldLengths[slot]?.total ?? 0)),
      documents: sum(shares.map((share) => share.fieldLengths[slot]?.documents ?? 0)),
    })),
    frequencies,
    titles,
    completions: completionCutoffs(frequencies),
  };
}

/**
 * For every prefix with more than `MAX_EXPANSIONS` completions (terms that start with it, itself left out) in the
 * whole index: the last one a query of the prefix expands to, in `completionOrder`. A shard keeps its completions
 * up to it, so it keeps exactly its part of what one index keeps.
 */
export function completionCutoffs(frequencies: Map<string, number>): CompletionCutoffs {
  // Sorted by code unit, the terms starting with a prefix are contiguous: a prefix with more than MAX_EXPANSIONS
  // completions begins a run where the term MAX_EXPANSIONS + 1 further on still starts with it.
  const sorted = [...frequencies.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const cutoffs: CompletionCutoffs = { prefixes: [], frequencies: new Int32Array(0), terms: [] };
  const cutoffFrequencies: number[] = [];
  for (let first = 0; first + MAX_EXPANSIONS < sorted.length; first++) {
    const term = sorted[first];
    const shared = commonPrefixLength(term, sorted[first + MAX_EXPANSIONS]);
    // Prefixes this term is the first of (shorter ones began earlier).
    for (let length = first ? commonPrefixLength(sorted[first - 1], term) + 1 : 1; length <= shared; length++) {
      const prefix = term.slice(0, length);
      const completions: Array<{ term: string; frequency: number }> = [];
      for (let at = first; at < sorted.length && sorted[at].startsWith(prefix); at++) {
        if (sorted[at] !== prefix) completions.push({ term: sorted[at], frequency: frequencies.get(sorted[at]) ?? 0 });
      }
      if (completions.length <= MAX_EXPANSIONS) continue;
      const last = completions.sort(completionOrder)[MAX_EXPANSIONS - 1];
      cutoffs.prefixes.push(prefix);
      cutoffFrequencies.push(last.frequency);
      cutoffs.terms.push(last.term);
    }
  }
  cutoffs.frequencies = Int32Array.from(cutoffFrequencies);
  return cutoffs;
}

function commonPrefixLength(a: string, b: string): number {
  let length = 0;
  while (length < a.length && length < b.length && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

/** What the shards other than the one of share `own` hold of its terms and titles (entries of zero left out). */
export function othersShare(summed: SummedShares, own: StatisticsShare): StatisticsShare {
  const terms: string[] = [];
  const frequencies: number[] = [];
  own.terms.forEach((term, i) => {
    const others = (summed.frequencies.get(term) ?? 0) - own.frequencies[i];
    if (others <= 0) return;
    terms.push(term);
    frequencies.push(others);
  });
  const owned = new Set(own.terms);
  const foreign = [...summed.frequencies]
    .filter(([term]) => !owned.has(term))
    .map(([term, frequency]) => [fnv1a(term), frequency])
    .sort(([a], [b]) => a - b);
  const keys: number[] = [];
  const beginnings: number[] = [];
  const wholes: number[] = [];
  const endings: number[] = [];
  own.titles.keys.forEach((key, i) => {
    const all = summed.titles.get(key) ?? { beginnings: 0, wholes: 0, endings: 0 };
    const begins = all.beginnings - own.titles.beginnings[i];
    const whole = all.wholes - own.titles.wholes[i];
    const ends = all.endings - own.titles.endings[i];
    if (begins <= 0 && whole <= 0 && ends <= 0) return;
    keys.push(key);
    beginnings.push(begins);
    wholes.push(whole);
    endings.push(ends);
  });
  return {
    documents: summed.documents - own.documents,
    fieldLengths: summed.fieldLengths.map((lengths, slot) => ({
      total: lengths.total - (own.fieldLengths[slot]?.total ?? 0),
      documents: lengths.documents - (own.fieldLengths[slot]?.documents ?? 0),
    })),
    terms,
    frequencies: Int32Array.from(frequencies),
    titles: {
      keys: Int32Array.from(keys),
      beginnings: Int32Array.from(beginnings),
      wholes: Int32Array.from(wholes),
      endings: Int32Array.from(endings),
    },
    completions: summed.completions,
    foreign: { hashes: Uint32Array.from(foreign, ([hash]) => hash), frequencies: Int32Array.from(foreign, ([, frequency]) => frequency) },
  };
}

/** A share of the other shards as the ranking reads it. */
export function readOtherShards(share: StatisticsShare): OtherShards {
  const positive = (keys: Int32Array, counts: Int32Array) => {
    const map = new Map<number, number>();
    keys.forEach((key, i) => counts[i] > 0 && map.set(key, counts[i]));
    return map;
  };
  return {
    documents: share.documents,
    fieldLengths: share.fieldLengths,
    frequencies: new Map(share.terms.map((term, i) => [term, share.frequencies[i]])),
    foreign: share.foreign ?? { hashes: new Uint32Array(0), frequencies: new Int32Array(0) },
    completions: new Map(
      (share.completions?.prefixes ?? []).map((prefix, i) => [
        prefix,
        { frequency: share.completions?.frequencies[i] ?? 0, term: share.completions?.terms[i] ?? '' },
      ]),
    ),
    beginnings: positive(share.titles.keys, share.titles.beginnings),
    wholes: positive(share.titles.keys, share.titles.wholes),
    endings: positive(share.titles.keys, share.titles.endings),
  };
}

const SHARE_MAGIC = 0x31524853; // "SHR1"

/** The share's typed arrays in the order `encodeShare` writes them; absent ones are written empty. */
function shareArrays(share: StatisticsShare): Array<Int32Array | Uint32Array> {
  const { titles, completions, foreign } = share;
  const none = new Int32Array(0);
  return [
    share.frequencies,
    titles.keys,
    titles.beginnings,
    titles.wholes,
    completions?.frequencies ?? none,
    foreign?.hashes ?? new Uint32Array(0),
    foreign?.frequencies ?? none,
    titles.endings,
  ];
}

/** A share as bytes, for storage (`decodeShare` reads it back): its strings in the header, its counts as sections. */
export function encodeShare(share: StatisticsShare): Uint8Array {
  const arrays = shareArrays(share);
  const header: ShareHeader = {
    documents: share.documents,
    fieldLengths: share.fieldLengths,
    terms: share.terms,
    completions: share.completions && { prefixes: share.completions.prefixes, terms: share.completions.terms },
    foreign: share.foreign !== undefined,
    lengths: arrays.map((array) => array.length),
  };
  return packSections(SHARE_MAGIC, header, arrays);
}

interface ShareHeader {
  documents: number;
  fieldLengths: StatisticsShare['fieldLengths'];
  terms: string[];
  completions?: { prefixes: string[]; terms: string[] };
  foreign: boolean;
  lengths: number[];
}

/**
 * The share `encodeShare` wrote: one `JSON.parse` without a reviver and a copy of the counts (the JSON form it
 * replaced called a reviver on every number: 56–101 ms against 0.9–1.5 ms in Node for a quarter of the catalogue).
 */
export function decodeShare(bytes: Uint8Array): StatisticsShare {
  const packed = unpackSections<ShareHeader>(SHARE_MAGIC, bytes);
  if (!packed) return decodeJsonShare(bytes);
  const { header } = packed;
  const [frequencies, keys, beginnings, wholes, completionFrequencies, hashes, foreignFrequencies, endings] = header.lengths.map((length) =>
    packed.take(Int32Array, length),
  );
  return {
    documents: header.documents,
    fieldLengths: header.fieldLengths,
    terms: header.terms,
    frequencies,
    // A share stored before title endings were counted has none.
    titles: { keys, beginnings, wholes, endings: endings ?? new Int32Array(keys.length) },
    completions: header.completions && { ...header.completions, frequencies: completionFrequencies },
    foreign: header.foreign
      ? { hashes: new Uint32Array(hashes.buffer, hashes.byteOffset, hashes.length), frequencies: foreignFrequencies }
      : undefined,
  };
}

/** The JSON form shares were stored in before `SHARE_MAGIC`: a shard keeps it until the next statistics exchange. */
function decodeJsonShare(bytes: Uint8Array): StatisticsShare {
  const share = JSON.parse(new TextDecoder().decode(bytes), (_, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const entries = Object.entries(value);
      if (entries.length === 1 && entries[0][0] === 'Int32Array') return Int32Array.from(entries[0][1] as number[]);
      if (entries.length === 1 && entries[0][0] === 'Uint32Array') return Uint32Array.from(entries[0][1] as number[]);
    }
    return value;
  }) as StatisticsShare;
  share.titles.endings ??= new Int32Array(share.titles.keys.length);
  return share;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
