/**
 * Expansions of a query term to indexed terms: the term itself, other forms of the word (same stem), completions
 * (for the last word) and terms a few typos away (in fuzzy fields), each with a score multiplier; cached per index
 * version.
 */
import { pluralForms, stems } from './analysis';
import { fuzzyTerms } from './fuzzy';
import { corpusStatistics } from './ranking';
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
    const completions: Expansion[] = [];
    for (const [completion, termId] of dictionary.atPrefix(term)) {
      if (completion === term || formIds.has(termId)) continue;
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
    // Fewest edits first, then the most frequent: a word given one more typo keeps its closer terms.
    if (near.length > MAX_EXPANSIONS) near.sort((a, b) => a.typos - b.typos || state.text.count(b.termId) - state.text.count(a.termId));
    expansions.push(...near.slice(0, MAX_EXPANSIONS));
  }
  return expansions;
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
      if (stems(candidate).some((s) => wanted.includes(s))) found.add(termId);
    }
  }
  return mostFrequent(
    state,
    [...found].map((termId) => ({ termId })),
  ).map(({ termId }) => termId);
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
