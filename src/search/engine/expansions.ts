/**
 * Expansions of a query term to indexed terms: the term itself, other forms of the word (same stem), completions (for
 * the last word, and every word with content of a sentence) and terms a few typos away (in fuzzy fields), each with a
 * score multiplier; cached per index version. A word's expansions of each kind are listed in an order of whole-index
 * figures and terms, never in the dictionary's: matching takes a query word's place in a field from the last of its
 * expansions there (proximity, matching.ts), and the dictionary lists terms by when they were added, which differs
 * between one index and a shard (`c` of `tidy up the indentation of my c code`: one index read `code` then `c++`, a
 * shard `c++` then `code`, so `swig`'s "C/C++ code" had `code` right after the word `c` in one index and not in the
 * shard).
 */
import { fuzzyDistance, otherBeginning, pluralForms, sameWord, stems } from './analysis';
import { compareStrings } from './columns';
import { fuzzyTerms, shortTermsAtPrefix } from './fuzzy';
import { corpusStatistics, idf, termFrequency } from './ranking';
import type { IndexState } from './state';
import { positionOf, spanOf } from './text-index';

export const MAX_EXPANSIONS = 64;
/** Score multipliers by how a query term matched an indexed term. */
const PREFIX = 0.5;
const FUZZY = [1, 0.45, 0.3];
const STEM = 0.7;
/** A typo term shorter than the word typed (letters typed that it lacks) keeps fewer of the typed letters: below a longer one. */
const SHORTER_TYPO = 0.5;
/**
 * A word's beginning that stands for the word (`beginningOf`) holds at least this share of its letters: `inotify` of
 * `inotifywait`, not `auto` of `autohotkey` or `win` of `winamp`, names of their own.
 */
const MIN_BEGINNING = 0.6;
/** Typos a name's word matched by a beginning of the query word counts as: below every closer typo. */
const BEGINNING_TYPOS = 2;
/**
 * Letters another form of a word may add to it (`notify` -> `notifications` adds 7, the most of the catalogue's 12,675
 * pairs of forms): the stem walk skips longer terms, so a short stem (`lib`, 8,653 terms in the catalogue) walks only
 * its short ones, and which it walks is a property of each term, the same in one index and in every shard (a cap on
 * terms walked took the first ones in the dictionary's order, which differs between them).
 */
const MAX_FORM_GROWTH = 8;

export interface Expansion {
  termId: number;
  quality: number;
  kind: 'exact' | 'stem' | 'prefix' | 'fuzzy';
  typos: number;
  /** Counts only there (`ord × text slots + slot`): a completion following the word before (`followingCompletions`). */
  where?: Set<number>;
}

/** A typo expansion's place in the order `nearest` keeps them in (`typoOrder`). */
export interface TypoRank {
  typos: number;
  /** Its documents in the whole index. */
  frequency: number;
  term: string;
}

/**
 * Per query word and typo budget (`typoKey`): in a shard's part, the typo expansions it kept (`TypoRank`s); handed
 * back to the shards, the whole index's last kept one (`typoCutoffs` in merge.ts).
 */
export type TypoReport = Record<string, TypoRank[]>;
export type TypoCutoffs = Record<string, TypoRank>;

/** Expansions per term, valid for one index version: search-as-you-type repeats prefixes. */
export interface ExpansionCache {
  version: number;
  byTerm: Map<string, Expansion[]>;
  following: Map<string, Expansion[]>;
}
/** A word before the last in more documents than this is not followed up: its postings are read whole. */
const MAX_FOLLOWED = 1000;
const EXPANSION_CACHE_SIZE = 2048;

/**
 * The indexed terms a query term stands for; `forms`: also the other forms of the word (see `stemForms`);
 * `typoCutoff`: the last typo expansion the whole index keeps for the word, in a shard (see `nearest`).
 */
export function expand(state: IndexState, term: string, prefix: boolean, typos: number, forms = false, typoCutoff?: TypoRank): Expansion[] {
  const cache = expansionCache(state);
  const key = `${prefix ? '>' : '='}${forms ? '~' : ''}${typos}${term}`;
  let expansions = cache.byTerm.get(key);
  if (!expansions) {
    expansions = computeExpansions(state, term, prefix, typos, forms);
    if (cache.byTerm.size >= EXPANSION_CACHE_SIZE) cache.byTerm.clear();
    cache.byTerm.set(key, expansions);
  }
  return typoCutoff ? withinTypoCutoff(state, expansions, typoCutoff) : expansions;
}

/**
 * `expansions` without the typo expansions beyond `typoCutoff`: those this shard keeps include every one one index
 * keeps (see `nearest`), so no new look-up; not cached (the uncut ones are, which a search-as-you-type shares).
 */
function withinTypoCutoff(state: IndexState, expansions: Expansion[], typoCutoff: TypoRank): Expansion[] {
  const { frequency } = corpusStatistics(state);
  const { terms } = state.text;
  return expansions.filter(
    ({ kind, typos, termId }) =>
      kind !== 'fuzzy' || typoOrder({ typos, frequency: frequency(termId), term: terms[termId] }, typoCutoff) <= 0,
  );
}

