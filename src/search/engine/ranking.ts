/**
 * Ordering candidates. Relevance is an ordered list of criteria, each deciding only ties of the ones before
 * (as Algolia and Meilisearch rank; docs/decisions.md):
 * 1. words: more query words matched (stop words are optional and not counted; in a query of several, a word an
 *    exact-mode field's value holds counts, unscored: matching.ts); of a query of two keywords, a document
 *    matching only the rarer one (fewer documents with its other forms), without a typo, before one matching only the other;
 *    of a sentence, a document matching only its topic word (`SENTENCE_TOPIC_RATIO`) before one matching only another;
 *    in a sentence, a document the prior puts at or below `PART_PRIOR` (a part, add-on or namespaced library) one word fewer
 *    from two on;
 * 2. typos: fewer typos over the matched words (a completion is no typo);
 * 3. attribute exactness: the heavier field first, then one whose words equal the query (the query words reaching its
 *    end), then (in the heaviest fields only, and not when more than 50 titles start so: a namespace; nor more than
 *    five none of which is the query: a family without a head; nor, for one word, when more than 50 documents per
 *    title starting so hold it: a topic, `java`; nor for a title going on past another title that goes on past the
 *    query: a part of that name, `bible-kjv-text` of `bible-kjv` for `bible`) start with it,
 *    as typed (`gimp` -> `gimp-data`) before completed (`pyth` -> `python3`) before with typos (not where the word is
 *    without a typo only through a completion elsewhere: `ava` for `java`); a completion or a
 *    shorter form of a one-word query that is itself an indexed word counts not at all (`wiki` -> `wiki2beamer`,
 *    `checkers` -> `check`, its singular `notes` -> `note`: matching.ts), and nor does a synonym's replacement (`rdp` of
 *    `remote desktop` -> `rdp-classifier`: the words typed were not those);
 * 4. exact words: more words matched whole: as typed or as another form (singular/plural, same stem), not completed,
 *    not a typo (the score weighs the forms below the word as typed); in a sentence, a part at or below
 *    `DEEP_PART_PRIOR` (a part twice over: a long or namespaced library title) one word fewer;
 * 5. score: BM25F (each field's weight applied to the term frequency before saturation), field-length aware, the
 *    best field per interpretation, other interpretations a little below the literal,
 *    completions below the word (at most its IDF when it is indexed as typed: expansions.ts), a typo term shorter than
 *    the word typed at half a longer one's,
 *    times the document's prior from its title's length, name family and the categories it is filed under
 *    (families.ts), ×0.5 for a title in a
 *    namespace the query does not name (`python3-yaml` for `yaml`, not `golang-go` for `golang`), but an application
 *    whose name holds every counted word of two or more ×1.25 instead (`NAMED`), ×1.5 for each query
 *    word right after the previous one in a field (proximity) and ×1.15 for each one within three words of it
 *    (nearness); in a query of one word, a match counting less the later it stands in its field (matching.ts);
 * 6. custom ranking: the app's numeric or boolean fields, in order;
 * 7. shorter text in the fields weighted above the default: of two documents the same words matched alike, the one
 *    saying less besides (BM25's length norm for the tie the score leaves: `docker.io` "Linux container runtime"
 *    above `docker-clean` "simple Shell script to clean up the Docker Daemon" for `docker`);
 * 8. document id.
 * A sort field orders before all of them, relevance breaking its ties. Also: selecting the top k without sorting.
 */
import { pluralForms, stems } from './analysis';
import { compareStrings, type ValueColumn } from './columns';
import { familyPrior, filedApplications, titleHeads, titlesBegun, titlesBeginning, titleStartsWithWord, type Beginning } from './families';
import { fnv1a } from './hash';
import {
  detailMatches,
  matchMarks,
  matchOf,
  REACH_ALIGNED_TYPO_FREE,
  REACH_AS_TYPED,
  REACH_SLOTS,
  REACH_TYPO_FREE,
  REACH_WHOLE,
  SLOT_ALIGNED,
  SLOT_END,
  SLOT_MARKS,
  SLOT_WORDS,
  WHOLE,
  type Matches,
} from './matching';
import type { SortSpec, TextField } from './plan';
import { QueryError } from './query-error';
import type { IndexState } from './state';
import type { MergeKeyPart, SearchAppField } from './types';

const K1 = 1.2;
const B = 0.7;

/**
 * The collection statistics BM25 reads, all through here: a shard of a larger index can be handed the whole
 * index's figures instead of its own.
 */
export interface CorpusStatistics {
  /** Documents in the collection. */
  documents: number;
  /** Documents holding the term (removed ones counted until compaction). */
  frequency(termId: number): number;
  /** Mean length in words of a text slot's field, over the documents that have it. */
  averageLength(slot: number): number;
}

