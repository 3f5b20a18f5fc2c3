/**
 * Keyword matching: each alternative of the query plan (see query-plan.ts) expands to indexed terms
 * (exact, completions of the last word, typos in fuzzy fields), whose postings score documents with BM25.
 * Per document it keeps what the ranking criteria need: the query words matched, with how many typos,
 * which exactly, and per field which words matched from where (for "the field starts with / equals the query").
 */
import { pluralForms } from './analysis';
import { expand, followingCompletions, type Expansion } from './expansions';
import { titlesBeginning } from './families';
import { isNumeric, type ExactField } from './plan';
import { corpusStatistics, inverseDocumentFrequency, lengthNorm, saturation, termFrequency, type CorpusStatistics } from './ranking';
import type { Alternative, QueryPlan } from './query-plan';
import { capacity, documentsByValue, liveOrds, type IndexState } from './state';
import { frequencyOf, positionOf, RUN_KINDS, spanOf, type PostingRun } from './text-index';

/** Bonus of a whole-phrase match in an exact-mode field, in BM25 units. */
const EXACT_FIELD_SCORE = 8;
/** Where the second set of query word bits starts in `words`, `typos` and a slot's `SLOT_WORDS`. */
export const WHOLE = 16;
/** Positions take 19 bits (text-index.ts): the query word of `SLOT_LAST` is above them. */
const LAST_WORD = 19;
const POSITION_BITS = (1 << LAST_WORD) - 1;
/** Query words at most this many words apart in a field, in either order, are near each other (`NEARBY` in ranking.ts). */
const NEAR_WINDOW = 3;
/** A one-word query in at most this many documents (whole index) is still a name being typed (`matchAlternative`). */
const RARE_WORD = 3;
/**
 * In a query of one counted word, a posting scores 1 / (1 + this × the word's position in the field): a field about
 * the word names it early (`kig`, "interactive geometry tool"), one that mentions it names it late ("software for
 * algebraic geometry research"), as Algolia's ordered attributes rank a match at an attribute's start first. A query
 * of several words has proximity for that (measured: the decay there lost plural and descriptive cases).
 */
const POSITION_DECAY = 0.05;
/** `POSITION_DECAY`'s multiplier by position, for the positions most fields' words have (a multiplication per posting, not a division). */
const DECAY_BY_POSITION = Float64Array.from({ length: 64 }, (_, position) => decay(position));
/**
 * What `slotMarks` holds per document and text slot, at `(ord * slots + slot) * SLOT_MARKS` plus: the words matched
 * at their query position without a typo (bits 0-15) and as typed (16-31); those at the position they have in the query
 * (from the field's start; bits 0-15) and those anywhere in the field without a typo (bits 16-31; a synonym's
 * replacement too: `NAMED` in ranking.ts); 1 + the last query word matched there (`<< LAST_WORD`) and its position, for adjacent
 * query words; and where the last one ends. They tell whether the field starts with or equals the query, and how
 * exactly. Side by side, so matching a posting touches one place in memory, not four arrays.
 */
export const SLOT_WORDS = 0;
export const SLOT_ALIGNED = 1;
const SLOT_LAST = 2;
export const SLOT_END = 3;
export const SLOT_MARKS = 4;
/** `altState`: its bits of the fewest typos + 1, and its bit of a whole match. */
const ALT_TYPOS = 15;
const ALT_WHOLE = 16;
/**
 * `reach` per match (`Matches.bounds`): bit s, a text slot s (below `REACH_SLOTS`) holding the word at its query
 * position; bit `REACH_SLOTS` + s, there possibly to the field's end; `REACH_AS_TYPED`, at its query position as typed
 * (criterion 3's `how`), `REACH_ALIGNED_TYPO_FREE`, there without a typo; `REACH_WHOLE`, matched by an exact or stem
 * expansion; `REACH_TYPO_FREE`, by one without a typo. All set: whatever ranking can give (a phrase, an exact field).
 */
export const REACH_SLOTS = 14;
export const REACH_AS_TYPED = 1 << 28;
export const REACH_ALIGNED_TYPO_FREE = 1 << 29;
export const REACH_WHOLE = 1 << 30;
export const REACH_TYPO_FREE = 1 << 31;
const REACH_ANY = 0xffffffff;
/** `detailed`: a document being detailed by the current `detailMatches`, and one detailed before. */
const DETAILING = 1;
const DETAILED = 2;

/**
 * What a query matched. Each matched document has a match number, its place in `ords` (`matchOf`), and its details
 * are at that number in the per-match arrays (reused across queries: `release` after use): small arrays a query
 * fills from the start, so matching and ranking read a few contiguous places per document, not a place in each of
 * several arrays the size of the index.
 */
export interface Matches {
  plan: QueryPlan;
  /** The matched documents' ordinals, by match number: a view of the scratch list, valid until `release`. */
  ords: Int32Array;
  score: Float64Array;
  /**
   * Bit i set: query word i matched; bit 16 + i: it matched whole (`WHOLE`): as typed, as a whole form, or as another
   * form of the word (singular or plural, same stem), so that the score, not this criterion, weighs `modeller`
   * against `modeling`; no completion, no typo. Query words are at most 16: two sets of bits share one number, so
   * matching a word touches fewer arrays.
   */
  words: Uint32Array;
  /** Bit i: query word i matched without a typo; bit 16 + i: with at most one. */
  typos: Uint32Array;
  /** Per match and text slot: `SLOT_MARKS` numbers (see there). */
  slotMarks: Uint32Array;
  /**
   * Bit i set: query word i matched right after word i - 1 in the same field (proximity); bit 16 + i (`WHOLE`): at most
   * `NEAR_WINDOW` words from it, before or after (nearness).
   */
  adjacent: Uint32Array;
  /**
   * Per match: the words its text slots have at their query position, all slots' `SLOT_ALIGNED` together. A match
   * whose slots together lack a counted word has no slot with them all: criterion 3 passes it over without reading
   * its slots (about half the matches of a one-word query).
   */
  aligned: Uint32Array;
  /**
   * The criteria before the score, packed in one number per match (see ranking.ts), above 0 once computed: ranking
   * is lazy, and computes them with the final score on first use.
   */
  rank: Float64Array;
  /**
   * Every matched document's details are recorded. Otherwise matching recorded only which words each matched (the
   * low bits of `words`), and `detailMatches` records the rest (`score`, `typos`, `slotMarks`, `adjacent`, the
   * whole bits of `words`) for the documents ranking reaches: a query whose page only documents matching all its
   * words (or passing its filters) can reach details those, not every document matching any word.
   */
  complete: boolean;
  /** Per ordinal: `DETAILED` once its details are recorded (read only when not `complete`). */
  detailed: Uint8Array;
  /**
   * Matching a query of one counted word began without details: per match, what its details can reach at most, so
   * ranking details only the matches that can reach the page (`contenders`): `bound`, at least its score before the
   * prior (each posting's BM25 with the field no longer than the word's end, or its length where the word stands at its
   * query position; the best of the first alternative's postings, as scoring keeps, plus every posting of the others, of
   * which scoring adds each one's best), and `reach` (`REACH_…`).
   */
  bounds?: { bound: Float64Array; reach: Uint32Array };
  /**
   * Matching began without details: the documents that matched every counted word, in the order they came to, listed
   * as matching marked their words (what `contenders` keeps of an unfiltered query when there are enough of them).
   */
  allWords?: Int32Array;
  /**
   * The term of the most live postings whose every live document is a match: an expansion of a one-term alternative
   * matching in every scoring text slot, with no `where`. Facets count its documents from kept counts (term-counts.ts).
   */
  covering?: Covering;
}

