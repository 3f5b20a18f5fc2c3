/**
 * The interpretations of a query, each an alternative way to match some of its words: every word as typed
 * (completed if it is the last, with typos in fuzzy fields), its singular or plural, the whole or glued
 * forms of words with separators or symbols (`g++`, `speedtest-cli`), adjacent words joined (`wire shark`
 * -> `wireshark`), a word split in two dictionary words (`photomanager` -> `photo manager`) and synonyms.
 * Alternatives other than the literal one score a little less, so that the literal interpretation wins ties.
 * A word indexed nowhere as typed, among other words, takes one more typo (as every word does in the fallback).
 */
import { analyzeWords, fuzzyDistance, pluralForms, withoutClitics } from './analysis';
import type { TypoRank } from './expansions';
import { termFrequency } from './ranking';
import { ENGLISH_PARTICLES } from './stop-words';
import type { IndexState } from './state';
import { synonymsStartingIn } from './plan';

const MAX_WORDS = 16;
/** Adjacent query words glued into one at most (`wire shark` -> `wireshark`). */
export const MAX_JOINED = 3;
const MAX_SPLITS = 2;
/** A split word's first part may be one letter (`ebook` -> `e book`, `email` -> `e mail`); its second part not (`'s`). */
const MIN_SPLIT_HEAD = 1;
const MIN_SPLIT_TAIL = 2;
const MIN_SPLIT_WORD = 5;
/** A word cut in three needs at least this many letters in each part (`coolretroterm` -> `cool retro term`). */
const MIN_THIRD = 3;
/** A word in more postings than this is meant as typed: it is not also tried split. */
const MAX_SPLIT_POSTINGS = 100;
/** Score multipliers of the other interpretations, against 1 for the words as typed. */
const WHOLE = 1;
const PLURAL = 0.8;
const JOINED = 0.9;
const SYNONYM = 0.85;
const SPLIT = 0.8;

export interface Alternative {
  /** Bits of the query words it stands for. */
  mask: number;
  /** The first of those words. */
  first: number;
  /** One term, or several that must all be in the document (a split word, a multi-word synonym). */
  terms: string[];
  /** The last query word is part of it, or it is a counted word of a sentence: completions count. */
  prefix: boolean;
  /** Typos allowed (in fuzzy fields). */
  typos: number;
  quality: number;
  /** A match counts as the word as typed (all but singular/plural forms). */
  exact: boolean;
  /** A synonym's replacement: a field equal to or starting with it is not the query typed (attribute exactness). */
  replaced?: boolean;
  /** Other forms of the word match too (`record` -> `recording`): the word as typed only. */
  forms?: boolean;
  /** The query word before it: completions also where they follow that word (`followingCompletions`). */
  follows?: string;
  /** In a shard's part: the last typo expansion one index keeps for the word (`PartRules.typoCutoffs`). */
  typoCutoff?: TypoRank;
}

export interface QueryPlan {
  words: string[];
  /** Bits of the words that count (all but stop words, unless the query has nothing else). */
  counted: number;
  /** The first counted word: a field starting with it starts with the query. */
  firstCounted: number;
  alternatives: Alternative[];
  /** The query holds a stop word: it reads as a sentence, not as keywords. */
  sentence: boolean;
}