/**
 * The statistics a query scores with: this index's own documents', plus, in a shard of a larger index, what the
 * other shards hold (`state.others`, handed over at ingest: corpus.ts).
 */
export function corpusStatistics(state: IndexState): CorpusStatistics {
  const { text, others } = state;
  if (!others) {
    return {
      documents: Math.max(state.liveCount, 1),
      frequency: (termId) => text.count(termId),
      averageLength: (slot) => text.averageLength(slot),
    };
  }
  return {
    documents: Math.max(state.liveCount + others.documents, 1),
    frequency: (termId) => text.count(termId) + (others.frequencies.get(text.terms[termId]) ?? 0),
    averageLength: (slot) => {
      const documents = text.documentsWithField[slot] + (others.fieldLengths[slot]?.documents ?? 0);
      return documents ? (text.totalLength[slot] + (others.fieldLengths[slot]?.total ?? 0)) / documents : 1;
    },
  };
}

/** BM25's inverse document frequency of a term (the non-negative form). */
export function inverseDocumentFrequency(statistics: CorpusStatistics, termId: number): number {
  return idf(statistics.documents, statistics.frequency(termId));
}

/** BM25's inverse document frequency of a term in `frequency` of `documents` documents. */
export function idf(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}

/** Documents of the whole index holding `term` (0: not indexed anywhere), for planning a query as one index would. */
export function termFrequency(state: IndexState, term: string): number {
  const termId = state.text.idOf(term);
  if (termId !== undefined) return corpusStatistics(state).frequency(termId);
  const foreign = state.others?.foreign;
  if (!foreign?.hashes.length) return 0;
  const hash = fnv1a(term);
  let low = 0;
  let high = foreign.hashes.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (foreign.hashes[mid] === hash) return foreign.frequencies[mid];
    if (foreign.hashes[mid] < hash) low = mid + 1;
    else high = mid - 1;
  }
  return 0;
}

/** BM25's length part for a field of `length` words: k1 × (1 - b + b × length / average length) (k1 1.2, b 0.7). */
export function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/** BM25's term-frequency part, for a term `tf` times in a field whose `lengthNorm` is `norm`. */
export function saturation(tf: number, norm: number): number {
  return (tf * (K1 + 1)) / (tf + norm);
}

/** Negative when ordinal `a` comes before `b`. */
export type Compare = (a: number, b: number) => number;

/** Score bonus per query word matched right after the previous one in the same field (proximity). */
const PROXIMITY = 0.5;
/** Score bonus per query word matched near the previous one in a field, not right after it (matching.ts's `NEAR_WINDOW`). */
const NEARBY = 0.15;
/**
 * Score multiplier of an application (`filedApplications`) whose name holds every counted word of a query of two or
 * more, without a typo, in any order, in place of the namespace part's ×0.5 (`gnome-sound-recorder` for `sound recorder`,
 * `xfce4-power-manager`): BM25F's saturation leaves a name match only about 1.25 times a description match. Only
 * applications: libraries, plugins and add-ons holding the words in their names (`claws-mail-…-notifier`,
 * `aiohttp-wsgi-serve`, `python3-…`) would take over (measured: docs/decisions.md).
 */
const NAMED = 1.25;
/**
 * Documents holding a one-word query per title beginning with it (plus one) past which the word is a topic of the
 * collection, not a name being typed (`java`: 4 titles, thousands of documents).
 */
const TOPIC_RATIO = 50;
/**
 * A prior at or below which a document is a part (add-on, data, library, a title in a namespace the query does not
 * name: families.ts): in a sentence it counts one query word fewer in criterion 1 (from two), as a question asks for
 * the application (`where can I write down quick notes`: `librust-quick-error-dev` matched `quick` and `error`… by
 * name). At, not only below: a part of one word (`libqt5bluetooth5`) has a prior of one half exactly, the part's ×0.5
 * with no longer title to take more.
 */
const PART_PRIOR = 0.5;
/**
 * A prior at or below which a part is one twice over (an add-on or library whose title the prior halves again: a
 * namespace the query does not name, a long title): in a sentence it counts one word fewer in criterion 4 too, as a
 * library's title and description hold a question's words whole (`libhivex0` "library for reading and writing Windows
 * Registry hives" above `reglookup` for `read the windows registry from linux`). Parts the prior halves once
 * (`tty-clock`, `crystal-facet-uml`, applications of a family without a head) keep their words.
 */
const DEEP_PART_PRIOR = PART_PRIOR / 2;
/**
 * How many times as many documents the next rarest word of a sentence must be held by for the rarest to be its topic:
 * of documents matching one word, one matching the topic ranks first (`reiserfsprogs` "tools for ReiserFS filesystems"
 * above the `check` unit-test library for `check and repair a reiserfs partition`). Words indexed nowhere are left
 * out (matched through completions and typos only). At 5, descriptive hit@3 lost one; the rarest word with no ratio
 * often is no topic (`sing` of `sing karaoke with friends`).
 */