/** A term every live document of which holding it in a scoring text slot is among a query's matches. */
export interface Covering {
  termId: number;
  /** Its live postings in the scoring slots (a document holds a term in one or more slots). */
  entries: number;
}

/** The postings of one expansion that a query reads, reused from expansion to expansion. */
interface HitBuffer {
  ords: Int32Array;
  slots: Uint8Array;
  occurrences: Int32Array;
  scores: Float64Array;
  /** `LengthNorms` of every text slot (kept between queries). */
  norms: LengthNorms;
  /** The ranges of a posting run to read (`rangesToRead`), from and to, pair after pair. */
  ranges: Int32Array;
  /** The ranges of the wanted documents' postings among them (`wantedRanges`), alike. */
  wantedRanges: Int32Array;
}

/** What scoring a posting reads that is the same for every expansion of a query: taken once per query. */
interface Scoring {
  statistics: CorpusStatistics;
  /** The text slots' field length norms (`LengthNorms.byLength`, as of `averages`). */
  norms: Float64Array;
  /** Per text slot: its field's average length. */
  averages: Float64Array;
  /**
   * Per text slot: its weight. BM25F: a field's weight multiplies the term's frequency before saturation, not the
   * saturated score, so a word in a heavy field reaches the bound every field shares ((k1 + 1) × IDF) sooner instead
   * of scoring its weight's multiple of a lighter field's (a name holding the word among others outscored a short
   * description about it).
   */
  boosts: Float64Array;
  /**
   * Per expansion kind, the text slots it matches in, bit i for slot i (`slotsMatching`): a posting tests one bit of a
   * number, not an element of an array of booleans (a map check, a hole check and a truthiness test each).
   */
  matching: Record<Expansion['kind'], number>;
  /** Per expansion kind: whether it matches in every scoring text slot. */
  everySlot: Record<Expansion['kind'], boolean>;
  /** Each score decayed by the posting's position in its field (`oneWord`). */
  ordered: boolean;
  /** A query word after the first is matched on its own: it reads the word before it in a field (`SLOT_LAST`). */
  tracksLast: boolean;
}

/** The documents `detailMatches` details: marked `DETAILING` in `marks`, and listed in ascending order. */
interface Wanted {
  marks: Uint8Array;
  ords: Int32Array;
}

/** Matches plus the per-alternative working arrays, kept with the index state between queries. */
export interface Scratch extends Matches {
  /**
   * For the alternative being matched: per match, its best posting's score; for a phrase, per ordinal, the score of
   * its terms matched so far (a document is not a match until it holds them all). Back to 0 after every alternative.
   */
  altBest: Float64Array;
  /**
   * Per match, for the alternative being matched: the fewest typos + 1 in bits 0-3 (0: not matched yet) and
   * `ALT_WHOLE` once matched whole; one array, so a posting touches one place for both.
   */
  altState: Uint8Array;
  /** Per ordinal: 1 once the document matched the phrase alternative. */
  altHits: Uint8Array;
  /** The matches of the alternative, in the order first matched (typed lists: broad queries grow no array). */
  touched: Int32Array;
  /** The documents the query matched so far by match number, the first `matchedCount`, listed in `ords` once matching is done. */
  matched: Int32Array;
  matchedCount: number;
  /** Matching without details: the first `allWordsCount` are the documents listed in `allWords` once matching is done. */
  allWordsOrds: Int32Array;
  allWordsCount: number;
  /** Ordinals the index had handed out when the query began (what `release` may have to clear in `matchAt`). */
  ordinals: number;
  /** Per ordinal, its match number + 1 (0: not matched), the one array by ordinal that matching reads per posting. */
  matchAt: Int32Array;
  /** Matching began without details: the documents detailed since, the first `detailedCount` (what `release` clears). */
  detailsLater: boolean;
  detailedOrds: Int32Array;
  detailedCount: number;
  /** `Matches.bounds` is recorded (a query of one counted word matched without details), its arrays. */
  bounded: boolean;
  bound: Float64Array;
  reach: Uint32Array;
  /** The term `covering` names (-1: none yet) and its live postings. */
  coveringTerm: number;
  coveringEntries: number;
  /**
   * The exact-mode fields' matching documents, kept for `detailMatches`: per field, those whose value holds the whole
   * query (scored), then those whose value holds one counted word (`wordValueMatches`).
   */
  exactMatches: ValueMatches[];
  /** Per document and slot, while matching a phrase: terms matched in a row, and the position the next must have. */
  phraseStep: Uint8Array;
  phraseNext: Uint32Array;
  /** While matching a phrase: the places (document × slot) its first term's postings set, to clear after (typed: a short first word has thousands). */
  phraseStarts: Int32Array;
  hits: HitBuffer;
  scoring: Scoring;
}

/**
 * Every document matching at least one alternative of the plan. `detailsLater`: the caller ranks only some of them
 * (a query of several counted words, or filtered candidates), so matching records only the words each matched,
 * and ranking details the documents it reaches (`detailMatches`); otherwise every match is detailed at once, but for a
 * query of one counted word (`boundable`), matched like that too with `bounds`, so ranking details only the matches
 * whose bounds reach the page: most of a broad word's thousands never are.
 */
export function matchPlan(state: IndexState, plan: QueryPlan, detailsLater = false): Matches {
  const m = scratchFor(state, plan);
  // Filtered candidates are few enough to detail as they are, and their bounds would cost a read of every posting.
  m.bounded = !detailsLater && boundable(state, plan);
  m.complete = !detailsLater && !m.bounded;
  m.detailsLater = !m.complete;
  const all = (1 << plan.words.length) - 1;
  const query = plan.words.join(' ');
  m.exactMatches = state.plan.exact.map((field) => ({
    ords: exactFieldMatches(state, field, query),
    score: EXACT_FIELD_SCORE * Math.max(field.weight, 1),
    mask: all,
  }));
  if ((plan.counted & (plan.counted - 1)) !== 0) m.exactMatches.push(...wordValueMatches(state, plan));
  for (const alternative of plan.alternatives) {
    if (m.complete) matchAlternative(state, m, alternative, alternative === plan.alternatives[0]);
    else markWords(state, m, alternative);
  }
  for (const { ords, score, mask } of m.exactMatches)
    for (let i = 0; i < ords.length; i++) {
      const ord = ords[i];
      // A word of a value counts for a document the query matches otherwise (`wordValueMatches`).
      if (mask !== all && m.matchAt[ord] === 0) continue;
      if (m.complete) record(m, ord, mask, score, 0, true);
      else markWord(m, ord, mask);
    }
  // A view, not a copy: a `number[]` of a broad query's 48,000 ordinals is a large-object allocation (287 µs).
  m.ords = m.matched.subarray(0, m.matchedCount);
  m.allWords = m.complete ? undefined : m.allWordsOrds.subarray(0, m.allWordsCount);
  m.covering = m.coveringTerm < 0 ? undefined : { termId: m.coveringTerm, entries: m.coveringEntries };
  m.bounds = m.bounded ? { bound: m.bound, reach: m.reach } : undefined;
  return m;
}