/** The alternatives of a query, or undefined when it has no words. `relaxed`: the fallback when nothing matched. */
export function planQuery(state: IndexState, q: string, relaxed = false): QueryPlan | undefined {
  const analyzed = analyzeWords(withoutClitics(q));
  const words: string[] = [];
  const alternatives: Alternative[] = [];
  for (const { parts, extras } of analyzed) {
    const start = words.length;
    words.push(...parts);
    if (words.length > MAX_WORDS) words.length = MAX_WORDS;
    for (const extra of extras) {
      const first = start + extra.from;
      const last = first + extra.span - 1;
      if (last < words.length) alternatives.push(alternative(first, last, [extra.term], words, WHOLE, false));
    }
  }
  if (!words.length) return undefined;
  const last = words.length - 1;
  const { stopWords, fillerWords, kindNouns } = state.plan.ranking;

  const stopBits = words.reduce((bits, word, i) => (stopWords.has(word) ? bits | (1 << i) : bits), 0);
  // A query holding a stop word reads as a sentence: its filler words (`program`, `make`, `computer`) are optional too.
  const fillers = stopBits && words.reduce((bits, word, i) => (fillerWords.has(word) ? bits | (1 << i) : bits), stopBits);
  // A kind noun right after a counted word (`a djvu file`) is one too: that word names the kind more narrowly. Not
  // after a request's first word, its verb (`share files with windows computers`): the files are what it acts on.
  const stops = words.reduce(
    (bits, word, i) => (fillers && i > 1 && kindNouns.has(word) && !((fillers >>> (i - 1)) & 1) ? bits | (1 << i) : bits),
    fillers,
  );
  const all = (1 << words.length) - 1;
  const counted = stops === all ? all : all & ~stops;
  const sentence = stopBits !== 0;
  const among = (counted & (counted - 1)) !== 0;
  words.forEach((word, i) => {
    // Stop words are optional: they join neighbours, but alone they match nothing unless the query has nothing else.
    if (!(counted & (1 << i))) return joins(state, words, i, alternatives, counted);
    // A word indexed nowhere as typed, among other words (`gnome trminla`), takes one more typo, as the fallback
    // gives every word when nothing matches (whole-index frequencies: every shard decides alike).
    const lenient = relaxed || (among && !termFrequency(state, word));
    const typos = lenient ? Math.max(1, fuzzyDistance(word) + 1) : fuzzyDistance(word);
    alternatives.push({
      mask: 1 << i,
      first: i,
      terms: [word],
      // In a sentence every word with content may begin a name (Algolia's `queryType: prefixAll`): `say the time` ->
      // `saytime`, `a man page into html` -> `man2html`; keywords are typed whole but for the last (and so are stop
      // words counted in a query of nothing else).
      prefix: i === last || relaxed || (sentence && !((stops >>> i) & 1)),
      typos,
      quality: 1,
      exact: true,
      forms: true,
      ...(i === last && i > 0 ? { follows: words[i - 1] } : {}),
    });
    for (const form of pluralForms(word)) {
      if (termFrequency(state, form))
        alternatives.push({ mask: 1 << i, first: i, terms: [form], prefix: false, typos: 0, quality: PLURAL, exact: false });
    }
    if (word.length >= MIN_SPLIT_WORD && rare(state, word)) alternatives.push(...splits(state, word, i, !termFrequency(state, word)));
    joins(state, words, i, alternatives, counted);
  });
  for (const synonym of synonymsStartingIn(state.plan.ranking, words)) {
    for (let i = 0; i + synonym.input.length <= words.length; i++) {
      if (!synonym.input.every((token, k) => words[i + k] === token)) continue;
      const end = i + synonym.input.length - 1;
      // A rule matches whole words as typed: its replacement is a whole word too, never completed (`virtual machine`
      // -> `vm`, not `vmg`).
      for (const terms of synonym.replacements) {
        alternatives.push({ ...alternative(i, end, terms, words, SYNONYM, false), typos: 0, prefix: false, replaced: true });
        // A one-word replacement glues to the counted word beside it, as typed words glue (`audio converter` ->
        // `soundconverter` through `sound`): a name may be made of the equivalent.
        if (terms.length === 1 && synonym.input.length === 1) {
          if (end + 1 < words.length && counted & (1 << (end + 1)))
            alternatives.push(alternative(i, end + 1, [terms[0] + words[end + 1]], words, SYNONYM * JOINED, false));
          if (i > 0 && counted & (1 << (i - 1)))
            alternatives.push(alternative(i - 1, end, [words[i - 1] + terms[0]], words, SYNONYM * JOINED, false));
        }
        // A replacement of several words with its last word's other number too, as a split word's (`vm manager` ->
        // "managing virtual machines"); one word's other number has its own rule (`vms` ~ `virtual machines`).
        if (terms.length < 2) continue;
        const head = terms.slice(0, -1);
        for (const form of pluralForms(terms[terms.length - 1]))
          if (termFrequency(state, form))
            alternatives.push({
              ...alternative(i, end, [...head, form], words, SYNONYM * PLURAL, false),
              typos: 0,
              prefix: false,
              exact: false,
              replaced: true,
            });
      }
    }
  }

  return { words, counted, firstCounted: 31 - Math.clz32(counted & -counted), alternatives, sentence };
}

