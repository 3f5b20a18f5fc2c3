/**
 * Highlighting and snippets of a document's display strings. The query's words are matched again against
 * the words of each text (exact, a prefix of the last query word, another form of a query word, a typo within
 * the engine's thresholds, a word of one of the app's synonyms of the query's words) with the engine's own
 * tokenizer, so this works on any returned document, however the matcher found it.
 */
import { editDistance, fuzzyDistance, pluralForms, queryTokens, sameWord, stems, tokenize } from './analysis';
import { synonymsStartingIn, type IndexPlan, type RankingPlan } from './plan';
import { QueryError } from './query-error';
import { MAX_JOINED } from './query-plan';
import type { QueryProblem, SearchAppField } from './types';

/** How a field's words may match a query word; mirrors the field's search mode. */
export interface MatchRules {
  /** The last query word matches words it begins, and query words match other forms of theirs (same stem). */
  prefix: boolean;
  /** Query words match words within `fuzzyDistance` edits. */
  typos: boolean;
}

/** The markup around matched words; everything else is HTML-escaped. */
export interface HighlightTags {
  pre: string;
  post: string;
}

export const DEFAULT_TAGS: HighlightTags = { pre: '<mark>', post: '</mark>' };
export const ELLIPSIS = '…';
export const DEFAULT_SNIPPET_WORDS = 10;
const ALL_FIELDS = '*';

/** What a search request may ask of the returned documents: their fields and highlighting (Algolia's names). */
export interface HighlightRequest {
  /** Displayed field codes answered in `document`, `*` for all (the default); highlighting still reads every field. */
  attributesToRetrieve?: string[];
  /** Field codes, `*` for every displayed string field. Default: the searched ones, when the query has words. */
  attributesToHighlight?: string[];
  /** Fields cut to a window of `words` words around the best match. Default: none. */
  attributesToSnippet?: Array<{ field: string; words: number }>;
  highlightPreTag?: string;
  highlightPostTag?: string;
}

/** A displayed string value with marks: a string, or an array for an array value. */
export type Marked = string | string[];

export interface DocumentHighlights {
  highlight?: Record<string, Marked>;
  snippet?: Record<string, Marked>;
}

/**
 * Highlighting for one search request, checked against the schema once and applied to each returned
 * document (`SearchIndex.highlighter`). Throws `QueryError` for a field that is not a displayed string field.
 */
export class Highlighter {
  readonly #query: QueryWords;
  readonly #tags: HighlightTags;
  readonly #highlighted: Array<{ code: string; rules: MatchRules }>;
  readonly #snippets: Array<{ code: string; rules: MatchRules; words: number }>;