/**
 * Notes the term of an expansion every live document of which the query matches (one matching in every scoring
 * slot, everywhere), when it has the most live postings yet (`entries`).
 */
function coveredBy(m: Scratch, expansion: Expansion, entries: number): void {
  if (expansion.where || !m.scoring.everySlot[expansion.kind] || entries <= m.coveringEntries) return;
  m.coveringTerm = expansion.termId;
  m.coveringEntries = entries;
}

/**
 * Records the details of the matched documents of `ords` not detailed yet (every matched document when absent):
 * the plan's alternatives matched again, their postings read for those documents only, in the same order as
 * matching at once would (every score the same sum in the same order).
 */
export function detailMatches(state: IndexState, matches: Matches, ords: Int32Array = matches.ords): void {
  const m = matches as Scratch;
  if (m.complete) return;
  const { detailed } = m;
  const first = m.detailedCount;
  for (let i = 0; i < ords.length; i++) {
    const ord = ords[i];
    if (detailed[ord] !== 0 || matchOf(m, ord) < 0) continue;
    detailed[ord] = DETAILING;
    m.detailedOrds[m.detailedCount++] = ord;
  }
  if (m.detailedCount === first) return;
  const wanted = { marks: detailed, ords: m.detailedOrds.subarray(first, m.detailedCount).sort() };
  for (const alternative of m.plan.alternatives) matchAlternative(state, m, alternative, alternative === m.plan.alternatives[0], wanted);
  for (const { ords: exact, score, mask } of m.exactMatches)
    for (let i = 0; i < exact.length; i++) if (detailed[exact[i]] === DETAILING) record(m, exact[i], mask, score, 0, true);
  for (let i = first; i < m.detailedCount; i++) detailed[m.detailedOrds[i]] = DETAILED;
  if (m.detailedCount === m.ords.length) m.complete = true;
}

/** The words an alternative matches, per document (the low bits of `words`), without details. */
function markWords(state: IndexState, m: Scratch, alternative: Alternative): void {
  if (alternative.terms.length > 1) return matchPhrase(state, m, alternative, undefined, true);
  if (m.bounded) return markBounded(state, m, alternative);
  const { text } = state;
  const alive = aliveIfRemoved(state);
  const slotCount = state.plan.text.length;
  const { mask } = alternative;
  const { counted } = m.plan;
  const { matchAt, matched, words, allWordsOrds } = m;
  let matchedCount = m.matchedCount;
  let allWordsCount = m.allWordsCount;
  for (const expansion of expansionsOf(state, alternative)) {
    const { where } = expansion;
    const slotsMatched = m.scoring.matching[expansion.kind];
    let entries = 0;
    for (let k = 0; k < RUN_KINDS; k++) {
      const run = text.run(expansion.termId, k);
      if (!run) continue;
      const { data, from, to } = run;
      for (let p = from; p < to; p += 2) {
        const entry = data[p];
        const ord = entry >>> 5;
        // `!== undefined`, not truthiness: one comparison, where a truthiness test of a typed array or nothing is a dozen.
        if (
          !((slotsMatched >>> (entry & 31)) & 1) ||
          (alive !== undefined && alive[ord] !== 1) ||
          (where !== undefined && !where.has(ord * slotCount + (entry & 31)))
        )
          continue;
        entries++;
        // `markWord`, inline, with the counts in locals: a broad word's tens of thousands of postings come here.
        let match = matchAt[ord] - 1;
        if (match < 0) {
          match = matchedCount++;
          matchAt[ord] = matchedCount;
          matched[match] = ord;
        }
        const before = words[match];
        const after = before | mask;
        // Marked already (the word in another field of the document, or another form of it).
        if (after === before) continue;
        words[match] = after;
        if ((after & counted) === counted && (before & counted) !== counted) allWordsOrds[allWordsCount++] = ord;
      }
    }
    coveredBy(m, expansion, entries);
  }
  m.matchedCount = matchedCount;
  m.allWordsCount = allWordsCount;
}

/**
 * `markWords` for a query with `bounds`: the words, and each match's bounds (`Matches.bounds`). A loop of its own: the
 * bound's reads in `markWords`' loop made its every posting dearer (its registers spilled).
 */
function markBounded(state: IndexState, m: Scratch, alternative: Alternative): void {
  const { text } = state;
  const alive = aliveIfRemoved(state);
  const slotCount = state.plan.text.length;
  const { mask } = alternative;
  const { counted } = m.plan;
  const { matchAt, matched, words, allWordsOrds, bound, reach } = m;
  const { statistics, boosts, norms, averages } = m.scoring;
  const { lengths } = text;
  const keptNorms = KEPT_NORMS;
  const queryPosition = queryPositionOf(m.plan, alternative);
  // Scoring keeps the first alternative's best posting per document, and adds the others' best.
  const best = alternative === m.plan.alternatives[0];
  const decayByPosition = DECAY_BY_POSITION;
  let matchedCount = m.matchedCount;
  let allWordsCount = m.allWordsCount;
  for (const expansion of expansionsOf(state, alternative)) {
    const { where } = expansion;
    const slotsMatched = m.scoring.matching[expansion.kind];
    // `collectHits`' weight of the expansion's postings, and what the expansion gives every match it reaches.
    const weight = inverseDocumentFrequency(statistics, expansion.termId) * expansion.quality * alternative.quality;
    const kindReach =
      (expansion.kind === 'exact' || expansion.kind === 'stem' ? REACH_WHOLE : 0) | (expansion.typos === 0 ? REACH_TYPO_FREE : 0);
    const alignedReach =
      (expansion.kind === 'exact' && alternative.exact ? REACH_AS_TYPED : 0) | (expansion.typos === 0 ? REACH_ALIGNED_TYPO_FREE : 0);
    let entries = 0;
    for (let k = 0; k < RUN_KINDS; k++) {
      const run = text.run(expansion.termId, k);
      if (!run) continue;
      const { data, from, to } = run;
      for (let p = from; p < to; p += 2) {
        const entry = data[p];
        const ord = entry >>> 5;
        const slot = entry & 31;
        if (
          !((slotsMatched >>> slot) & 1) ||
          (alive !== undefined && alive[ord] !== 1) ||
          (where !== undefined && !where.has(ord * slotCount + slot))
        )
          continue;
        entries++;
        let match = matchAt[ord] - 1;
        if (match < 0) {
          match = matchedCount++;
          matchAt[ord] = matchedCount;
          matched[match] = ord;
        }
        const before = words[match];
        const after = before | mask;
        words[match] = after;
        if ((after & counted) === counted && (before & counted) !== counted) allWordsOrds[allWordsCount++] = ord;
        // The posting's score as `collectHits` computes it, with the field's length at least where the word ends.
        const occurrence = data[p + 1];
        const position = positionOf(occurrence);
        let length = position + spanOf(occurrence);
        let reached = kindReach;
        if (position === queryPosition) {
          const full = ord < lengths[slot].length ? lengths[slot][ord] : 0;
          reached |= alignedReach | (1 << slot) | (length >= full ? 1 << (REACH_SLOTS + slot) : 0);
          length = Math.max(length, full);
        }
        // `collectHits`' norm from the table, kept alike.
        const known = slot * keptNorms + length;
        let norm = length < keptNorms ? norms[known] : 0;
        if (norm === 0) {
          norm = +lengthNorm(length, averages[slot]);
          if (length < keptNorms) norms[known] = norm;
        }
        const weighed = weight * saturation(boosts[slot] * frequencyOf(occurrence), norm);
        const score = position < decayByPosition.length ? weighed * decayByPosition[position] : weighed * decay(position);
        if (!best) bound[match] += score;
        else if (score > bound[match]) bound[match] = score;
        reach[match] |= reached;
      }
    }
    coveredBy(m, expansion, entries);
  }
  m.matchedCount = matchedCount;
  m.allWordsCount = allWordsCount;
}