function expansionCache(state: IndexState): ExpansionCache {
  let cache = state.caches.expansions;
  if (!cache || cache.version !== state.version) {
    cache = { version: state.version, byTerm: new Map(), following: new Map() };
    state.caches.expansions = cache;
  }
  return cache;
}

/**
 * Completions of the last query word `prefix` beyond those kept (the most frequent, `keptCompletions`), in the fields
 * where they stand right after the query word before it, `previous`: a name typed word by word (`sonic p` -> `sonic
 * pi`, `endless s` -> `endless sky`) whose last word is too rare to be among a short prefix's frequent completions.
 * Each counts only there, so whether a document has one depends on that document alone and every shard finds its
 * part; the kept completions are the whole index's, so their complement is too.
 */
export function followingCompletions(state: IndexState, previous: string, prefix: string): Expansion[] {
  const cache = expansionCache(state);
  const key = `${previous} ${prefix}`;
  let found = cache.following.get(key);
  if (!found) {
    found = computeFollowing(state, previous, prefix);
    if (cache.following.size >= EXPANSION_CACHE_SIZE) cache.following.clear();
    cache.following.set(key, found);
  }
  return found;
}

function computeFollowing(state: IndexState, previous: string, prefix: string): Expansion[] {
  const { dictionary, terms } = state.text;
  const previousId = state.text.idOf(previous);
  const frequency = termFrequency(state, previous);
  if (previousId === undefined || frequency > MAX_FOLLOWED || !state.plan.text.some((f) => f.prefix)) return [];
  const kept = new Set(keptCompletions(state, prefix));
  const slotCount = state.plan.text.length;
  // Where the word before ends, per document and field.
  const ends = new Map<number, number>();
  for (const { data, from, to } of state.text.runs(previousId))
    for (let p = from; p < to; p += 2)
      ends.set((data[p] >>> 5) * slotCount + (data[p] & 31), positionOf(data[p + 1]) + spanOf(data[p + 1]));
  const typedWeight = typedWordWeight(state, prefix);
  const plurals = pluralForms(prefix);
  const found: Expansion[] = [];
  for (const [term, termId] of dictionary.atPrefix(prefix)) {
    if (term === prefix || kept.has(termId) || plurals.includes(term)) continue;
    let where: Set<number> | undefined;
    for (const { data, from, to } of state.text.runs(termId))
      for (let p = from; p < to; p += 2) {
        const at = (data[p] >>> 5) * slotCount + (data[p] & 31);
        if (ends.get(at) === positionOf(data[p + 1])) (where ??= new Set()).add(at);
      }
    if (where)
      found.push({ termId, quality: completionQuality(prefix, terms[termId], typedWeight(termId)), kind: 'prefix', typos: 0, where });
  }
  return found;
}

/** A completion weighs ×0.5 to ×1 of the prefix's multiplier by how much of it was typed, capped by the typed word's. */
function completionQuality(prefix: string, term: string, typedWeight: number): number {
  return PREFIX * (0.5 + (0.5 * prefix.length) / term.length) * typedWeight;
}

function computeExpansions(state: IndexState, term: string, prefix: boolean, typos: number, forms: boolean): Expansion[] {
  const dictionary = state.text.dictionary;
  const expansions: Expansion[] = [];
  const exactId = state.text.idOf(term);
  if (exactId !== undefined) expansions.push({ termId: exactId, quality: 1, kind: 'exact', typos: 0 });
  const analyzed = state.plan.text.some((f) => f.prefix);
  // Other forms of the word, its completions and its typos leave its singular or plural to the plural interpretation,
  // which scores it: a plural that is also a completion (`sketches` of `sketch`) or one typo away (`sketch` of
  // `sketches`) counted twice, above the word as typed; and its typos leave its other forms to those.
  const formIds = new Set<number>();
  if (forms) {
    for (const form of pluralForms(term)) {
      const formId = state.text.idOf(form);
      if (formId !== undefined) formIds.add(formId);
    }
  }
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
      expansions.push({
        termId,
        quality: completionQuality(term, state.text.terms[termId], typedWeight(termId)),
        kind: 'prefix',
        typos: 0,
      });
    }
  }
  if (typos && state.plan.text.some((f) => f.fuzzy)) {
    const near: Expansion[] = [];
    for (const [termId, edits] of fuzzyTerms(dictionary, term, typos)) {
      if (edits === 0 || formIds.has(termId)) continue;
      const quality = FUZZY[Math.min(edits, FUZZY.length - 1)] * (state.text.terms[termId].length < term.length ? SHORTER_TYPO : 1);
      near.push({ termId, quality, kind: 'fuzzy', typos: edits });
    }
    const beginningId = typos > fuzzyDistance(term) ? beginningOf(state, term) : undefined;
    if (beginningId !== undefined && !near.some((expansion) => expansion.termId === beginningId))
      near.push({ termId: beginningId, quality: FUZZY[BEGINNING_TYPOS], kind: 'fuzzy', typos: BEGINNING_TYPOS });
    expansions.push(...nearest(state, near));
  }
  return expansions;
}

