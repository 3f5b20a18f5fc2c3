/**
 * Keyword matching: each query token expands to indexed terms (exact, prefix on the last token, typos in
 * fuzzy fields), whose postings score documents with BM25; exact-mode fields match the query as a whole.
 * The result is the matched documents with per-document scores and matched-term bits, which ranking orders.
 */
import { fuzzyDistance } from './analysis';
import { isNumeric, type ExactField } from './plan';
import { capacity, isAlive, liveOrds, type IndexState } from './state';

export const MAX_EXPANSIONS = 64;
const K1 = 1.2;
const B = 0.7;
/** Score multipliers by how a query term matched an indexed term. */
const EXACT = 1;
const PREFIX = 0.5;
const FUZZY = [1, 0.45, 0.3];
/** Bonus of a whole-phrase match in an exact-mode field, in BM25 units. */
const EXACT_FIELD_SCORE = 8;

interface Expansion {
  termId: number;
  quality: number;
  kind: 'exact' | 'prefix' | 'fuzzy';
}

/** The documents a query matched, in dense arrays indexed by ordinal (reused across queries: `release` after use). */
export interface Matches {
  ords: number[];
  score: Float64Array;
  /** Bit i set: query term i matched. */
  terms: Uint32Array;
  /** Bit i set: query term i matched an indexed term exactly (no typo, no completion). */
  exactTerms: Uint32Array;
}

/** Matches plus the per-term working arrays, kept with the index state between queries. */
export interface Scratch extends Matches {
  termBest: Float64Array;
  termExact: Uint8Array;
}

/** Expansions per query token, valid for one index version: search-as-you-type repeats prefixes. */
export interface ExpansionCache {
  version: number;
  byToken: Map<string, Expansion[]>;
}
const EXPANSION_CACHE_SIZE = 2048;

/** Scores every document matching at least one of the query tokens. */
export function matchTokens(state: IndexState, tokens: string[]): Matches {
  const m = scratchFor(state);
  const record = (ord: number, termScore: number, bit: number, exact: boolean) => {
    if (m.terms[ord] === 0) m.ords.push(ord);
    m.terms[ord] |= bit;
    m.score[ord] += termScore;
    if (exact) m.exactTerms[ord] |= bit;
  };

  const slots = state.plan.text;
  const total = Math.max(state.liveCount, 1);
  tokens.forEach((token, i) => {
    const touched: number[] = [];
    for (const expansion of expand(state, token, i === tokens.length - 1)) {
      const frequency = state.text.count(expansion.termId);
      const idf = Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
      const exact = expansion.kind === 'exact';
      for (const { data, from, to } of state.text.runs(expansion.termId))
        for (let p = from; p < to; p += 2) {
          const ord = data[p] >>> 5;
          if (!isAlive(state, ord)) continue;
          const slot = slots[data[p] & 31];
          if (!slot.weight || (expansion.kind === 'prefix' && !slot.prefix) || (expansion.kind === 'fuzzy' && !slot.fuzzy)) continue;
          const tf = data[p + 1];
          const norm = 1 - B + (B * state.text.length(slot.slot, ord)) / state.text.averageLength(slot.slot);
          const score = slot.weight * idf * ((tf * (K1 + 1)) / (tf + K1 * norm)) * expansion.quality;
          if (m.termBest[ord] === 0 && m.termExact[ord] === 0) touched.push(ord);
          if (score > m.termBest[ord]) m.termBest[ord] = score;
          if (exact) m.termExact[ord] = 1;
        }
    }
    const bit = 1 << i;
    for (const ord of touched) {
      record(ord, m.termBest[ord], bit, m.termExact[ord] === 1);
      m.termBest[ord] = 0;
      m.termExact[ord] = 0;
    }
  });

  const allTerms = (1 << tokens.length) - 1;
  const query = tokens.join(' ');
  for (const field of state.plan.exact) {
    for (const ord of exactFieldMatches(state, field, query)) {
      record(ord, EXACT_FIELD_SCORE * Math.max(field.weight, 1), allTerms, true);
    }
  }
  return m;
}

/** Clears the scratch arrays a query used, for the next query. */
export function release(matches: Matches): void {
  for (const ord of matches.ords) {
    matches.score[ord] = 0;
    matches.terms[ord] = 0;
    matches.exactTerms[ord] = 0;
  }
  matches.ords = [];
}

function scratchFor(state: IndexState): Scratch {
  let scratch = state.caches.scratch;
  if (!scratch || scratch.score.length < capacity(state)) {
    const size = Math.max(1024, capacity(state) * 2);
    scratch = {
      ords: [],
      score: new Float64Array(size),
      terms: new Uint32Array(size),
      exactTerms: new Uint32Array(size),
      termBest: new Float64Array(size),
      termExact: new Uint8Array(size),
    };
    state.caches.scratch = scratch;
  }
  scratch.ords = [];
  return scratch;
}

function expand(state: IndexState, token: string, isLast: boolean): Expansion[] {
  let cache = state.caches.expansions;
  if (!cache || cache.version !== state.version) {
    cache = { version: state.version, byToken: new Map() };
    state.caches.expansions = cache;
  }
  const key = `${isLast ? '>' : '='}${token}`;
  let expansions = cache.byToken.get(key);
  if (!expansions) {
    expansions = computeExpansions(state, token, isLast);
    if (cache.byToken.size >= EXPANSION_CACHE_SIZE) cache.byToken.clear();
    cache.byToken.set(key, expansions);
  }
  return expansions;
}

function computeExpansions(state: IndexState, token: string, isLast: boolean): Expansion[] {
  const dictionary = state.text.dictionary;
  const expansions: Expansion[] = [];
  const exactId = dictionary.get(token);
  if (exactId !== undefined) expansions.push({ termId: exactId, quality: EXACT, kind: 'exact' });
  if (isLast && state.plan.text.some((f) => f.prefix)) {
    const completions: Expansion[] = [];
    for (const [term, termId] of dictionary.atPrefix(token)) {
      if (term === token) continue;
      completions.push({ termId, quality: PREFIX * (0.5 + (0.5 * token.length) / term.length), kind: 'prefix' });
    }
    expansions.push(...mostFrequent(state, completions));
  }
  const distance = fuzzyDistance(token);
  if (distance && state.plan.text.some((f) => f.fuzzy)) {
    const near: Expansion[] = [];
    for (const [term, [termId, edits]] of dictionary.fuzzyGet(token, distance)) {
      if (edits === 0 || term === token) continue;
      near.push({ termId, quality: FUZZY[edits], kind: 'fuzzy' });
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

/** Documents whose exact-mode field holds the query phrase contiguously (or equals it, for values). */
function exactFieldMatches(state: IndexState, { field, match }: ExactField, query: string): number[] {
  if (isNumeric(field)) {
    const wanted = field.dataType === 'date' ? Date.parse(query) : Number(query);
    const column = state.numbers.get(field.code);
    if (!column || Number.isNaN(wanted)) return [];
    return liveOrds(state).filter((ord) => column.get(ord) === wanted);
  }
  const column = state.values.get(field.code);
  if (!column) return [];
  const padded = ` ${query} `;
  const hits = new Set<number>();
  column.values.forEach((value, id) => {
    if (match === 'value' ? value === query : ` ${value} `.includes(padded)) hits.add(id);
  });
  if (!hits.size) return [];
  return liveOrds(state).filter((ord) => {
    let hit = false;
    column.forEachId(ord, (id) => (hit ||= hits.has(id)));
    return hit;
  });
}