/** Where an alternative's first word stands in the query, from its first counted word. */
function queryPositionOf({ firstCounted }: QueryPlan, alternative: Alternative): number {
  // A stop word glued to the first counted word (`who watch` -> `whowatch`) starts the query there.
  return alternative.first < firstCounted && (alternative.mask >>> firstCounted) & 1 ? 0 : alternative.first - firstCounted;
}

/**
 * Whether matching `plan` can record `Matches.bounds`: one counted word, which no alternative follows (so no proximity
 * multiplies a score), in at most `REACH_SLOTS` text slots.
 */
function boundable(state: IndexState, plan: QueryPlan): boolean {
  return (
    plan.counted !== 0 &&
    oneWord(plan) &&
    state.plan.text.length <= REACH_SLOTS &&
    plan.alternatives.every((alternative) => alternative.first <= plan.firstCounted)
  );
}

/** An alternative's expansions, then, for the last word, its completions that count only where they follow the word before. */
function expansionsOf(state: IndexState, alternative: Alternative): Expansion[] {
  const { terms, prefix, typos, forms, typoCutoff } = alternative;
  const expansions = expand(state, terms[0], prefix, typos, forms, typoCutoff);
  const following = alternative.follows ? followingCompletions(state, alternative.follows, alternative.terms[0]) : undefined;
  return following?.length ? [...expansions, ...following] : expansions;
}

/** Keeps the first `count` hits standing where `where` lists (`ord × text slots + slot`); answers how many. */
function keepWhere(hits: HitBuffer, count: number, where: Set<number>, slotCount: number): number {
  let kept = 0;
  for (let h = 0; h < count; h++) {
    if (!where.has(hits.ords[h] * slotCount + hits.slots[h])) continue;
    hits.ords[kept] = hits.ords[h];
    hits.slots[kept] = hits.slots[h];
    hits.occurrences[kept] = hits.occurrences[h];
    hits.scores[kept] = hits.scores[h];
    kept++;
  }
  return kept;
}

function markWord(m: Scratch, ord: number, mask: number): void {
  const match = matchFor(m, ord);
  if (m.bounded) {
    m.bound[match] = Infinity;
    m.reach[match] = REACH_ANY;
  }
  const before = m.words[match];
  const after = before | mask;
  m.words[match] = after;
  const { counted } = m.plan;
  if ((after & counted) === counted && (before & counted) !== counted) m.allWordsOrds[m.allWordsCount++] = ord;
}

/**
 * Records an alternative's matches, of the `wanted` documents only when given. `unscored`: no alternative has scored them
 * yet (their `score` is 0), so the best posting per document is kept in `score` itself rather than in `altBest`.
 */