const SENTENCE_TOPIC_RATIO = 10;

/**
 * Relevance of the matched documents, ranked lazily: a document's criteria and final score are computed the first
 * time it is compared (or `finish`ed), so a query matching 48,000 documents ranks only those a page can reach.
 */
export interface Relevance {
  /** Best first; an ordinal the query did not match compares with criteria and score 0. */
  compare: Compare;
  /** Computes a matched document's criteria (`rank`) and final score (`score` × prior × proximity), once. */
  finish(ord: number): void;
  /**
   * The first `k` of `ords` (matched ones) in relevance order, ranking only those that can be among them: the
   * documents matching the most counted query words (criterion 1, which decides before every other).
   */
  top(ords: Int32Array, k: number): number[];
}

/** Relevance order of matched documents, best first. */
export function relevanceOrder(state: IndexState, m: Matches): Relevance {
  const { counted } = m.plan;
  const heaviest = Math.max(0, ...state.plan.text.map((slot) => slot.weight));
  // A name starting with a namespace (`node-…` for `node`) or a family without a head (`printer-driver-…` for
  // `printer`) is not a name being typed.
  const countedWords = m.plan.words.filter((_, i) => counted & (1 << i));
  const beginning = topicOrBeginning(state, countedWords);
  // A query naming a namespace (`golang`) asks for its titles: they are no parts then.
  const prior = familyPrior(state, beginning !== 'namespace');
  const { words: matched, rank, score } = m;
  // Of a query of two counted keywords, the rarer word: a document matching only it ranks above one matching only the other.
  const pair = popcount(counted) === 2 && counted === (1 << m.plan.words.length) - 1;
  // Of a sentence's counted words, a topic word far rarer than the others likewise (`SENTENCE_TOPIC_RATIO`), among documents matching one.
  const topic = !pair && m.plan.sentence && popcount(counted) >= 2;
  const finishing: Finishing = {
    state,
    m,
    prior,
    heaviest,
    beginning,
    heads: titleHeads(state),
    applications: filedApplications(state),
    plainPrior: familyPrior(state, false),
    rarerBit: pair ? rarerWord(state, m.plan.words, counted) : topic ? rarerWord(state, m.plan.words, counted, SENTENCE_TOPIC_RATIO) : 0,
  };
  /** Finishes a document; answers its match number (-1: not matched). */
  const finish = (ord: number): number => {
    const match = matchOf(m, ord);
    // A computed rank is above 0 (63 - typos > 0 in it).
    if (match < 0 || rank[match] !== 0) return match;
    // A document `contenders` did not list (a sort, a merge key, hybrid scores): every match is detailed then.
    if (!m.complete && m.detailed[ord] === 0) detailMatches(state, m);
    oneMatch[0] = match;
    oneOrd[0] = ord;
    finishMatches(finishing, oneMatch, oneOrd);
    return match;
  };
  const custom = state.plan.ranking.customRanking.map(({ field, direction }) => fieldOrder(state, field, direction));
  const compare: Compare = (a, b) => {
    const matchA = finish(a);
    const matchB = finish(b);
    // A document the query did not match has criteria and score 0.
    const decided =
      (matchB < 0 ? 0 : rank[matchB]) - (matchA < 0 ? 0 : rank[matchA]) ||
      (matchB < 0 ? 0 : score[matchB]) - (matchA < 0 ? 0 : score[matchA]);
    // A sign, not the difference: a small integer is returned as it is, a fraction as a new heap number.
    if (decided) return decided > 0 ? 1 : -1;
    for (const order of custom) {
      const c = order(a, b);
      if (c) return c;
    }
    const shorter = weightedLength(state, a) - weightedLength(state, b);
    if (shorter) return shorter < 0 ? -1 : 1;
    return compareStrings(state.ids[a], state.ids[b]);
  };
  // Every alternative holds every counted word (as a match of an exact-mode field does): then so does every match.
  const everyMatchHoldsAll = m.plan.alternatives.every((alternative) => (alternative.mask & counted) === counted);
  const contenders = (ords: Int32Array, k: number): Int32Array => {
    if (everyMatchHoldsAll && k > 0) return withinBounds(finishing, ords, k);
    // Every match (no filter): at least k matching every counted word are those (the order matters not: `compare`
    // is a total order), listed while matching; not in a sentence, where a part among them counts a word fewer.
    const allWords = ords === m.ords && !m.plan.sentence ? m.allWords : undefined;
    if (allWords && k > 0 && allWords.length >= k) {
      detailMatches(state, m, allWords);
      return allWords;
    }
    const histogram = wordCounts.fill(0);
    for (let i = 0; i < ords.length; i++) histogram[popcount(matched[matchOf(m, ords[i])] & counted)]++;
    let least = WHOLE;
    let reached = histogram[least];
    while (least > 0 && reached < k) reached += histogram[--least];
    // In a sentence a part counts one word fewer: a document matching one word fewer than `least` may tie with it.
    if (m.plan.sentence && least > 0) reached += histogram[--least];
    if (reached === ords.length) {
      detailMatches(state, m, ords);
      return ords;
    }
    const kept = new Int32Array(reached);
    let length = 0;
    for (let i = 0; i < ords.length; i++) if (popcount(matched[matchOf(m, ords[i])] & counted) >= least) kept[length++] = ords[i];
    detailMatches(state, m, kept);
    return kept;
  };
  /** `compare` of two finished matches by their numbers: the criteria and score read without looking the numbers up. */
  const compareMatches: Compare = (a, b) => {
    const decided = rank[b] - rank[a] || score[b] - score[a];
    if (decided) return decided > 0 ? 1 : -1;
    return compare(m.ords[a], m.ords[b]);
  };
  const top = (ords: Int32Array, k: number): number[] => {
    if (k <= 0) return [];
    const kept = contenders(ords, k);
    // Each contender finished once, then compared by its match number, not looked up by ordinal in every comparison
    // (every match: its number is its place in `ords`).
    const numbers = new Int32Array(kept.length);
    for (let i = 0; i < kept.length; i++) numbers[i] = kept === m.ords ? i : matchOf(m, kept[i]);
    finishMatches(finishing, numbers, kept);
    return selectTop(reachingTop(numbers, k, rank, score), k, compareMatches).map((match) => m.ords[match]);
  };
  return { compare, finish, top };
}

