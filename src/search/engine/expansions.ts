/**
 * Expansions of a query term to indexed terms: the term itself, other forms of the word (same stem), completions
 * (for the last word) and terms a few typos away (in fuzzy fields), each with a score multiplier; cached per index
 * version.
 */
import { pluralForms, sameWord, stems } from './analysis';
import { compareStrings } from './columns';
import { fuzzyTerms } from './fuzzy';
import { corpusStatistics, idf, termFrequency } from './ranking';
import type { IndexState } from './state';

export const MAX_EXPANSIONS = 64;
/** Score multipliers by how a query term matched an indexed term. */
const PREFIX = 0.5;
const FUZZY = [1, 0.45, 0.3];
const STEM = 0.7;
/** Dictionary terms looked at for forms of one stem: a short stem stops there instead of walking on. */
const MAX_STEM_CANDIDATES = 4000;

export interface Expansion {
  termId: number;
  quality: number;
  kind: 'exact' | 'stem' | 'prefix' | 'fuzzy';
  typos: number;
}

/** Expansions per term, valid for one index version: search-as-you-type repeats prefixes. */
export interface ExpansionCache {
  version: number;
  byTerm: Map<string, Expansion[]>;
}
const EXPANSION_CACHE_SIZE = 2048;

/** The indexed terms a query term stands for; `forms`: also the other forms of the word (see `stemForms`). */
export function expand(state: IndexState, term: string, prefix: boolean, typos: number, forms = false): Expansion[] {
  let cache = state.caches.expansions;
  if (!cache || cache.version !== state.version) {
    cache = { version: state.version, byTerm: new Map() };
    state.caches.expansions = cache;
  }
  const key = `${prefix ? '>' : '='}${forms ? '~' : ''}${typos}${term}`;
  let expansions = cache.byTerm.get(key);
  if (!expansions) {
    expansions = computeExpansions(state, term, prefix, typos, forms);
    if (cache.byTerm.size >= EXPANSION_CACHE_SIZE) cache.byTerm.clear();
    cache.byTerm.set(key, expansions);
  }
  return expansions;
}

function computeExpansions(state: IndexState, term: string, prefix: boolean, typos: number, forms: boolean): Expansion[] {
  const dictionary = state.text.dictionary;
  const expansions: Expansion[] = [];
  const exactId = dictionary.get(term);
  if (exactId !== undefined) expansions.push({ termId: exactId, quality: 1, kind: 'exact', typos: 0 });
  const analyzed = state.plan.text.some((f) => f.prefix);
  const formIds = new Set<number>();
  if (forms && analyzed) {
    for (const termId of stemForms(state, term)) {
      formIds.add(termId);
      expansions.push({ termId, quality: STEM, kind: 'stem', typos: 0 });
    }
  }
  if (prefix && analyzed) {
    const typedWeight = typedWordWeight(state, term);
    for (const termId of keptCompletions(state, term)) {
      if (formIds.has(termId)) continue;
      const quality = PREFIX * (0.5 + (0.5 * term.length) / state.text.terms[termId].length) * typedWeight(termId);
      expansions.push({ termId, quality, kind: 'prefix', typos: 0 });
    }
  }
  if (typos && state.plan.text.some((f) => f.fuzzy)) {
    const near: Expansion[] = [];
    for (const [termId, edits] of fuzzyTerms(dictionary, term, typos)) {
      if (edits === 0) continue;
      near.push({ termId, quality: FUZZY[Math.min(edits, FUZZY.length - 1)], kind: 'fuzzy', typos: edits });
    }
    expansions.push(...nearest(state, near));
  }
  return expansions;
}

/**
 * The `MAX_EXPANSIONS` typo expansions kept: fewest edits first (a word given one more typo keeps its closer terms),
 * then the most frequent in the whole index, then by term. In a shard, by the whole index's frequencies: a term one
 * index keeps ranks as high among a shard's terms, so every shard keeps its part of what one index keeps.
 */