function matchAlternative(state: IndexState, m: Scratch, alternative: Alternative, unscored: boolean, wanted?: Wanted): void {
  if (alternative.terms.length > 1) return matchPhrase(state, m, alternative, wanted);
  const slotCount = state.plan.text.length;
  const queryPosition = queryPositionOf(m.plan, alternative);
  const touched = m.touched;
  let touchedCount = 0;
  const hits = m.hits;
  const single = (alternative.mask & (alternative.mask - 1)) === 0;
  const { tracksLast } = m.scoring;
  const { mask, first } = alternative;
  const { altState, slotMarks, adjacent, aligned: alignedWords, matched, matchAt } = m;
  let matchedCount = m.matchedCount;
  const best = unscored ? m.score : m.altBest;
  // Proximity and nearness are to the counted word before this one (-1: none), the stop words between them optional:
  // `game of life` has its words next to each other in "Game of Life" and in "game life".
  const previousWord = 31 - Math.clz32(m.plan.counted & ((1 << first) - 1));
  const gap = first - previousWord;
  const after = (previousWord + 1) << LAST_WORD;
  const last = (first + 1) << LAST_WORD;
  // Module constants as locals, read once (`finishMatches` says why).
  const marks = SLOT_MARKS;
  const wordsAt = SLOT_WORDS;
  const alignedAt = SLOT_ALIGNED;
  const endAt = SLOT_END;
  const lastAt = SLOT_LAST;
  const wholeShift = WHOLE;
  // The words a field holds anywhere are read only for a query of two counted words or more (`NAMED` in ranking.ts).
  const marksAnywhere = !oneWord(m.plan);
  const fewestTypos = ALT_TYPOS;
  const wholeMatch = ALT_WHOLE;
  // A query of one word that is itself indexed (`wiki`, `latex`) is a word, not a name still being typed: a field
  // starting with or equal to a completion of it (`wiki2beamer`, `latex2rtf`), or a shorter form of it the query
  // has gone past (`check` for `checkers`), gets no attribute exactness (criterion 3), only its score. A word indexed
  // nowhere (`inksc`) is being typed, and so is one beginning a namespace (`node`: no name starts with it, so `nodejs`
  // is the name meant): their completions keep exactness; so do those of a word in at most `RARE_WORD` documents
  // (`drift` in one description: `driftnet` is the name being typed).
  const typedFrequency = alternative.prefix && single && m.plan.counted === mask ? termFrequency(state, alternative.terms[0]) : 0;
  const typedWord = typedFrequency > 0 && titlesBeginning(state, alternative.terms) !== 'namespace';
  const completionsAlign = typedFrequency <= RARE_WORD;
  const typedLength = alternative.terms[0].length;
  // The singular the plural interpretation reads (`note` for `notes`) is such a shorter form too.
  const singularAligns = !(single && m.plan.counted === mask && isIndexedSingular(state, m.plan.words[first], alternative.terms[0]));
  for (const expansion of expansionsOf(state, alternative)) {
    const collected = collectHits(state, m, expansion, alternative.quality, wanted);
    if (!wanted) coveredBy(m, expansion, collected);
    const count = expansion.where ? keepWhere(hits, collected, expansion.where, slotCount) : collected;
    // A synonym's replacement scores, but a field equal to or starting with it is not the query typed (criterion 3):
    // `rdp` of `remote desktop` names `rdp-classifier`, a classifier of RNA sequences.
    const aligns =
      !alternative.replaced &&
      singularAligns &&
      (!typedWord ||
        !(
          (expansion.kind === 'prefix' && !completionsAlign) ||
          (expansion.kind === 'stem' && state.text.terms[expansion.termId].length < typedLength)
        ));
    const typos = expansion.typos + 1;
    const exact = expansion.kind === 'exact' && alternative.exact ? 1 : 0;
    const whole = expansion.kind === 'exact' || expansion.kind === 'stem' ? ALT_WHOLE : 0;
    for (let h = 0; h < count; h++) {
      const ord = hits.ords[h];
      // Every document an alternative reaches is recorded as a match below (`matchFor`, inline).
      let match = matchAt[ord] - 1;
      if (match < 0) {
        match = matchedCount++;
        matchAt[ord] = matchedCount;
        matched[match] = ord;
      }
      const seen = altState[match];
      if (seen === 0) {
        touched[touchedCount++] = match;
        altState[match] = typos | whole;
      } else altState[match] = Math.min(seen & fewestTypos, typos) | (seen & wholeMatch) | whole;
      if (hits.scores[h] > best[match]) best[match] = hits.scores[h];
      const at = (match * slotCount + hits.slots[h]) * marks;
      const occurrence = hits.occurrences[h];
      const position = positionOf(occurrence);
      if (typos === 1 && marksAnywhere) slotMarks[at + alignedAt] |= mask << wholeShift;
      if (position === queryPosition && aligns) {
        // How exactly the word at its query position matched: a typo there is no word as typed elsewhere in the field
        // (`xscreensaver`, one typo from `screensaver`, starting `xscreensaver-screensaver-bsod`).
        if (typos === 1 || exact) slotMarks[at + wordsAt] |= (typos === 1 ? mask : 0) | (exact ? mask << wholeShift : 0);
        slotMarks[at + alignedAt] |= mask;
        alignedWords[match] |= mask;
        // The field's end as the query reaches it: a word matched elsewhere in the field (`code`, a typo of `node`
        // in `node-code`) does not make the field equal the query.
        slotMarks[at + endAt] = Math.max(slotMarks[at + endAt], position + spanOf(occurrence));
      }
      if (single) {
        // Word i after the counted word before it (recorded as its index + 1) in this field, at most as many words
        // after it as in the query, or near it.
        if (previousWord >= 0) {
          const previous = slotMarks[at + lastAt];
          const before = position - (previous & POSITION_BITS);
          if ((previous & ~POSITION_BITS) === after && before >= 1 && before <= gap) adjacent[match] |= mask;
          else if (previous >>> LAST_WORD === previousWord + 1 && Math.abs(before) <= NEAR_WINDOW) adjacent[match] |= mask << wholeShift;
        }
        if (tracksLast) slotMarks[at + lastAt] = last | position;
      }
    }
  }
  m.matchedCount = matchedCount;
  const { words, typos: typoBits, score } = m;
  for (let i = 0; i < touchedCount; i++) {
    const match = touched[i];
    recordWords(words, typoBits, match, mask, (altState[match] & fewestTypos) - 1, (altState[match] & wholeMatch) !== 0);
    if (!unscored) {
      score[match] += best[match];
      best[match] = 0;
    }
    altState[match] = 0;
  }
}

/**
 * An alternative of several terms matches where they stand next to each other, in order, in one field. Its words are
 * only known to match once its terms' positions are followed, so it reads every posting of its terms each time: to
 * mark the words of its matches (`markOnly`), then to detail the `wanted` ones among them (every score the same sum).
 */
function matchPhrase(state: IndexState, m: Scratch, alternative: Alternative, wanted?: Wanted, markOnly = false): void {
  const slotCount = state.plan.text.length;
  const last = alternative.terms.length - 1;
  const queryPosition = alternative.first - m.plan.firstCounted;
  let started = m.phraseStarts;
  let startedCount = 0;
  const completed: number[] = [];
  const hits = m.hits;
  alternative.terms.forEach((term, t) => {
    for (const expansion of expand(state, term, false, 0)) {
      // Marking needs where the terms stand, not their scores (which detailing computes for the wanted documents).
      const count = markOnly ? collectPlaces(state, m, expansion) : collectHits(state, m, expansion, alternative.quality);
      for (let h = 0; h < count; h++) {
        const ord = hits.ords[h];
        const at = ord * slotCount + hits.slots[h];
        const position = positionOf(hits.occurrences[h]);
        if (t === 0) {
          if (startedCount === started.length) {
            m.phraseStarts = new Int32Array(started.length * 2);
            m.phraseStarts.set(started);
            started = m.phraseStarts;
          }
          started[startedCount++] = at;
        } else if (m.phraseStep[at] !== t || m.phraseNext[at] !== position) continue;
        m.phraseStep[at] = t + 1;
        m.phraseNext[at] = position + 1;
        if (markOnly) {
          if (t === last) markWord(m, ord, alternative.mask);
          continue;
        }
        m.altBest[ord] += hits.scores[h];
        if (t < last) continue;
        if (wanted && wanted.marks[ord] !== DETAILING) continue;
        const match = matchFor(m, ord);
        if (m.altHits[ord] === 0) completed.push(ord);
        m.altHits[ord] = 1;
        const marks = (match * slotCount + hits.slots[h]) * SLOT_MARKS;
        // A synonym's replacement of several words (`ide` -> `integrated development environment`) aligns nowhere either.
        if (position - last === queryPosition && !alternative.replaced) {
          m.slotMarks[marks + SLOT_WORDS] |= alternative.mask | (alternative.exact ? alternative.mask << WHOLE : 0);
          m.slotMarks[marks + SLOT_ALIGNED] |= alternative.mask;
          m.aligned[match] |= alternative.mask;
          m.slotMarks[marks + SLOT_END] = Math.max(m.slotMarks[marks + SLOT_END], position + 1);
        }
        m.slotMarks[marks + SLOT_ALIGNED] |= alternative.mask << WHOLE;
      }
    }
  });
  for (let i = 0; i < completed.length; i++) record(m, completed[i], alternative.mask, m.altBest[completed[i]], 0, true);
  for (let i = 0; i < startedCount; i++) {
    const at = started[i];
    const ord = Math.floor(at / slotCount);
    m.phraseStep[at] = 0;
    m.phraseNext[at] = 0;
    m.altBest[ord] = 0;
    m.altHits[ord] = 0;
  }
}

