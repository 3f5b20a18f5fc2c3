/**
 * Suggestions: completions (and, after them, typo corrections) of the last query word in the suggest
 * fields, counted over the documents that also hold the earlier words; beyond the most frequent completions, those
 * standing right after the word before it (`followingCompletions`, as search completes it).
 */
import { fuzzyDistance, queryTokens } from './analysis';
import { compareStrings } from './columns';
import { fuzzyTerms } from './fuzzy';
import { followingCompletions, MAX_EXPANSIONS, mostFrequent } from './expansions';
import { capacity, isAlive, type IndexState, type SeenStamps } from './state';
import type { Suggestion, SuggestRequest } from './types';

/** A suggestion and whether it is a typo correction (corrections come after completions). */
export interface RankedSuggestion extends Suggestion {
  fuzzy: boolean;
}

export function runSuggest(state: IndexState, request: SuggestRequest): Suggestion[] {
  return rankedSuggestions(state, request).map(({ value, count }) => ({ value, count }));
}

/** Suggestions best first, marked as completions or typo corrections (what merging shards' suggestions needs). */
export function rankedSuggestions(state: IndexState, request: SuggestRequest): RankedSuggestion[] {
  const tokens = queryTokens(request.q ?? '');
  const slots = state.plan.suggestSlots;
  if (!tokens.length || !slots.size || request.rows <= 0) return [];
  const last = tokens[tokens.length - 1];
  const leading = tokens.slice(0, -1);
  const dictionary = state.text.dictionary;

  const mask = slotMask(slots);
  // Documents whose suggest fields hold every leading word exactly.
  let required: Set<number> | undefined;
  for (const word of leading) {
    const docs = suggestDocs(state, state.text.idOf(word), mask);
    required = required ? new Set([...required].filter((ord) => docs.has(ord))) : docs;
  }

  const seen = new Set<number>();
  const candidates: Array<{ termId: number; fuzzy: boolean }> = [];
  const consider = (termId: number | undefined, fuzzy: boolean) => {
    if (termId === undefined || seen.has(termId)) return;
    seen.add(termId);
    candidates.push({ termId, fuzzy });
  };
  consider(state.text.idOf(last), false);
  for (const [, termId] of dictionary.atPrefix(last)) consider(termId, false);
  const distance = fuzzyDistance(last);
  if (distance) for (const termId of fuzzyTerms(dictionary, last, distance).keys()) consider(termId, true);

  const limit = MAX_EXPANSIONS * 4;
  const kept = mostFrequent(state, candidates, limit);
  if (leading.length && candidates.length > limit) {
    // A name typed word by word (`sonic p` -> `sonic pi`) whose last word is too rare to be kept.
    const keptIds = new Set(kept.map(({ termId }) => termId));
    for (const { termId } of followingCompletions(state, leading[leading.length - 1], last))
      if (!keptIds.has(termId)) kept.push({ termId, fuzzy: false });
  }
  return kept
    .map(({ termId, fuzzy }) => ({
      value: [...leading, state.text.terms[termId]].join(' '),
      count: countDocs(state, termId, mask, required),
      fuzzy,
    }))
    .filter((s) => s.count > 0)
    .sort(suggestionOrder)
    .slice(0, request.rows);
}

/** Completions before typo corrections, then by document count, then by value. */
export function suggestionOrder(a: RankedSuggestion, b: RankedSuggestion): number {
  return Number(a.fuzzy) - Number(b.fuzzy) || b.count - a.count || compareStrings(a.value, b.value);
}

/** The suggest slots as bits (a posting's slot is below 32). */
function slotMask(slots: Set<number>): number {
  let mask = 0;
  for (const slot of slots) mask |= 1 << slot;
  return mask;
}

/** Live documents holding a term in one of the suggest slots of `mask`. */
function suggestDocs(state: IndexState, termId: number | undefined, mask: number): Set<number> {
  const docs = new Set<number>();
  if (termId === undefined) return docs;
  for (const { data, from, to } of state.text.runs(termId)) {
    for (let p = from; p < to; p += 2) {
      const ord = data[p] >>> 5;
      if (isAlive(state, ord) && (mask >>> (data[p] & 31)) & 1) docs.add(ord);
    }
  }
  return docs;
}

/**
 * How many of the documents `suggestDocs` finds are in `required` (all of them without): a document holding the
 * term in several slots counts once, marked in a per-index array of stamps instead of collected in a set.
 */
function countDocs(state: IndexState, termId: number, mask: number, required: Set<number> | undefined): number {
  const seen = seenStamps(state);
  const stamp = ++seen.stamp;
  let count = 0;
  for (const { data, from, to } of state.text.runs(termId)) {
    for (let p = from; p < to; p += 2) {
      const ord = data[p] >>> 5;
      if (seen.stamps[ord] === stamp || !isAlive(state, ord) || !((mask >>> (data[p] & 31)) & 1)) continue;
      seen.stamps[ord] = stamp;
      if (!required || required.has(ord)) count++;
    }
  }
  return count;
}

/** The index's stamps, one per ordinal, started afresh when the ordinals outgrew them or the stamp would overflow. */
function seenStamps(state: IndexState): SeenStamps {
  const seen = state.caches.seen;
  if (seen && seen.stamps.length >= capacity(state) && seen.stamp < 0xffffffff) return seen;
  return (state.caches.seen = { stamps: new Uint32Array(Math.max(capacity(state), 1024)), stamp: 0 });
}