function nearest(state: IndexState, near: Expansion[]): Expansion[] {
  if (near.length <= MAX_EXPANSIONS) return near;
  const { frequency } = corpusStatistics(state);
  const { terms } = state.text;
  const keyed = near.map((expansion) => ({ expansion, frequency: frequency(expansion.termId), term: terms[expansion.termId] }));
  keyed.sort((a, b) => a.expansion.typos - b.expansion.typos || b.frequency - a.frequency || compareStrings(a.term, b.term));
  return keyed.slice(0, MAX_EXPANSIONS).map(({ expansion }) => expansion);
}

/**
 * When the word as typed is indexed (`java`), a completion of it (`javacc4`) weighs no more than the word would:
 * its rarity is the completion's, not what the user asked for, and a rare completion would otherwise outrank the
 * word itself. The multiplier per completion (1 for a word indexed nowhere: then only completions are meant).
 */
function typedWordWeight(state: IndexState, term: string): (termId: number) => number {
  const typed = termFrequency(state, term);
  if (!typed) return () => 1;
  const statistics = corpusStatistics(state);
  const cap = idf(statistics.documents, typed);
  return (termId) => Math.min(1, cap / idf(statistics.documents, statistics.frequency(termId)));
}

/**
 * Indexed terms that are other forms of the word (`record` -> `recorder`, `recording`; `scan` -> `scanner`),
 * found among the terms starting like its stem; its singular or plural is left to the plural interpretation.
 */
function stemForms(state: IndexState, term: string): number[] {
  const wanted = stems(term);
  const skip = new Set([term, ...pluralForms(term)]);
  const found = new Set<number>();
  for (const stem of wanted) {
    // Porter turns a final y into i (`play` -> `plai`) and keeps some final e (`type`, not `typing`): look from before it.
    const from = /[ie]$/.test(stem) ? stem.slice(0, -1) : stem;
    if (from.length < 3) continue;
    let seen = 0;
    for (const [candidate, termId] of state.text.dictionary.atPrefix(from)) {
      if (++seen > MAX_STEM_CANDIDATES) break;
      if (skip.has(candidate) || found.has(termId)) continue;
      if (sameWord(term, candidate)) found.add(termId);
    }
  }
  return mostFrequent(
    state,
    [...found].map((termId) => ({ termId })),
  ).map(({ termId }) => termId);
}

/**
 * The completions of `prefix` (terms starting with it, itself left out) a query expands to: the `MAX_EXPANSIONS`
 * first in `completionOrder` by whole-index frequency. In a shard of several, the ones up to the whole index's cutoff
 * for the prefix (handed with the other shards' statistics), so each shard keeps its part of what one index keeps
 * (the other forms of the word are left out after, as in one index).
 */
function keptCompletions(state: IndexState, prefix: string): number[] {
  const { frequency } = corpusStatistics(state);
  const completions: Array<{ termId: number; term: string; frequency: number }> = [];
  for (const [term, termId] of state.text.dictionary.atPrefix(prefix)) {
    if (term !== prefix) completions.push({ termId, term, frequency: frequency(termId) });
  }
  const cutoff = state.others?.completions.get(prefix);
  const kept = cutoff
    ? completions.filter((completion) => completionOrder(completion, cutoff) <= 0)
    : completions.length > MAX_EXPANSIONS
      ? completions.sort(completionOrder).slice(0, MAX_EXPANSIONS)
      : completions;
  return kept.map((completion) => completion.termId);
}

/** The order completions are kept in: the most frequent in the whole index first, then by term. */
export function completionOrder(a: { term: string; frequency: number }, b: { term: string; frequency: number }): number {
  return b.frequency - a.frequency || compareStrings(a.term, b.term);
}

/** Keeps the expansions with the longest postings (of the whole index, in a shard), so a one-letter prefix stays cheap. */
export function mostFrequent<T extends { termId: number }>(state: IndexState, expansions: T[], limit = MAX_EXPANSIONS): T[] {
  if (expansions.length <= limit) return expansions;
  const { frequency } = corpusStatistics(state);
  // Each frequency once, not twice per comparison; a stable sort of the positions keeps ties in their order.
  const frequencies = expansions.map((expansion) => frequency(expansion.termId));
  const order = expansions.map((_, i) => i).sort((a, b) => frequencies[b] - frequencies[a]);
  return order.slice(0, limit).map((i) => expansions[i]);
}