/** `POSITION_DECAY`'s multiplier for a position (`DECAY_BY_POSITION` keeps the first 64). */
function decay(position: number): number {
  return 1 / (1 + POSITION_DECAY * position);
}

/** A query of one counted word (or none): its postings score by their position too (`POSITION_DECAY`). */
function oneWord(plan: QueryPlan): boolean {
  return (plan.counted & (plan.counted - 1)) === 0;
}

/**
 * The live postings of an expansion in fields it may match (of the `wanted` documents only, when given), with their
 * BM25 scores, written to `m.hits`.
 */
function collectHits(state: IndexState, m: Scratch, expansion: Expansion, quality: number, wanted?: Wanted): number {
  const text = state.text;
  const { hits } = m;
  const { statistics, norms, averages, boosts, ordered } = m.scoring;
  const weight = inverseDocumentFrequency(statistics, expansion.termId) * expansion.quality * quality;
  const slotsMatched = m.scoring.matching[expansion.kind];
  const { lengths } = text;
  const entries = text.count(expansion.termId);
  if (hits.ords.length < entries) growHits(hits, entries);
  // The documents detailed here are alive, and `wantedRanges` lists their postings only.
  const alive = wanted ? undefined : aliveIfRemoved(state);
  // Module constants as locals, read once (`finishMatches` says why).
  const keptNorms = KEPT_NORMS;
  const decayByPosition = DECAY_BY_POSITION;
  let count = 0;
  for (let k = 0; k < RUN_KINDS; k++) {
    const run = text.run(expansion.termId, k);
    if (!run) continue;
    const { data } = run;
    let rangeCount = rangesToRead(run, hits, wanted?.ords);
    if (wanted) rangeCount = wantedRanges(data, hits, rangeCount, wanted.marks, slotsMatched);
    const ranges = wanted ? hits.wantedRanges : hits.ranges;
    for (let r = 0; r < rangeCount; r++)
      for (let p = ranges[2 * r], to = ranges[2 * r + 1]; p < to; p += 2) {
        const ord = data[p] >>> 5;
        const slot = data[p] & 31;
        if (!((slotsMatched >>> slot) & 1) || (alive !== undefined && alive[ord] !== 1)) continue;
        const occurrence = data[p + 1];
        const length = ord < lengths[slot].length ? lengths[slot][ord] : 0;
        const known = slot * keptNorms + length;
        let norm = length < keptNorms ? norms[known] : 0;
        if (norm === 0) {
          // `+`: a number to TurboFan, so `norm` stays an unboxed float (a call's result is of any type to it, and
          // the merge of it with the table's number put every posting's norm in a new heap number).
          norm = +lengthNorm(length, averages[slot]);
          if (length < keptNorms) norms[known] = norm;
        }
        hits.ords[count] = ord;
        hits.slots[count] = slot;
        hits.occurrences[count] = occurrence;
        const score = weight * saturation(boosts[slot] * frequencyOf(occurrence), norm);
        const position = positionOf(occurrence);
        hits.scores[count] = !ordered
          ? score
          : position < decayByPosition.length
            ? score * decayByPosition[position]
            : score * decay(position);
        count++;
      }
  }
  return count;
}

/**
 * The live postings of an expansion in fields it may match, written to `m.hits` without scores (`matchPhrase`
 * marking its matches' words: a phrase's first term is often a broad word, `go` of `golan`'s split `go lan`).
 */
function collectPlaces(state: IndexState, m: Scratch, expansion: Expansion): number {
  const { hits } = m;
  const slotsMatched = m.scoring.matching[expansion.kind];
  const entries = state.text.count(expansion.termId);
  if (hits.ords.length < entries) growHits(hits, entries);
  const alive = aliveIfRemoved(state);
  const { ords, slots, occurrences } = hits;
  let count = 0;
  for (let k = 0; k < RUN_KINDS; k++) {
    const run = state.text.run(expansion.termId, k);
    if (!run) continue;
    const { data, from, to } = run;
    for (let p = from; p < to; p += 2) {
      const ord = data[p] >>> 5;
      const slot = data[p] & 31;
      if (!((slotsMatched >>> slot) & 1) || (alive !== undefined && alive[ord] !== 1)) continue;
      ords[count] = ord;
      slots[count] = slot;
      occurrences[count] = data[p + 1];
      count++;
    }
  }
  return count;
}

/**
 * Postings read in a row that cost about as much as one document's binary search in a long run: 16 steps (log2 of
 * 65,536 entries), each a dependent read about 4 times as costly as the next posting in a row.
 */
const SEARCH_COST = 64;

/**
 * The ranges of a run's postings to read, written to `hits.ranges`, and how many: the whole run, or, for few
 * `wanted` documents (ascending) among many postings, each one's entries found by binary search. A run is in
 * ordinal order: a document's entries are added together, and ordinals only grow.
 */
function rangesToRead({ data, from, to }: PostingRun, hits: HitBuffer, wanted?: Int32Array): number {
  if (!wanted || wanted.length * SEARCH_COST * 2 >= to - from) {
    hits.ranges[0] = from;
    hits.ranges[1] = to;
    return 1;
  }
  if (hits.ranges.length < wanted.length * 2) hits.ranges = new Int32Array(wanted.length * 4);
  const { ranges } = hits;
  let count = 0;
  // Entries (pairs) at `from + 2 * i`: the first at or after `low` whose document is not before the wanted one.
  let low = 0;
  const size = (to - from) / 2;
  for (let w = 0; w < wanted.length && low < size; w++) {
    const ord = wanted[w];
    let high = size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (data[from + 2 * middle] >>> 5 < ord) low = middle + 1;
      else high = middle;
    }
    const start = low;
    while (low < size && data[from + 2 * low] >>> 5 === ord) low++;
    if (low > start) {
      ranges[2 * count] = from + 2 * start;
      ranges[2 * count + 1] = from + 2 * low;
      count++;
    }
  }
  return count;
}

/**
 * The postings of the `wanted` documents (marked `DETAILING`) in slots of `slotsMatched` within the first `rangeCount`
 * of `hits.ranges`, as ranges in `hits.wantedRanges`; answers how many. Detailing a query's few documents that hold
 * every word reads its broad words' whole runs (`debian` of `debian games team`: 46,710 postings for 856 documents),
 * and a loop doing nothing but this passes over a posting in a third of the instructions of the scoring loop's test.
 */