/**
 * Given a typo more than its length allows (a word indexed nowhere among others, or the fallback when nothing
 * matched), a word indexed nowhere also matches, as a typo in fuzzy fields (names), its longest beginning indexed
 * anywhere: a command named after its program with letters or a word added (`inotifywait` of `inotify-tools`,
 * `chronyc` of `chrony`). Whole-index frequencies, so every shard picks the same beginning; this shard's term, if any.
 */
function beginningOf(state: IndexState, term: string): number | undefined {
  if (termFrequency(state, term)) return undefined;
  for (let end = term.length - 1; end >= MIN_BEGINNING * term.length; end--) {
    const beginning = term.slice(0, end);
    if (termFrequency(state, beginning)) return state.text.idOf(beginning);
  }
  return undefined;
}

/**
 * The `MAX_EXPANSIONS` typo expansions kept, in `typoOrder`. A term one index keeps ranks as high among a shard's
 * terms (by the whole index's frequencies), so a shard keeps it too; but a shard holding fewer terms near the word
 * may keep more than its part, beyond the whole index's last: it reports what it kept (`typoReport` in search.ts),
 * and the shards that kept one beyond the last of every shard's report are asked again with it (`typoCutoff`).
 * In `typoOrder` however few.
 */
function nearest(state: IndexState, near: Expansion[]): Expansion[] {
  const { frequency } = corpusStatistics(state);
  const { terms } = state.text;
  const keyed = near.map((expansion) => ({
    expansion,
    typos: expansion.typos,
    frequency: frequency(expansion.termId),
    term: terms[expansion.termId],
  }));
  keyed.sort(typoOrder);
  return keyed.slice(0, MAX_EXPANSIONS).map(({ expansion }) => expansion);
}

/** Fewest edits first (a word given one more typo keeps its closer terms), then the most frequent, then by term. */
export function typoOrder(a: TypoRank, b: TypoRank): number {
  return a.typos - b.typos || b.frequency - a.frequency || compareStrings(a.term, b.term);
}

/** The key of a query word's typo expansions in a `TypoReport` or `TypoCutoffs`. */
export function typoKey(term: string, typos: number): string {
  return `${typos} ${term}`;
}

/** The typo expansions kept among `expansions` (of a word, by `expand`), as a shard reports them. */
export function typoRanks(state: IndexState, expansions: Expansion[]): TypoRank[] {
  const { frequency } = corpusStatistics(state);
  const { terms } = state.text;
  return expansions
    .filter((expansion) => expansion.kind === 'fuzzy')
    .map((expansion) => ({ typos: expansion.typos, frequency: frequency(expansion.termId), term: terms[expansion.termId] }));
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
 * found among the terms starting like its stem, at most `MAX_FORM_GROWTH` letters longer than the word; its singular
 * or plural is left to the plural interpretation. The
 * `MAX_EXPANSIONS` most frequent, in `completionOrder`.
 */
function stemForms(state: IndexState, term: string): number[] {
  const wanted = stems(term);
  const skip = new Set([term, ...pluralForms(term)]);
  const found = new Set<number>();
  for (const stem of wanted) {
    // Porter turns a final y into i (`play` -> `plai`) and keeps some final e (`type`, not `typing`): look from before it.
    const from = /[ie]$/.test(stem) ? stem.slice(0, -1) : stem;
    if (from.length < 3) continue;
    for (const beginning of [from, otherBeginning(from)]) {
      if (!beginning) continue;
      for (const [candidate, termId] of shortTermsAtPrefix(state.text.dictionary, beginning, term.length + MAX_FORM_GROWTH)) {
        if (skip.has(candidate) || found.has(termId)) continue;
        if (sameWord(term, candidate)) found.add(termId);
      }
    }
  }
  const { frequency } = corpusStatistics(state);
  const { terms } = state.text;
  return [...found]
    .map((termId) => ({ termId, term: terms[termId], frequency: frequency(termId) }))
    .sort(completionOrder)
    .slice(0, MAX_EXPANSIONS)
    .map(({ termId }) => termId);
}

/**
 * The completions of `prefix` (terms starting with it, itself left out) a query expands to: the `MAX_EXPANSIONS`
 * first in `completionOrder` by whole-index frequency. In a shard of several, the ones up to the whole index's cutoff
 * for the prefix (handed with the other shards' statistics), so each shard keeps its part of what one index keeps
 * (the other forms of the word are left out after, as in one index). In `completionOrder` either way.
 */
function keptCompletions(state: IndexState, prefix: string): number[] {
  const { frequency } = corpusStatistics(state);
  const completions: Array<{ termId: number; term: string; frequency: number }> = [];
  for (const [term, termId] of state.text.dictionary.atPrefix(prefix)) {
    if (term !== prefix) completions.push({ termId, term, frequency: frequency(termId) });
  }
  const cutoff = state.others?.completions.get(prefix);
  const kept = (cutoff ? completions.filter((completion) => completionOrder(completion, cutoff) <= 0) : completions).sort(completionOrder);
  return (cutoff ? kept : kept.slice(0, MAX_EXPANSIONS)).map((completion) => completion.termId);
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
