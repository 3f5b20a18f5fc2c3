/**
 * Suggestions: completions (and, after them, typo corrections) of the last query word in the suggest
 * fields, counted over the documents that also hold the earlier words.
 */
import { fuzzyDistance, queryTokens } from './analysis';
import { compareStrings } from './columns';
import { fuzzyTerms } from './fuzzy';
import { MAX_EXPANSIONS, mostFrequent } from './expansions';
import { isAlive, type IndexState } from './state';
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

  // Documents whose suggest fields hold every leading word exactly.
  let required: Set<number> | undefined;
  for (const word of leading) {
    const docs = suggestDocs(state, dictionary.get(word), slots);
    required = required ? new Set([...required].filter((ord) => docs.has(ord))) : docs;
  }

  const seen = new Set<number>();
  const candidates: Array<{ termId: number; fuzzy: boolean }> = [];
  const consider = (termId: number | undefined, fuzzy: boolean) => {
    if (termId === undefined || seen.has(termId)) return;
    seen.add(termId);
    candidates.push({ termId, fuzzy });
  };
  consider(dictionary.get(last), false);
  for (const [, termId] of dictionary.atPrefix(last)) consider(termId, false);
  const distance = fuzzyDistance(last);
  if (distance) for (const termId of fuzzyTerms(dictionary, last, distance).keys()) consider(termId, true);

  return mostFrequent(state, candidates, MAX_EXPANSIONS * 4)
    .map(({ termId, fuzzy }) => {
      let count = 0;
      for (const ord of suggestDocs(state, termId, slots)) if (!required || required.has(ord)) count++;
      return { value: [...leading, state.text.terms[termId]].join(' '), count, fuzzy };
    })
    .filter((s) => s.count > 0)
    .sort(suggestionOrder)
    .slice(0, request.rows);
}

/** Completions before typo corrections, then by document count, then by value. */
export function suggestionOrder(a: RankedSuggestion, b: RankedSuggestion): number {
  return Number(a.fuzzy) - Number(b.fuzzy) || b.count - a.count || compareStrings(a.value, b.value);
}

/** Live documents holding a term in one of the suggest slots. */
function suggestDocs(state: IndexState, termId: number | undefined, slots: Set<number>): Set<number> {
  const docs = new Set<number>();
  if (termId === undefined) return docs;
  for (const { data, from, to } of state.text.runs(termId)) {
    for (let p = from; p < to; p += 2) {
      const ord = data[p] >>> 5;
      if (isAlive(state, ord) && slots.has(data[p] & 31)) docs.add(ord);
    }
  }
  return docs;
}