function wantedRanges(data: ArrayLike<number>, hits: HitBuffer, rangeCount: number, marks: Uint8Array, slotsMatched: number): number {
  const { ranges } = hits;
  let read = 0;
  for (let r = 0; r < rangeCount; r++) read += ranges[2 * r + 1] - ranges[2 * r];
  if (hits.wantedRanges.length < read) hits.wantedRanges = new Int32Array(Math.max(read, hits.wantedRanges.length * 2));
  const kept = hits.wantedRanges;
  let count = 0;
  for (let r = 0; r < rangeCount; r++)
    for (let p = ranges[2 * r], to = ranges[2 * r + 1]; p < to; p += 2) {
      const entry = data[p];
      if (marks[entry >>> 5] !== DETAILING || !((slotsMatched >>> (entry & 31)) & 1)) continue;
      // A document's postings in several slots stand together: one range.
      if (count > 0 && kept[2 * count - 1] === p) kept[2 * count - 1] = p + 2;
      else {
        kept[2 * count] = p;
        kept[2 * count + 1] = p + 2;
        count++;
      }
    }
  return count;
}

/**
 * The text slots an expansion of `kind` matches in, bit i for slot i: scoring fields, and ones that allow completions
 * or typos if it is one.
 */
function slotsMatching(state: IndexState, kind: Expansion['kind']): number {
  const completed = kind === 'prefix' || kind === 'stem';
  const fuzzy = kind === 'fuzzy';
  let bits = 0;
  state.plan.text.forEach((slot, i) => {
    if (slot.weight && !(completed && !slot.prefix) && !(fuzzy && !slot.fuzzy)) bits |= 1 << i;
  });
  return bits;
}

/** The query's `Scoring`: the corpus statistics as they are now, and the norms of the fields' average lengths. */
function scoringOf(state: IndexState, hits: HitBuffer, plan: QueryPlan): Scoring {
  const statistics = corpusStatistics(state);
  const slots = state.plan.text;
  const matching = {
    exact: slotsMatching(state, 'exact'),
    stem: slotsMatching(state, 'stem'),
    prefix: slotsMatching(state, 'prefix'),
    fuzzy: slotsMatching(state, 'fuzzy'),
  };
  const everySlot = (kind: Expansion['kind']) => slots.every((slot, i) => ((matching[kind] >>> i) & 1) === (slot.weight ? 1 : 0));
  const averages = Float64Array.from(slots, (slot) => statistics.averageLength(slot.slot));
  return {
    statistics,
    norms: normsOf(hits, averages),
    averages,
    boosts: Float64Array.from(slots, (slot) => slot.weight),
    matching,
    everySlot: { exact: everySlot('exact'), stem: everySlot('stem'), prefix: everySlot('prefix'), fuzzy: everySlot('fuzzy') },
    ordered: oneWord(plan),
    tracksLast: plan.alternatives.some((alternative) => alternative.first > 0),
  };
}

/** `state.alive` when documents were removed; without, every ordinal in the postings is alive: no look-up per posting. */
function aliveIfRemoved(state: IndexState): Uint8Array | undefined {
  return state.liveCount < capacity(state) ? state.alive : undefined;
}

/** Field lengths below this have their `lengthNorm` kept (longer ones are computed per posting). */
const KEPT_NORMS = 2048;

/**
 * The text slots' `lengthNorm` by field length, `KEPT_NORMS` places per slot in one table (a posting reads one typed
 * array, not a slot's object and its array), for the slots' average lengths, filled as postings need them (0: not
 * yet), so a posting's score takes one division instead of two. Kept between queries; a slot's places are cleared
 * when its average length changes.
 */
interface LengthNorms {
  averages: Float64Array;
  byLength: Float64Array;
}

function normsOf(hits: HitBuffer, averages: Float64Array): Float64Array {
  const norms = hits.norms;
  if (norms.averages.length !== averages.length) {
    hits.norms = { averages: averages.slice(), byLength: new Float64Array(averages.length * KEPT_NORMS) };
    return hits.norms.byLength;
  }
  for (let slot = 0; slot < averages.length; slot++) {
    if (norms.averages[slot] === averages[slot]) continue;
    norms.averages[slot] = averages[slot];
    norms.byLength.fill(0, slot * KEPT_NORMS, (slot + 1) * KEPT_NORMS);
  }
  return norms.byLength;
}

function growHits(hits: HitBuffer, size: number): void {
  const length = Math.max(size, hits.ords.length * 2);
  hits.ords = new Int32Array(length);
  hits.slots = new Uint8Array(length);
  hits.occurrences = new Int32Array(length);
  hits.scores = new Float64Array(length);
}

function record(m: Scratch, ord: number, mask: number, score: number, typos: number, exact: boolean): void {
  const match = matchFor(m, ord);
  recordWords(m.words, m.typos, match, mask, typos, exact);
  m.score[match] += score;
}

/** What `record` records but the score, for a match, into its `words` and `typos` (`Matches`). */
function recordWords(words: Uint32Array, typoBits: Uint32Array, match: number, mask: number, typos: number, exact: boolean): void {
  words[match] |= exact && typos === 0 ? mask | (mask << WHOLE) : mask;
  if (typos <= 1) typoBits[match] |= typos === 0 ? mask | (mask << WHOLE) : mask << WHOLE;
}

/** A matched document's match number (its place in `ords` and the per-match arrays); -1 for one not matched. */
export function matchOf(matches: Matches, ord: number): number {
  return (matches as Scratch).matchAt[ord] - 1;
}

/** Per ordinal, not 0 exactly for the matched documents (valid until `release`). */
export function matchMarks(matches: Matches): Int32Array {
  return (matches as Scratch).matchAt;
}

/** A document's match number, a new one when it was not matched yet. */
function matchFor(m: Scratch, ord: number): number {
  const match = m.matchAt[ord] - 1;
  if (match >= 0) return match;
  m.matched[m.matchedCount] = ord;
  m.matchAt[ord] = m.matchedCount + 1;
  return m.matchedCount++;
}

/** Clears the scratch arrays a query used, for the next query. */
export function release(matches: Matches): void {
  const m = matches as Scratch;
  const count = m.matchedCount;
  // Every match has words; only the detailed ones have details when matching began without them.
  m.words.fill(0, 0, count);
  if (m.bounded) {
    m.bound.fill(0, 0, count);
    m.reach.fill(0, 0, count);
  }
  if (m.detailsLater) {
    const detailed = m.detailedOrds.subarray(0, m.detailedCount);
    if (DENSE_SPREAD * detailed.length > count) clearDetails(m, 0, count);
    else for (let i = 0; i < detailed.length; i++) clearMatch(m, matchOf(m, detailed[i]));
    for (let i = 0; i < detailed.length; i++) m.detailed[detailed[i]] = 0;
  } else clearDetails(m, 0, count);
  // A broad query matched most ordinals: clearing all of them is a memset, not scattered writes.
  if (m.ordinals < DENSE_SPREAD * count) m.matchAt.fill(0, 0, m.ordinals);
  else for (let i = 0; i < count; i++) m.matchAt[m.matched[i]] = 0;
  m.ords = NO_MATCHES;
  m.allWords = undefined;
  m.covering = undefined;
  m.bounds = undefined;
  m.allWordsCount = 0;
  m.detailedCount = 0;
  m.matchedCount = 0;
}