/**
 * What the titles beginning with the query's counted words are (`titlesBeginning`); for two or three words that begin
 * no title as such, what the titles beginning with them glued are (`ham radio` → `hamradio-…`, a family without a
 * head), since the glued interpretation matches those titles from the query's start.
 */
function queryBeginning(state: IndexState, words: string[]): Beginning {
  const beginning = titlesBeginning(state, words);
  return beginning === 'name' && words.length >= 2 && words.length <= 3 ? titlesBeginning(state, [words.join('')]) : beginning;
}

/**
 * `queryBeginning`, or `topic` for one word held by more than `TOPIC_RATIO` documents per title beginning with it (plus
 * one): titles starting with it are then a few of many documents about it (`java-common` among thousands naming Java).
 */
function topicOrBeginning(state: IndexState, words: string[]): Beginning | 'topic' {
  const beginning = queryBeginning(state, words);
  if (beginning !== 'name' || words.length !== 1) return beginning;
  return termFrequency(state, words[0]) > TOPIC_RATIO * (1 + titlesBegun(state, words)) ? 'topic' : beginning;
}

/** Documents per number of counted query words, reused: a typed array of more than 64 bytes is allocated outside the heap. */
const wordCounts = new Uint32Array(WHOLE + 1);

/** What finishing a query's matches reads besides the matches themselves, taken once per query. */
interface Finishing {
  state: IndexState;
  m: Matches;
  /** Each document's prior (families.ts), a title in a namespace the query does not name counted as a part. */
  prior: Float32Array;
  /** The heaviest text field's weight. */
  heaviest: number;
  /** What the titles beginning with the query's counted words are (`topicOrBeginning`). */
  beginning: Beginning | 'topic';
  /** Per ordinal, the words of the longest other title its title goes on past (`titleHeads`). */
  heads: Uint8Array;
  /** Per ordinal, 1 where it is filed as an application (`filedApplications`). */
  applications: Uint8Array;
  /** Each document's prior with no namespace part (`prior` when the query names the namespace). */
  plainPrior: Float32Array;
  /** The counted word whose documents matching only it rank above those matching only another (0: none). */
  rarerBit: number;
}

/** `finishMatches`' lists for finishing one match, reused. */
const oneMatch = new Int32Array(1);
const oneOrd = new Int32Array(1);

/**
 * Computes the criteria (`rank`) and final score of the matches `numbers` (documents `ords`, place for place) not
 * finished yet, all detailed: one loop, what it reads taken once per call, not from a closure's context per match.
 */