function alternative(first: number, last: number, terms: string[], words: string[], quality: number, typos: boolean): Alternative {
  let mask = 0;
  for (let i = first; i <= last; i++) mask |= 1 << i;
  // Glued words allow one typo at most: more would let `text editor` find `textedit`.
  return {
    mask,
    first,
    terms,
    prefix: last === words.length - 1,
    typos: typos ? Math.min(1, fuzzyDistance(terms.join(''))) : 0,
    quality,
    exact: true,
  };
}

/**
 * Word i glued to the next one or two (`wire shark` -> `wireshark`), for names typed as separate words. A stop word
 * glues to a counted word only when the glued words are the whole query (`on board` -> `onboard`): inside a longer
 * query the glued form would stand for the counted word (`rip a cd` -> `acd`, `a list` -> `alist`); stop words
 * still glue among themselves (`to do` -> `todo`), and an optional particle glues to the counted word before it
 * anywhere (`back up my home folder` -> `backup`: English makes the verb's noun so).
 */
function joins(state: IndexState, words: string[], i: number, alternatives: Alternative[], counted: number): void {
  for (let end = i + 1; end < words.length && end - i < MAX_JOINED; end++) {
    const span = ((1 << (end + 1)) - 1) & ~((1 << i) - 1);
    const mixed = (span & counted) !== 0 && (span & ~counted) !== 0;
    const particle = end === i + 1 && (counted >>> i) & 1 && ENGLISH_PARTICLES.has(words[end]);
    if (mixed && !particle && (i > 0 || end < words.length - 1)) continue;
    const glued = words.slice(i, end + 1);
    // Typos in a glued form only when one of its words is not indexed as typed (`thunder brid`): real words
    // glued (`debian games`) are meant exactly, and typo look-ups are the costly part of a first query.
    const typos = glued.some((word) => !termFrequency(state, word));
    alternatives.push(alternative(i, end, [glued.join('')], words, JOINED, typos));
  }
}

function rare(state: IndexState, word: string): boolean {
  return termFrequency(state, word) <= MAX_SPLIT_POSTINGS;
}

/**
 * A word as two words of the dictionary next to each other (`networkmanager` -> `network manager`, `ytdlp` -> `yt dlp`,
 * `ebook` -> `e book`); a word indexed nowhere that has no such cut, as three (`coolretroterm` -> `cool retro term`,
 * as three typed words may be glued into one).
 */
function splits(state: IndexState, word: string, i: number, unindexed: boolean): Alternative[] {
  const found: Alternative[] = [];
  const add = (terms: string[]) => found.push({ mask: 1 << i, first: i, terms, prefix: false, typos: 0, quality: SPLIT, exact: true });
  for (let cut = MIN_SPLIT_HEAD; cut <= word.length - MIN_SPLIT_TAIL && found.length < MAX_SPLITS; cut++) {
    const head = word.slice(0, cut);
    const tail = word.slice(cut);
    if (!termFrequency(state, head)) continue;
    // A glued word splits with its last word's other number too (`flashcards` -> `flash card`, indexed from `flash-card`).
    for (const form of [tail, ...pluralForms(tail)]) if (found.length < MAX_SPLITS && termFrequency(state, form)) add([head, form]);
  }
  if (found.length || !unindexed) return found;
  for (let cut = MIN_THIRD; cut <= word.length - 2 * MIN_THIRD && found.length < MAX_SPLITS; cut++) {
    const head = word.slice(0, cut);
    if (!termFrequency(state, head)) continue;
    for (let second = cut + MIN_THIRD; second <= word.length - MIN_THIRD && found.length < MAX_SPLITS; second++) {
      const middle = word.slice(cut, second);
      const tail = word.slice(second);
      if (termFrequency(state, middle) && termFrequency(state, tail)) add([head, middle, tail]);
    }
  }
  return found;
}