/** `ords` of no query. */
const NO_MATCHES = new Int32Array(0);

/** Detailed matches more than one in this many of the matches, or matches more than one in this many of the ordinals, are cleared as one range. */
const DENSE_SPREAD = 4;

/** Clears the details of the matches from `from` to `to`. */
function clearDetails(m: Scratch, from: number, to: number): void {
  const marks = m.slotMarks.length / m.score.length;
  m.score.fill(0, from, to);
  m.typos.fill(0, from, to);
  m.rank.fill(0, from, to);
  m.aligned.fill(0, from, to);
  // `adjacent` marks a word right after the one before it: a query of one word has none.
  if (m.plan.words.length > 1) m.adjacent.fill(0, from, to);
  m.slotMarks.fill(0, from * marks, to * marks);
}

function clearMatch(m: Scratch, match: number): void {
  const marks = m.slotMarks.length / m.score.length;
  m.score[match] = 0;
  m.typos[match] = 0;
  m.rank[match] = 0;
  m.aligned[match] = 0;
  m.adjacent[match] = 0;
  for (let at = match * marks; at < (match + 1) * marks; at++) m.slotMarks[at] = 0;
}

function scratchFor(state: IndexState, plan: QueryPlan): Scratch {
  let scratch = state.caches.scratch;
  if (!scratch || scratch.score.length < capacity(state)) {
    const size = Math.max(1024, capacity(state) * 2);
    const slots = Math.max(1, state.plan.text.length);
    const hits: HitBuffer = {
      ords: new Int32Array(0),
      slots: new Uint8Array(0),
      occurrences: new Int32Array(0),
      scores: new Float64Array(0),
      norms: { averages: new Float64Array(0), byLength: new Float64Array(0) },
      ranges: new Int32Array(2),
      wantedRanges: new Int32Array(0),
    };
    scratch = {
      plan,
      ords: NO_MATCHES,
      score: new Float64Array(size),
      words: new Uint32Array(size),
      typos: new Uint32Array(size),
      slotMarks: new Uint32Array(size * slots * SLOT_MARKS),
      adjacent: new Uint32Array(size),
      aligned: new Uint32Array(size),
      rank: new Float64Array(size),
      altBest: new Float64Array(size),
      altState: new Uint8Array(size),
      altHits: new Uint8Array(size),
      touched: new Int32Array(size),
      matched: new Int32Array(size),
      matchedCount: 0,
      allWordsOrds: new Int32Array(size),
      allWordsCount: 0,
      ordinals: 0,
      matchAt: new Int32Array(size),
      complete: true,
      detailed: new Uint8Array(size),
      detailsLater: false,
      bounded: false,
      bound: new Float64Array(size),
      reach: new Uint32Array(size),
      detailedOrds: new Int32Array(size),
      detailedCount: 0,
      coveringTerm: -1,
      coveringEntries: 0,
      exactMatches: [],
      phraseStep: new Uint8Array(size * slots),
      phraseNext: new Uint32Array(size * slots),
      phraseStarts: new Int32Array(1024),
      hits,
      scoring: scoringOf(state, hits, plan),
    };
    state.caches.scratch = scratch;
  } else scratch.scoring = scoringOf(state, scratch.hits, plan);
  scratch.plan = plan;
  scratch.ordinals = capacity(state);
  scratch.ords = NO_MATCHES;
  scratch.matchedCount = 0;
  scratch.allWordsCount = 0;
  scratch.detailedCount = 0;
  scratch.coveringTerm = -1;
  scratch.coveringEntries = 0;
  scratch.covering = undefined;
  return scratch;
}

/** Documents whose exact-mode field holds the query phrase contiguously (or equals it, for values). */
function exactFieldMatches(state: IndexState, { field, match }: ExactField, query: string): Int32Array {
  if (isNumeric(field)) {
    const wanted = field.dataType === 'date' ? Date.parse(query) : Number(query);
    const column = state.numbers.get(field.code);
    if (!column || Number.isNaN(wanted)) return NO_MATCHES;
    return liveOrds(state).filter((ord) => column.get(ord) === wanted);
  }
  const column = state.values.get(field.code);
  if (!column) return NO_MATCHES;
  // The matching value ids, ascending.
  const ids: number[] = [];
  if (match === 'value') {
    const id = column.idOf.get(query);
    if (id !== undefined) ids.push(id);
  } else {
    const padded = ` ${query} `;
    const { values } = column;
    // The plain test first: most values do not hold the query at all, and it builds no string.
    for (let id = 0; id < values.length; id++) if (values[id].includes(query) && ` ${values[id]} `.includes(padded)) ids.push(id);
  }
  if (!ids.length) return NO_MATCHES;
  const { starts, ords } = documentsByValue(state, column);
  // One value's documents are its list as kept, a view (`perl` in section `perl`: 3,500 documents, no copy).
  if (ids.length === 1) return ords.subarray(starts[ids[0]], starts[ids[0] + 1]);
  const matched = new Set<number>();
  for (const id of ids) for (let i = starts[id]; i < starts[id + 1]; i++) matched.add(ords[i]);
  // In ordinal order and once each, as a scan of the live documents lists them.
  return Int32Array.from(matched).sort();
}

/** Documents an exact-mode field matches: their `score` and the query words (`mask`) they count as matched. */
interface ValueMatches {
  ords: Int32Array;
  score: number;
  mask: number;
}

/**
 * In a query of several counted words, the documents whose value of a phrase-matched exact-mode field holds one of
 * them, as typed or as its singular or plural (`game` in section `games`): for those the query matches otherwise, that
 * word is matched (criteria 1 and 4), as a word of a tokenized field would be, but unscored, so the field ranks no
 * document above another by itself; a value's word alone matches no document (the field is matched whole).
 */
function wordValueMatches(state: IndexState, plan: QueryPlan): ValueMatches[] {
  const found: ValueMatches[] = [];
  for (const field of state.plan.exact) {
    if (field.match !== 'phrase') continue;
    plan.words.forEach((word, i) => {
      if (!((plan.counted >>> i) & 1)) return;
      const lists = [word, ...pluralForms(word)].map((form) => exactFieldMatches(state, field, form)).filter((ords) => ords.length);
      // Mostly one form's list, taken as it is (`flatMap` copied a broad section's thousands of ordinals one by one).
      if (lists.length) found.push({ ords: lists.length === 1 ? lists[0] : concatenated(lists), score: 0, mask: 1 << i });
    });
  }
  return found;
}

/** Whether `term` is the singular of `typed` (shorter), `typed` being indexed itself and beginning no namespace. */
function isIndexedSingular(state: IndexState, typed: string, term: string): boolean {
  return (
    term.length < typed.length &&
    pluralForms(typed).includes(term) &&
    termFrequency(state, typed) > 0 &&
    titlesBeginning(state, [typed]) !== 'namespace'
  );
}

function concatenated(lists: Int32Array[]): Int32Array {
  const all = new Int32Array(lists.reduce((length, list) => length + list.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  return all;
}