  constructor(plan: IndexPlan, q: string | undefined, request: HighlightRequest) {
    this.#query = new QueryWords(q ?? '', plan.ranking);
    this.#tags = { pre: request.highlightPreTag ?? DEFAULT_TAGS.pre, post: request.highlightPostTag ?? DEFAULT_TAGS.post };
    const problems: QueryProblem[] = [];
    const displayed = [...plan.fields.values()].filter(isDisplayedText);
    const rules = (code: string) => matchRules(plan, code);
    const check = (code: string, path: string) => {
      const field = plan.fields.get(code);
      if (field && isDisplayedText(field)) return true;
      problems.push({ path, message: field ? `'${code}' is not a displayed string field` : `unknown field '${code}'` });
      return false;
    };
    const highlightCodes =
      request.attributesToHighlight === undefined
        ? this.#query.isEmpty
          ? []
          : displayed.filter((field) => field.searchMode !== 'off').map((field) => field.code)
        : request.attributesToHighlight.includes(ALL_FIELDS)
          ? displayed.map((field) => field.code)
          : request.attributesToHighlight.filter((code, i) => check(code, `attributesToHighlight.${i}`));
    this.#highlighted = highlightCodes.map((code) => ({ code, rules: rules(code) }));
    this.#snippets = (request.attributesToSnippet ?? []).flatMap(({ field, words }) =>
      field === ALL_FIELDS
        ? displayed.map((f) => ({ code: f.code, rules: rules(f.code), words }))
        : check(field, 'attributesToSnippet')
          ? [{ code: field, rules: rules(field), words }]
          : [],
    );
    if (problems.length) throw new QueryError(problems);
  }

  get isEmpty(): boolean {
    return this.#highlighted.length === 0 && this.#snippets.length === 0;
  }

  /** Marked copies of the document's requested string fields (fields it lacks are left out). */
  apply(document: Record<string, unknown>): DocumentHighlights {
    const result: DocumentHighlights = {};
    for (const { code, rules } of this.#highlighted) {
      const marked = mapStrings(document[code], (text) => highlight(text, this.#query, rules, this.#tags));
      if (marked !== undefined) (result.highlight ??= {})[code] = marked;
    }
    for (const { code, rules, words } of this.#snippets) {
      const marked = mapStrings(document[code], (text) => snippet(text, this.#query, rules, words, this.#tags));
      if (marked !== undefined) (result.snippet ??= {})[code] = marked;
    }
    return result;
  }
}

function isDisplayedText(field: SearchAppField): boolean {
  return field.display && field.dataType === 'string';
}

/** A field's matching as the engine does it: prefix and typos where its text slot has them, exact words elsewhere. */
function matchRules(plan: IndexPlan, code: string): MatchRules {
  const slot = plan.text.find((text) => text.field.code === code && text.weight > 0);
  return { prefix: slot?.prefix ?? false, typos: slot?.fuzzy ?? false };
}

function mapStrings(value: unknown, mark: (text: string) => string): Marked | undefined {
  if (typeof value === 'string') return mark(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.map(mark);
  return undefined;
}

/** Words of a raw text with their offsets: letters, digits and combining marks (which tokenize drops). */
const RAW_WORD = /[\p{L}\p{N}\p{M}]+/gu;
const PLAIN_WORD = /^[a-z0-9]+$/;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const UNSAFE = /[&<>"']/g;
const HAS_UNSAFE = /[&<>"']/;

export function escapeHtml(text: string): string {
  // Most text has nothing to escape: a test is cheaper than a replace that calls back for nothing.
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, (c) => ESCAPES[c]) : text;
}

interface Word {
  start: number;
  end: number;
  /** Index of the query word it matches, or -1. */
  term: number;
  /** Characters to mark from `start` (a prefix match marks only the typed part when it can). */
  marked: number;
}

/** The query word a text word matches and how many of its characters match. */
interface Match {
  term: number;
  length: number;
}

const rulesKey = (rules: MatchRules) => (rules.prefix ? 2 : 0) + (rules.typos ? 1 : 0);

/**
 * `QueryWords.#candidateLengths`' places: an ASCII word's first character (`[0-9]` at 0 to 9, a letter of either case
 * at 10 to 35), and one for words of any first letter. Per request and match rules a small array of small integers
 * (kept in the JS heap), where a typed array of every character code was an allocation outside it (~0.4 µs each).
 */
const ANY_LETTER = 36;
/** `#candidateLengths`' place of the first character `code` of an ASCII word (`[0-9A-Za-z]`). */
const letterPlace = (code: number) => (code <= 57 ? code - 48 : code <= 90 ? code - 55 : code - 87);
/** Word lengths from this one on share its bit (29: every bit pattern stays a small integer). */
const MAX_LENGTH_BIT = 29;
const lengthBit = (length: number) => 1 << Math.min(length, MAX_LENGTH_BIT);
/** The bits of lengths `shortest` to `longest` (at least 1). */
function lengthBits(shortest: number, longest: number): number {
  const to = Math.min(longest, MAX_LENGTH_BIT);
  const from = Math.min(Math.max(shortest, 1), to);
  // Shifts, not `2 **` (a call of Math.pow).
  return ((1 << (to + 1)) - 1) & ~((1 << from) - 1);
}

/** Per ASCII character code: 1 for a word's character (`[0-9A-Za-z]`), 2 for one HTML escapes, 0 for any other. */
const CHARACTER_KINDS = (() => {
  const kinds = new Uint8Array(128);
  for (let code = 0; code < 128; code++) if (/[0-9A-Za-z]/.test(String.fromCharCode(code))) kinds[code] = 1;
  for (const c of '&<>"\'') kinds[c.charCodeAt(0)] = 2;
  return kinds;
})();

/** The words of a query, compiled once per request and matched against every highlighted text. */
export class QueryWords {
  readonly terms: string[];
  readonly #distances: number[];
  /** Per query word: its singular or plural (matched in every field, as the engine does) and its stems. */
  readonly #plurals: string[][];
  readonly #stems: string[][];
  /**
   * Words standing for a query word, matched exactly as the engine does: the words of its synonyms, and query words
   * glued to the next one or two (`wire shark` -> `wireshark`), for the first of them.
   */
  readonly #synonyms = new Map<string, number>();
  /**
   * Per match rules (`rulesKey`), what each normalized word matched (`null`: nothing): the ten hits of a page share
   * many words, and a word's stems and typo distances are the costly part of matching it.
   */
  readonly #matched: Array<Map<string, Match | null>> = [new Map(), new Map(), new Map(), new Map()];
  /** Per match rules (`rulesKey`): `candidateLengths`, made when first needed. */
  readonly #candidates: Array<number[] | undefined> = [];
  /** The length of the longest query word. */
  readonly #longest: number;

  constructor(q: string, ranking?: RankingPlan) {
    const tokens = queryTokens(q);
    this.terms = [...new Set(tokens)];
    this.#distances = this.terms.map(fuzzyDistance);
    this.#plurals = this.terms.map(pluralForms);
    this.#stems = this.terms.map(stems);
    this.#longest = Math.max(0, ...this.terms.map((term) => term.length));
    for (const { input, replacements } of ranking ? synonymsStartingIn(ranking, tokens) : [])
      for (let i = 0; i + input.length <= tokens.length; i++) {
        if (!input.every((token, k) => tokens[i + k] === token)) continue;
        const term = this.terms.indexOf(tokens[i]);
        for (const word of replacements.flat()) if (!this.#synonyms.has(word)) this.#synonyms.set(word, term);
      }
    for (let i = 0; i < tokens.length; i++)
      for (let end = i + 2; end <= Math.min(tokens.length, i + MAX_JOINED); end++) {
        const glued = tokens.slice(i, end).join('');
        if (!this.#synonyms.has(glued) && !this.terms.includes(glued)) this.#synonyms.set(glued, this.terms.indexOf(tokens[i]));
      }
  }

  get isEmpty(): boolean {
    return this.terms.length === 0;
  }

  /**
   * The query word a normalized text word matches (exact first, then prefix, then another form of the word, then
   * typo), and how many characters match.
   */
  match(word: string, rules: MatchRules): Match | undefined {
    const memo = this.#matched[rulesKey(rules)];
    let found = memo.get(word);
    if (found === undefined) {
      found = this.#match(word, rules) ?? null;
      memo.set(word, found);
    }
    return found ?? undefined;
  }

  #match(word: string, rules: MatchRules): Match | undefined {
    const terms = this.terms;
    for (let i = 0; i < terms.length; i++) if (word === terms[i]) return { term: i, length: word.length };
    const synonym = this.#synonyms.get(word);
    if (synonym !== undefined) return { term: synonym, length: word.length };
    const last = terms.length - 1;
    if (rules.prefix && last >= 0 && word.startsWith(terms[last])) return { term: last, length: terms[last].length };
    const form = this.#formOf(word, rules);
    if (form >= 0) return { term: form, length: word.length };
    if (rules.typos)
      for (let i = 0; i < terms.length; i++) {
        const max = this.#distances[i];
        if (max && Math.abs(word.length - terms[i].length) <= max && editDistance(word, terms[i], max) <= max)
          return { term: i, length: word.length };
      }
    return undefined;
  }

  /**
   * Per first letter (`letterPlace`, or `ANY_LETTER` for every one), the lengths (`lengthBit`) of the words `#match` can
   * match: a query word, a synonym or glued pair, a singular or plural spelled out; under `rules.prefix`, a completion of
   * the last query word and, for a query word with stems, any word with its first letter (a stem keeps its word's first
   * letter); under `rules.typos`, any word whose length is within a query word's typo distance of it.
   */
  #candidateLengths(rules: MatchRules): number[] {
    const lengths = new Array<number>(ANY_LETTER + 1).fill(0);
    const lengthsOf = (place: number, shortest: number, longest = MAX_LENGTH_BIT) => {
      lengths[place] |= lengthBits(shortest, longest);
    };
    // Only a word beginning with `[0-9a-z]` (a query word is lowercase) can be an ASCII word.
    const startingLike = (word: string, shortest: number, longest?: number) => {
      const first = word.charCodeAt(0);
      if (first < 128 && CHARACTER_KINDS[first] === 1) lengthsOf(letterPlace(first), shortest, longest);
    };
    const spelled = (word: string) => startingLike(word, word.length, word.length);
    this.terms.forEach(spelled);
    for (const word of this.#synonyms.keys()) spelled(word);
    for (const forms of this.#plurals) forms.forEach(spelled);
    const last = this.terms.at(-1);
    if (rules.prefix && last) startingLike(last, last.length);
    this.terms.forEach((term, i) => {
      if (rules.prefix && this.#stems[i].length) startingLike(term, 1);
      const max = this.#distances[i];
      if (rules.typos && max) lengthsOf(ANY_LETTER, term.length - max, term.length + max);
    });
    return lengths;
  }

  /** The query word of which `word` is the singular or plural, or (where stem forms match) another form; else -1. */
  #formOf(word: string, rules: MatchRules): number {
    for (let i = 0; i < this.terms.length; i++) if (this.#plurals[i].includes(word)) return i;
    if (!rules.prefix || !this.#stems.some((wanted) => wanted.length)) return -1;
    // A stem keeps its word's first letter, so words sharing one begin alike: most words of a text need no stems.
    return this.terms.findIndex((term, i) => this.#stems[i].length > 0 && term[0] === word[0] && sameWord(term, word));
  }

  /**
   * Every word of `text` with the query word it matches (`all`), or only the matched ones (what highlighting marks:
   * most words of a text match nothing, and need no object); two unmatched words in a row that a query word glues
   * (`e-book` for `ebook`, `speedtest-cli` for `speedtestcli`) both match it.
   */
  words(text: string, rules: MatchRules, all = true): Word[] {
    return this.wordList(text, rules, all).words;
  }

  /** `words` with what else the scan found out about the text (`WordList.plain`). */
  wordList(text: string, rules: MatchRules, all: boolean): WordList {
    return this.#asciiWords(text, rules, all) ?? this.#unicodeWords(text, rules, all);
  }

  /**
   * `words` of an ASCII text (most display strings), undefined for any other: its words are runs of `[A-Za-z0-9]`,
   * as `RAW_WORD` finds them, already normalized once lowercased, so one scan of character codes finds them without
   * a regular expression, a match object or a lowercased copy per word.
   */
  #asciiWords(text: string, rules: MatchRules, all: boolean): WordList | undefined {
    const words = new WordList(all);
    // Whether a word (lowercase) of a first letter and a length may match a query word under `rules`: most words of
    // a text cannot, and skip their string, its look-up and `#match`. Read once per text, not once per word.
    const lengths = (this.#candidates[rulesKey(rules)] ??= this.#candidateLengths(rules));
    const anyLetter = lengths[ANY_LETTER];
    const kinds = CHARACTER_KINDS;
    let lower: string | undefined;
    let start = -1;
    let first = 0;
    let escapes = 0;
    for (let i = 0; i <= text.length; i++) {
      const code = i < text.length ? text.charCodeAt(i) : 0;
      if (code >= 128) return undefined;
      const kind = kinds[code];
      if (kind === 1) {
        if (start < 0) {
          start = i;
          first = code;
        }
        continue;
      }
      escapes |= kind;
      if (start < 0) continue;
      lower ??= text.toLowerCase();
      const length = i - start;
      const hit =
        ((lengths[letterPlace(first)] | anyLetter) & lengthBit(length)) !== 0 ? this.match(lower.slice(start, i), rules) : undefined;
      // The word before, unmatched, glued to this one: its normalized form is its text, lowercased.
      const glued =
        !hit && this.#mayGlue(words, words.lastEnd - words.lastStart + length)
          ? this.terms.indexOf(lower.slice(words.lastStart, words.lastEnd) + lower.slice(start, i))
          : -1;
      words.add(start, length, hit ? hit.term : -1, hit ? hit.length : 0, glued);
      start = -1;
    }
    words.plain = escapes === 0;
    return words;
  }

  #unicodeWords(text: string, rules: MatchRules, all: boolean): WordList {
    const words = new WordList(all);
    let before = '';
    // exec over the shared /g expression rather than matchAll, which copies it for every text.
    RAW_WORD.lastIndex = 0;
    for (let found = RAW_WORD.exec(text); found !== null; found = RAW_WORD.exec(text)) {
      const raw = found[0];
      const lower = raw.toLowerCase();
      // Plain ASCII words need no Unicode normalization, and their normalized length is their raw length.
      if (PLAIN_WORD.test(lower)) {
        before = this.#push(words, lower, found.index, raw.length, before, rules);
        continue;
      }
      const tokens = tokenize(raw);
      let term = -1;
      for (const token of tokens) {
        const hit = this.match(token, rules);
        if (hit) {
          term = hit.term;
          break;
        }
      }
      const normalized = tokens.join('');
      words.add(found.index, raw.length, term, term < 0 ? 0 : raw.length, this.#gluedTo(words, before, normalized, term));
      before = normalized;
    }
    return words;
  }

  /** Adds the plain word `word` (normalized) at `start` with what it matches; answers it as the next word's `before`. */
  #push(words: WordList, word: string, start: number, length: number, before: string, rules: MatchRules): string {
    const hit = this.match(word, rules);
    const term = hit ? hit.term : -1;
    words.add(start, length, term, hit ? hit.length : 0, this.#gluedTo(words, before, word, term));
    return word;
  }

  /** The query word that `before` (the last word of `words`, normalized) and `normalized` spell glued, or -1. */
  #gluedTo(words: WordList, before: string, normalized: string, term: number): number {
    return term < 0 && before && this.#mayGlue(words, before.length + normalized.length) ? this.terms.indexOf(before + normalized) : -1;
  }

  /** Only an unmatched word, and a glued pair as long as some query word can be one: most unmatched pairs build no string. */
  #mayGlue(words: WordList, length: number): boolean {
    return words.lastTerm === -1 && length <= this.#longest;
  }
}

/** The words of a text as `QueryWords.words` finds them, with the last one's place and match kept for gluing. */
class WordList {
  readonly words: Word[] = [];
  lastStart = 0;
  lastEnd = 0;
  /** The last word's query word, -1 when unmatched, -2 before the first word. */
  lastTerm = -2;
  /** The text holds no character HTML escapes (known of an ASCII text only: its scan reads every character). */
  plain = false;

  /** `all`: every word is listed, else only matched ones. */
  constructor(private readonly all: boolean) {}

  /** Adds a word with what it matches; `glued`: the query word it spells with the word before (which then matches it too). */
  add(start: number, length: number, term: number, marked: number, glued: number): void {
    if (glued >= 0) {
      if (this.all) {
        const previous = this.words[this.words.length - 1];
        previous.term = glued;
        previous.marked = previous.end - previous.start;
      } else this.words.push({ start: this.lastStart, end: this.lastEnd, term: glued, marked: this.lastEnd - this.lastStart });
      term = glued;
      marked = length;
    }
    if (this.all || term >= 0) this.words.push({ start, end: start + length, term, marked });
    this.lastStart = start;
    this.lastEnd = start + length;
    this.lastTerm = term;
  }
}

/** The text HTML-escaped with matched words wrapped in the tags. */
export function highlight(text: string, query: QueryWords, rules: MatchRules, tags: HighlightTags = DEFAULT_TAGS): string {
  if (query.isEmpty) return escapeHtml(text);
  const { words, plain } = query.wordList(text, rules, false);
  // Most texts mark nothing and escape nothing: the text itself, with no test of a regular expression over it.
  if (plain && !words.length) return text;
  return render(text, words, 0, text.length, tags, '', '', plain);
}

/**
 * A window of `size` words around the best match (the one holding the most different query words),
 * highlighted, with `…` where the text was cut. Without a match, the first `size` words.
 */
export function snippet(text: string, query: QueryWords, rules: MatchRules, size: number, tags: HighlightTags = DEFAULT_TAGS): string {
  const words = query.isEmpty ? wordsOnly(text) : query.words(text, rules);
  if (words.length <= size) return render(text, words, 0, text.length, tags);
  const first = bestWindow(words, size, query.terms.length);
  const last = first + size - 1;
  const from = first === 0 ? 0 : words[first].start;
  const to = last === words.length - 1 ? text.length : words[last].end;
  return render(text, words, from, to, tags, first > 0 ? ELLIPSIS : '', to < text.length ? ELLIPSIS : '');
}

function wordsOnly(text: string): Word[] {
  return [...text.matchAll(RAW_WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length, term: -1, marked: 0 }));
}

/** The first word of the `size`-word window with the most distinct matched query words (earliest on ties). */
function bestWindow(words: Word[], size: number, termCount: number): number {
  const inWindow = new Uint16Array(termCount);
  let distinct = 0;
  let best = 0;
  let bestDistinct = 0;
  for (let i = 0; i < words.length; i++) {
    const entering = words[i].term;
    if (entering >= 0 && inWindow[entering]++ === 0) distinct++;
    const leaving = i - size >= 0 ? words[i - size].term : -1;
    if (leaving >= 0 && --inWindow[leaving] === 0) distinct--;
    if (distinct > bestDistinct) {
      bestDistinct = distinct;
      best = Math.max(0, i - size + 1);
    }
  }
  if (bestDistinct === 0) return 0;
  // Center the chosen window's matches, so they read with context on both sides.
  let firstMatch = best;
  while (words[firstMatch].term < 0) firstMatch++;
  let lastMatch = Math.min(best + size - 1, words.length - 1);
  while (words[lastMatch].term < 0) lastMatch--;
  const slack = size - (lastMatch - firstMatch + 1);
  return Math.min(Math.max(0, firstMatch - Math.floor(slack / 2)), words.length - size);
}

const unescaped = (piece: string) => piece;

/**
 * `text` from `from` to `to`, escaped (unless `plain`: nothing in it to escape), its matched words marked, between
 * `before` and `after`: one flat string (the pieces joined once, not appended one by one), as `JSON.stringify`'s fast
 * path serializes only flat strings and otherwise starts the whole answer over on its slow path.
 */
function render(
  text: string,
  words: Word[],
  from: number,
  to: number,
  tags: HighlightTags,
  before = '',
  after = '',
  plain = false,
): string {
  const escaped = plain ? unescaped : escapeHtml;
  const pieces = [before];
  let at = from;
  for (const word of words) {
    if (word.term < 0 || word.start < from || word.end > to) continue;
    const markEnd = word.start + word.marked;
    pieces.push(escaped(text.slice(at, word.start)), tags.pre, escaped(text.slice(word.start, markEnd)), tags.post);
    at = markEnd;
  }
  const rest = escaped(text.slice(at, to));
  // Nothing marked or added: the text itself (or its escaped copy), flat already.
  if (pieces.length === 1 && !before && !after) return rest;
  pieces.push(rest, after);
  return pieces.join('');
}