function finishMatches(f: Finishing, numbers: Int32Array, ords: Int32Array): void {
  const { m, prior, rarerBit, applications, plainPrior } = f;
  const sentence = m.plan.sentence;
  const { words: matched, typos: typoBits, rank, score, adjacent, aligned: alignedWords, slotMarks } = m;
  const { counted } = m.plan;
  const slots = f.state.plan.text;
  const slotCount = slots.length;
  // The module's constants as locals: a bundle makes them module context slots, which Node 22's TurboFan loads and
  // checks again in every iteration (about 30 instructions a match).
  const marks = SLOT_MARKS;
  const aligned = SLOT_ALIGNED;
  const whole = WHOLE;
  const proximity = PROXIMITY;
  const nearby = NEARBY;
  for (let i = 0; i < numbers.length; i++) {
    const match = numbers[i];
    if (rank[match] !== 0) continue;
    const ord = ords[i];
    const own = prior[ord] ?? 1;
    let factor = applications[ord] === 1 && heaviestHoldsAll(f, match) ? (plainPrior[ord] ?? 1) * NAMED : own;
    // No query word right after or near the one before (every match of one word): both bonuses are × 1.
    const adjacency = adjacent[match];
    if (adjacency !== 0) {
      const next = adjacency & ~(-1 << whole);
      factor = factor * (1 + proximity * popcount(next)) * (1 + nearby * popcount((adjacency >>> whole) & ~next));
    }
    score[match] *= factor;
    // Criterion 3 counts only in slots where matching found every counted word at its query position.
    let level = 0;
    if ((alignedWords[match] & counted) === counted) {
      // Words without a typo only through a completion (another word: `javascript` for `java`).
      const completedOnly = counted & typoBits[match] & ~(matched[match] >>> whole);
      for (let slot = 0, at = match * slotCount * marks; slot < slotCount; slot++, at += marks) {
        if ((slotMarks[at + aligned] & counted) === counted)
          level = Math.max(level, attributeLevel(f, slots[slot], ord, at, completedOnly));
      }
    }
    const words = matched[match] & counted;
    const withTypos = words & ~typoBits[match];
    const typos = withTypos && popcount(withTypos) + popcount(withTypos & ~(typoBits[match] >>> whole));
    const wordCount = popcount(words);
    // Only the rarer word, matched without a typo: a typo of a rare word is some other word (and shards expand typos
    // from their own terms).
    const rarer = wordCount === 1 && words !== counted && words & rarerBit & typoBits[match] ? 1 : 0;
    const part = sentence && wordCount >= 2 && own <= PART_PRIOR ? 1 : 0;
    // A part twice over counts one word fewer in criterion 4 too (`DEEP_PART_PRIOR`).
    const exactWords = popcount((matched[match] >>> whole) & counted) - (part && own <= DEEP_PART_PRIOR ? 1 : 0);
    rank[match] = packedRank((wordCount - part) * 2 + rarer, typos, level, Math.max(exactWords, 0));
  }
}

/**
 * Whether a query of two counted words or more has them all, without a typo, in a text field of the heaviest weight
 * (in any order, as parts of a separated name: `gnome-sound-recorder` for `sound recorder`).
 */
function heaviestHoldsAll({ state, m, heaviest }: Finishing, match: number): boolean {
  const { counted } = m.plan;
  if ((counted & (counted - 1)) === 0) return false;
  const slots = state.plan.text;
  for (let slot = 0, at = match * slots.length * SLOT_MARKS; slot < slots.length; slot++, at += SLOT_MARKS)
    if (slots[slot].weight === heaviest && ((m.slotMarks[at + SLOT_ALIGNED] >>> WHOLE) & counted) === counted) return true;
  return false;
}

/** Criteria 1 to 4 in one number, each deciding the ties of the one before: `words` (× 2, the rarer word's half), typos, attribute exactness, whole words. */
function packedRank(words: number, typos: number, level: number, whole: number): number {
  return ((words * 64 + (63 - Math.min(typos, 63))) * 32768 + level) * 32 + whole;
}

/** `withinBounds`' per-match bounds of the criteria and score, reused (grown as a query needs). */
let boundRanks = new Float64Array(1024);
let boundScores = new Float64Array(1024);

/**
 * `withinBounds`' criteria bounds by `reach`, an open-addressed table reused from query to query: a one-word query's
 * thousands of matches have a few dozen distinct `reach` values, each computed once. A place holds a `reach` and its
 * bound (0: empty; a packed rank is above 0); at most `REACH_KEPT` of them are taken, the rest computed every time.
 */
const REACH_PLACES = 256;
const REACH_KEPT = 192;
const reachKeys = new Uint32Array(REACH_PLACES);
const reachRanks = new Float64Array(REACH_PLACES);

/**
 * The matches of `ords` (all detailed, when they are returned) that can be among the first `k`, for matches with
 * `bounds` (a query of one counted word, every match holding it): every match's criteria and final score bounded from
 * what matching recorded without details, the k of the best bounds detailed and finished, and only the matches whose
 * bounds reach the worst of those k detailed (a match below it is below the k-th best); without bounds, or for few
 * matches, all of them.
 */
