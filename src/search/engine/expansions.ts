/**
 * Expansions of a query term to indexed terms: the term itself, completions (for the last word) and terms a few
 * typos away (in fuzzy fields), each with a score multiplier; cached per index version.
 */
import { fuzzyTerms } from './fuzzy';
import type { IndexState } from './state';

export const MAX_EXPANSIONS = 64;
/** Score multipliers by how a query term matched an indexed term. */
const PREFIX = 0.5;
const FUZZY = [1, 0.45, 0.3];

export interface Expansion {
  termId: number;
  quality: number;
  kind: 'exact' | 'prefix' | 'fuzzy';
  typos: number;
}

/** Expansions per term, valid for one index version: search-as-you-type repeats prefixes. */
export interface ExpansionCache {
  version: number;
  byTerm: Map<string, Expansion[]>;
}
const EXPANSION_CACHE_SIZE = 2048;

/** The indexed terms a query term stands for. */
export function expand(state: IndexState, term: string, prefix: boolean, typos: number): Expansion[] {
  let cache = state.caches.expansions;
  if (!cache || cache.version !== state.version) {
    cache = { version: state.version, byTerm: new Map() };
    state.caches.expansions = cache;
  }
  const key = `${prefix ? '>' : '='}${typos}${term}`;
  let expansions = cache.byTerm.get(key);
  if (!expansions) {
    expansions = computeExpansions(state, term, prefix, typos);
    if (cache.byTerm.size >= EXPANSION_CACHE_SIZE) cache.byTerm.clear();
    cache.byTerm.set(key, expansions);
  }
  return expansions;
}

function computeExpansions(state: IndexState, term: string, prefix: boolean, typos: number): Expansion[] {
  const dictionary = state.text.dictionary;
  const expansions: Expansion[] = [];
  const exactId = dictionary.get(term);
  if (exactId !== undefined) expansions.push({ termId: exactId, quality: 1, kind: 'exact', typos: 0 });
  if (prefix && state.plan.text.some((f) => f.prefix)) {
    const completions: Expansion[] = [];
    for (const [completion, termId] of dictionary.atPrefix(term)) {
      if (completion === term) continue;
      completions.push({ termId, quality: PREFIX * (0.5 + (0.5 * term.length) / completion.length), kind: 'prefix', typos: 0 });
    }
    expansions.push(...mostFrequent(state, completions));
  }
  if (typos && state.plan.text.some((f) => f.fuzzy)) {
    const near: Expansion[] = [];
    for (const [termId, edits] of fuzzyTerms(dictionary, term, typos)) {
      if (edits === 0) continue;
      near.push({ termId, quality: FUZZY[Math.min(edits, FUZZY.length - 1)], kind: 'fuzzy', typos: edits });
    }
    expansions.push(...mostFrequent(state, near));
  }
  return expansions;
}

/** Keeps the expansions with the longest postings, so a one-letter prefix stays cheap. */
export function mostFrequent<T extends { termId: number }>(state: IndexState, expansions: T[], limit = MAX_EXPANSIONS): T[] {
  if (expansions.length <= limit) return expansions;
  return expansions.sort((a, b) => state.text.count(b.termId) - state.text.count(a.termId)).slice(0, limit);
}