function withinBounds(f: Finishing, ords: Int32Array, k: number): Int32Array {
  const { state, m, prior, heaviest, beginning } = f;
  const bounds = m.bounds;
  if (!bounds || k > BEST_KEPT || ords.length <= k * 4) {
    detailMatches(state, m, ords);
    return ords;
  }
  const { bound, reach } = bounds;
  const slots = state.plan.text;
  // Criterion 3 at most, per slot, before `how`: where the word may end the field, and where it only starts it.
  const ifEqual = Int32Array.from(slots, (slot) => Math.min(Math.round(slot.weight * 4), 4095) * 8 + 1);
  const ifStart = Int32Array.from(slots, (slot, i) => (slot.weight < heaviest || beginning === 'namespace' ? -1 : ifEqual[i] - 1));
  // Every match holds every counted word (the caller's `everyMatchHoldsAll`): criterion 1 is the same for all.
  const words = popcount(m.plan.counted) * 2;
  // A match's number is its place in `ords` when they are every match (an unfiltered query).
  const numberOf = ords === m.ords ? undefined : matchMarks(m);
  if (boundRanks.length < ords.length) {
    boundRanks = new Float64Array(ords.length * 2);
    boundScores = new Float64Array(ords.length * 2);
  }
  const ranks = boundRanks;
  const scores = boundScores;
  const first = new Int32Array(k);
  let firstCount = 0;
  // The module's tables as locals (`finishMatches` says why).
  const keys = reachKeys;
  const known = reachRanks.fill(0);
  const lastPlace = REACH_PLACES - 1;
  let taken = 0;
  for (let i = 0; i < ords.length; i++) {
    const ord = ords[i];
    const match = numberOf === undefined ? i : numberOf[ord] - 1;
    const bits = reach[match];
    let place = Math.imul(bits, 0x9e3779b1) >>> 24;
    while (known[place] !== 0 && keys[place] !== bits) place = (place + 1) & lastPlace;
    let r = known[place];
    if (r === 0) {
      r = reachRank(bits, words, ifEqual, ifStart);
      if (taken < REACH_KEPT) {
        keys[place] = bits;
        known[place] = r;
        taken++;
      }
    }
    const s = bound[match] * (prior[ord] ?? 1);
    ranks[i] = r;
    scores[i] = s;
    // The k best bounds so far, best first (insertion).
    let at = firstCount < k ? firstCount++ : k;
    for (; at > 0 && (r > ranks[first[at - 1]] || (r === ranks[first[at - 1]] && s > scores[first[at - 1]])); at--)
      if (at < k) first[at] = first[at - 1];
    if (at < k) first[at] = i;
  }
  const firstOrds = Int32Array.from(first, (i) => ords[i]);
  const numbers = Int32Array.from(firstOrds, (ord) => matchOf(m, ord));
  detailMatches(state, m, firstOrds);
  finishMatches(f, numbers, firstOrds);
  let leastRank = Infinity;
  let leastScore = Infinity;
  for (const match of numbers)
    if (m.rank[match] < leastRank || (m.rank[match] === leastRank && m.score[match] < leastScore)) {
      leastRank = m.rank[match];
      leastScore = m.score[match];
    }
  let count = 0;
  const kept = new Int32Array(ords.length);
  for (let i = 0; i < ords.length; i++)
    // Not below: a phrase's or exact field's unbounded score times a prior of 0 is NaN, and kept.
    if (ranks[i] > leastRank || (ranks[i] === leastRank && !(scores[i] < leastScore))) kept[count++] = ords[i];
  const reaching = kept.subarray(0, count);
  detailMatches(state, m, reaching);
  return reaching;
}

/**
 * The packed criteria a match of `reach` bits can reach at most (`withinBounds`): `words` (criterion 1, × 2), no typo
 * if it matched an expansion without one, attribute exactness from the slots holding the word at its query position
 * (`ifEqual`/`ifStart` per slot, -1: none), a whole word if an exact or stem expansion matched.
 */
function reachRank(bits: number, words: number, ifEqual: Int32Array, ifStart: Int32Array): number {
  // `attributeLevel`'s `how`: as typed 5, without a typo 3, else 1.
  const how = bits & REACH_AS_TYPED ? 5 : bits & REACH_ALIGNED_TYPO_FREE ? 3 : 1;
  let level = 0;
  for (let starts = bits & ((1 << REACH_SLOTS) - 1); starts !== 0; starts &= starts - 1) {
    const slot = 31 - Math.clz32(starts & -starts);
    const most = (bits >>> (REACH_SLOTS + slot)) & 1 ? ifEqual[slot] : ifStart[slot];
    if (most >= 0 && most + how > level) level = most + how;
  }
  return packedRank(words, bits & REACH_TYPO_FREE ? 0 : 1, level, bits & REACH_WHOLE ? 1 : 0);
}

/**
 * Criterion 3 for one text slot whose field has the query's words at their query positions (0: it counts not);
 * `at`: the match's `slotMarks` there.
 */
function attributeLevel(
  { state, m, heaviest, beginning, heads }: Finishing,
  slot: TextField,
  ord: number,
  at: number,
  completedOnly: number,
): number {
  const { counted } = m.plan;
  const equals = m.slotMarks[at + SLOT_END] >= state.text.length(slot.slot, ord) ? 1 : 0;
  // Starting with the query tells a name being typed, in the heaviest field, unless more than 50 names start so (a
  // namespace) or more than five none of which is the query (a family without a head: families.ts); a description
  // starting so says little.
  if (!equals && (slot.weight < heaviest || beginning === 'namespace')) return 0;
  // A title going on past another title that itself goes on past the query (`bible-kjv-text` past `bible-kjv`, for
  // `bible`) is a part of that name, not a name being typed: the shorter title takes the exactness.
  if (!equals && heads[ord] > m.slotMarks[at + SLOT_END]) return 0;
  // equals / starts with: as typed 6 / 5, completed 4 / 3, with typos 2 / 1
  const slotWords = m.slotMarks[at + SLOT_WORDS];
  const how = ((slotWords >>> WHOLE) & counted) === counted ? 5 : (slotWords & counted) === counted ? 3 : 1;
  // A field holding a word only with a typo, where the document has that word without a typo only through a completion
  // elsewhere (`ava` for `java`, its maintainer `Javascript`), is not the name typed: criterion 2 counted it typo-free
  // for the completion, which is another word, and the typo would then outrank the word as typed in a lighter field.
  if (how === 1 && counted & ~slotWords & completedOnly) return 0;
  // A family without a head: a title starting with its words as typed is one of its members, not the name typed (a
  // title starting with a completion is another word, decided alike by a shard that holds no member).
  // A topic: a title starting with the word is one of many documents about it (a shard holding such a title counts
  // the whole index's, so shards decide alike).
  if (
    !equals &&
    how === 5 &&
    (beginning === 'headless' || (beginning === 'topic' && titleStartsWithWord(state, ord, m.plan.words[m.plan.firstCounted])))
  )
    return 0;
  return Math.min(Math.round(slot.weight * 4), 4095) * 8 + how + equals;
}

/** A field weight above this is the app's own: the words of such fields make a document's length for criterion 7. */
const DEFAULT_WEIGHT = 1;

/** Words of a document in the text fields weighted above the default (criterion 7, a merge key part). */
export function weightedLength(state: IndexState, ord: number): number {
  let length = 0;
  for (const { slot, weight } of state.plan.text) if (weight > DEFAULT_WEIGHT) length += state.text.length(slot, ord);
  return length;
}

/** Feeding order: what documents come in when there is no query. */
export const feedingOrder: Compare = (a, b) => a - b;

/** The sort a request names, or undefined for relevance. */
export function resolveSort(state: IndexState, sort: string | undefined): SortSpec | undefined {
  if (!sort) return undefined;
  const spec = state.plan.sorts.get(sort);
  if (!spec) {
    const known = [...state.plan.sorts.keys()];
    throw new QueryError([{ path: 'sort', message: `unknown sort '${sort}'${known.length ? `; known: ${known.join(', ')}` : ''}` }]);
  }
  return spec;
}

/** Order by a sort field, documents without a value last in both directions, ties by `relevance`. */
export function sortOrder(state: IndexState, sort: SortSpec, relevance: Compare): Compare {
  const bySort = fieldOrder(state, sort.field, sort.direction);
  return (a, b) => bySort(a, b) || relevance(a, b);
}

/** Order by one field's value (numbers, or strings by rank); documents without a value last in both directions. */
function fieldOrder(state: IndexState, field: SearchAppField, direction: 'asc' | 'desc'): Compare {
  const sign = direction === 'asc' ? 1 : -1;
  const numbers = state.numbers.get(field.code);
  const values = state.values.get(field.code);
  const key: (ord: number) => number = numbers ? (ord) => numbers.get(ord) : values ? columnRank(values) : () => NaN;
  return (a, b) => {
    const ka = key(a);
    const kb = key(b);
    const missingA = Number.isNaN(ka);
    const missingB = Number.isNaN(kb);
    if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
    return sign * (ka - kb);
  };
}

/** A document's value of a sort or ranking field as a merge key part (the value `fieldOrder` ranks by); null without one. */
export function fieldValue(state: IndexState, field: SearchAppField, ord: number): MergeKeyPart {
  const numbers = state.numbers.get(field.code);
  if (numbers) {
    const value = numbers.get(ord);
    return Number.isNaN(value) ? null : value;
  }
  const values = state.values.get(field.code);
  const id = values ? values.firstId(ord) : -1;
  return values && id >= 0 ? values.values[id] : null;
}

function columnRank(column: ValueColumn): (ord: number) => number {
  const ranks = column.ranks();
  return (ord) => {
    const id = column.firstId(ord);
    return id < 0 ? NaN : ranks[id];
  };
}

/** Set bits of a 32-bit number (matched query terms). */
export function popcount(bits: number): number {
  let count = 0;
  for (let b = bits; b; b &= b - 1) count++;
  return count;
}

/** The entries of `ords` from `from` up to `to`, as an array. */
export function slice(ords: Int32Array, from: number, to: number): number[] {
  const part: number[] = [];
  for (let i = from; i < Math.min(to, ords.length); i++) part.push(ords[i]);
  return part;
}

/** `reachingTop`'s k-th best criteria and score so far, best first, reused. */
const BEST_KEPT = 64;
const bestRanks = new Float64Array(BEST_KEPT);
const bestScores = new Float64Array(BEST_KEPT);

/**
 * The finished matches of `numbers` that can be among the first `k`: those whose criteria and score (`rank`, `score`)
 * are not below the k-th best pair, ties included (what orders them past the score is `compare`'s), so `selectTop`
 * compares a few instead of every match through its comparator. Two typed reads per match: most of a broad query's
 * thousands fall below the k-th best at once.
 */
function reachingTop(numbers: Int32Array, k: number, rank: Float64Array, score: Float64Array): Int32Array {
  if (k > BEST_KEPT || numbers.length <= k * 4) return numbers;
  // Module arrays as locals, and the k-th pair in locals: read in every iteration, they are loads TurboFan repeats.
  const ranks = bestRanks;
  const scores = bestScores;
  let kept = 0;
  let leastRank = -1;
  let leastScore = -1;
  for (let i = 0; i < numbers.length; i++) {
    const match = numbers[i];
    const r = rank[match];
    if (r < leastRank) continue;
    const s = score[match];
    if (r === leastRank && s <= leastScore) continue;
    // Insertion into the best k pairs, best first.
    let at = kept < k ? kept++ : k - 1;
    for (; at > 0 && (r > ranks[at - 1] || (r === ranks[at - 1] && s > scores[at - 1])); at--) {
      ranks[at] = ranks[at - 1];
      scores[at] = scores[at - 1];
    }
    ranks[at] = r;
    scores[at] = s;
    if (kept === k) {
      leastRank = ranks[k - 1];
      leastScore = scores[k - 1];
    }
  }
  let reaching = 0;
  for (let i = 0; i < numbers.length; i++) {
    const match = numbers[i];
    const r = rank[match];
    if (r > leastRank || (r === leastRank && score[match] >= leastScore)) numbers[reaching++] = match;
  }
  return numbers.subarray(0, reaching);
}

/** The first `k` of `ords` in order, without sorting everything when k is small. */
export function selectTop(ords: Int32Array, k: number, compare: Compare): number[] {
  if (k <= 0) return [];
  if (ords.length <= k * 4) return slice(ords, 0, ords.length).sort(compare).slice(0, k);
  // Bounded max-heap of the best k seen so far (the worst on top): one comparison for most ordinals, where a sort
  // makes a dozen (a query matching 500 documents sorted them all for its 10 hits).
  const heap: number[] = [];
  for (let n = 0; n < ords.length; n++) {
    const ord = ords[n];
    if (heap.length < k) {
      let i = heap.length;
      heap.push(ord);
      for (let parent = (i - 1) >> 1; i > 0 && compare(ord, heap[parent]) > 0; parent = (i - 1) >> 1) {
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = ord;
    } else if (compare(ord, heap[0]) < 0) {
      let i = 0;
      for (let child = 1; child < k; child = 2 * i + 1) {
        if (child + 1 < k && compare(heap[child + 1], heap[child]) > 0) child++;
        if (compare(heap[child], ord) <= 0) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = ord;
    }
  }
  return heap.sort(compare);
}

/**
 * The bit of the counted word fewer documents hold, counting its singular/plural and its stems (an agent noun's verb:
 * `viewer` as `view` too) as matching does, from whole-index counts so every shard picks the same; 0 when they are
 * held as often (neither tells more). With `ratio` (a sentence's words), the rarest of the words indexed somewhere, and
 * only when the next rarest is held by at least `ratio` times as many documents: the topic among common words.
 */
function rarerWord(state: IndexState, words: string[], counted: number, ratio = 1): number {
  const frequencies: Array<{ bit: number; frequency: number }> = [];
  words.forEach((word, i) => {
    if (!(counted & (1 << i))) return;
    let frequency = 0;
    for (const form of new Set([word, ...pluralForms(word), ...stems(word)])) frequency += termFrequency(state, form);
    if (ratio === 1 || frequency > 0) frequencies.push({ bit: 1 << i, frequency });
  });
  if (frequencies.length < 2) return 0;
  frequencies.sort((a, b) => a.frequency - b.frequency);
  const [first, second] = frequencies;
  return first.frequency < second.frequency && first.frequency * ratio <= second.frequency ? first.bit : 0;
}
