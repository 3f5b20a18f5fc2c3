/**
 * Text analysis shared by indexing, querying and highlighting: one tokenizer, one normalization, one edit
 * distance, so that what the engine matched and what a highlighter marks agree.
 */
import { stemmer } from 'stemmer';

const TOKEN = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;
/** A word with its inner separators and symbols: `firefox-esr`, `docker.io`, `g++`, `.net`, `libstdc++6`. */
const WORD = /[\p{L}\p{N}+#.\-_]+/gu;
const SEPARATORS = /[.\-_]+/;
const SYMBOL = /[+#]/;
const HAS_PART = /[\p{L}\p{N}]/u;
const INITIAL = /^\p{L}$/u;
const MAX_QUERY_TERMS = 16;

/** A term a word contributes beside its parts: a segment carrying symbols, `g++` in `g++-12`, `.net`, or `smart` of `S.M.A.R.T.`. */
export interface WordExtra {
  term: string;
  /** The first part it covers, counted from the word's first part. */
  from: number;
  /** How many parts it covers. */
  span: number;
}

export interface AnalyzedWord {
  /** The word's letter and digit runs, as `tokenize` gives them. */
  parts: string[];
  extras: WordExtra[];
}

/** Lower-cased, accent-free form of a text: `normalize('Crème')` gives `creme`. */
export function normalize(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Words of a text: runs of letters and digits, normalized. `firefox-esr` gives `firefox`, `esr`. */
export function tokenize(text: string): string[] {
  return normalize(text).match(TOKEN) ?? [];
}

/** The words of a query the engine looks at (the first 16). */
export function queryTokens(q: string): string[] {
  return tokenize(withoutClitics(q)).slice(0, MAX_QUERY_TERMS);
}

/**
 * A query without the clitics of English words (`computer's`, `you're`, `I've`, `we'll`, `I'd`, `I'm`, `doesn't`,
 * `can't`): a possessive, a contracted auxiliary or negation is no word of its own to match (`s` and `t` stand in
 * `user's` and `doesn't` of many descriptions), and the word before it is read whole (`doesn't` as `does`).
 */
export function withoutClitics(q: string): string {
  return q.replace(IRREGULAR_NEGATION, (_, verb: string) => IRREGULAR_VERBS[verb.toLowerCase()] ?? verb).replace(CLITIC, '');
}
const CLITIC = /(?<=\p{L})(?:n['’]t|['’](?:s|ll|re|ve|d|m))(?![\p{L}\p{N}])/giu;
const IRREGULAR_NEGATION = /\b(can|won|shan)['’]t(?![\p{L}\p{N}])/giu;
const IRREGULAR_VERBS: Record<string, string> = { can: 'can', won: 'will', shan: 'shall' };

/**
 * Words of a text, with the terms that keep names with symbols findable whole: `g++` gives part `g` and the
 * term `g++`; `libstdc++6` gives `libstdc`, `6` and `libstdc++6`; `.net` gives `net` and `.net`. Names with
 * separators (`speedtest-cli`) give their parts; a query finds them glued by splitting (see query-plan.ts).
 */
export function analyzeWords(text: string): AnalyzedWord[] {
  const words: AnalyzedWord[] = [];
  for (const raw of normalize(text).match(WORD) ?? []) {
    const word = raw.replace(/^[-_]+|[.\-_]+$/g, '');
    const segments = word.split(SEPARATORS).filter((segment) => HAS_PART.test(segment));
    const parts: string[] = [];
    const extras: WordExtra[] = [];
    for (const segment of segments) {
      const segmentParts = segment.match(TOKEN) ?? [];
      if (SYMBOL.test(segment)) extras.push({ term: segment, from: parts.length, span: segmentParts.length });
      parts.push(...segmentParts);
    }
    if (!parts.length) continue;
    if (word.startsWith('.') && segments.length === 1 && !SYMBOL.test(word)) extras.push({ term: word, from: 0, span: parts.length });
    // An initialism written with dots (`S.M.A.R.T.`, `B.A.L.L.Z.`) is also the word its letters spell.
    if (segments.length >= 2 && segments.every((segment) => INITIAL.test(segment)))
      extras.push({ term: segments.join(''), from: 0, span: parts.length });
    words.push({ parts, extras });
  }
  return words;
}

/** A whole value as one comparable phrase (`Text  Editors` and `text-editors` both give `text editors`). */
export function phrase(text: string): string {
  return tokenize(text).join(' ');
}

/** Edit distance a query term of this length may be away from an indexed term in fuzzy fields. */
export function fuzzyDistance(term: string): number {
  if (term.length >= 8) return 2;
  if (term.length >= 4) return 1;
  return 0;
}

/**
 * The shortest singular read off a plural: a three-letter word in -s is an initialism (`fps`, `gps`, `sms`, `ups`,
 * `cms`, `tls`) far more often than the plural of a two-letter word, whose names (`fp-compiler`, `sm`, `ne`) it found.
 */
const MIN_SINGULAR = 3;

/** Singular and plural forms of an English word other than itself (`players` -> `player`; `library` -> `libraries`). */
export function pluralForms(word: string): string[] {
  if (word.length < 3 || /\d/.test(word)) return [];
  const forms: string[] = [];
  if (word.endsWith('ies') && word.length > 4) forms.push(`${word.slice(0, -3)}y`);
  else if (/(?:s|x|z|ch|sh)es$/.test(word)) forms.push(word.slice(0, -2), word.slice(0, -1));
  else if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) {
    if (word.length > MIN_SINGULAR) forms.push(word.slice(0, -1));
  } else if (/[^aeiou]y$/.test(word)) forms.push(`${word.slice(0, -1)}ies`);
  else if (/(?:s|x|z|ch|sh)$/.test(word)) forms.push(`${word}es`);
  else forms.push(`${word}s`);
  return forms;
}

const MIN_STEMMED = 3;
/** Agent nouns Porter keeps whole (`scanner`, `player`, `editor`): their verb too, a doubled consonant undone. */
const AGENT = /(?:([bdgmnpt])\1)?(?:er|or)s?$/;
const MIN_AGENT = 6;
const MIN_VERB = 3;

/**
 * Stems of an English word (Porter's, and for an agent noun its verb's): two words share a stem when they may be
 * forms of one another (`record`, `recorder`, `recording`; `scan`, `scanner`; `manager`, `management`; `sameWord`).
 * None for words under three letters (`rip` ~ `ripper`, `tag` ~ `tagging` have some), words with digits, or non-ASCII words.
 */
export function stems(word: string): string[] {
  let found = stemMemo.get(word);
  if (found === undefined) {
    found = stemsOf(word);
    if (stemMemo.size >= STEM_MEMO_SIZE) stemMemo.clear();
    stemMemo.set(word, found);
  }
  return found;
}

/**
 * Stems of the words seen lately (shared arrays: callers only read them). Highlighting stems every word of the
 * returned documents, query after query, and stem forms the same dictionary terms: the same words come back.
 */
const stemMemo = new Map<string, string[]>();
const STEM_MEMO_SIZE = 8192;

/**
 * Whether two words are forms of one another: they share a stem, and their light stems agree (without the plural,
 * -ing, -ed, -ment, -ion, -ation, a verb's -ate or a noun's -ency, an agent's -er or -or, a final e or doubled letter): Porter alone takes
 * `animals` for `animation`, `equals` for `equalizer`, `assembly` for `assembler`; nor an agent noun for its verb's -ed
 * form (`printed` for `printer`).
 */
export function sameWord(a: string, b: string): boolean {
  const wanted = stems(a);
  if (!stems(b).some((stem) => wanted.includes(stem))) return false;
  // An agent noun is no form of its verb's -ed participle, which names what was acted on (`printer` and `printed
  // circuit board`, `recorder` and `recorded interview`); its -ing form names the act (`printing system`) and stays.
  if ((PAST.test(b) && isAgent(a)) || (PAST.test(a) && isAgent(b))) return false;
  // -ation makes a noun of a verb (`install` -> `installation`); a plural is a noun already, and the -ation noun of
  // its stem is another word (`documents` is no form of `documentation`).
  const light = lightStems(b, ATION.test(b) && isPlural(a));
  return lightStems(a, ATION.test(a) && isPlural(b)).some((stem) => light.includes(stem));
}

const ATION = /ations?$/;
const PAST = /ed$/;

/** A noun in -er or -or of at least `MIN_AGENT` letters, or its plural (`printer`, `editors`). */
function isAgent(word: string): boolean {
  const singular = pluralForms(word).find((form) => form.length < word.length) ?? word;
  return singular.length >= MIN_AGENT && AGENT.test(singular);
}

function isPlural(word: string): boolean {
  return pluralForms(word).some((form) => form.length < word.length);
}

const DERIVED = /(?:ing|ed|ment|ion)$/;
/** An adjective in -ical is a form of its noun in -ic or -ics (`statistical` ~ `statistics`, `musical` ~ `music`). */
const ADJECTIVE = /(?<=[a-z]{3})ical$/;
/** An -ation stem must keep this many letters (`installation` ~ `install`; `rotation` is no form of `rot`). */
const MIN_ATION_STEM = 5;

/** Light stems of a word; its -ation stem left out when the other word is a plural (`sameWord`). */
function lightStems(typed: string, withoutAtion: boolean): string[] {
  const word = comparedWord(typed);
  const singular = pluralForms(word).find((form) => form.length < word.length) ?? word;
  const found = [singular];
  // Inflections do not stack: a plural is no -ed form (`apacheds` is no form of `apache`; `connections` ~ `connect` stays).
  const bare = singular !== word && singular.endsWith('ed') ? singular : singular.replace(DERIVED, '');
  if (bare !== singular && bare.length >= MIN_VERB) found.push(bare);
  if (!withoutAtion && singular.endsWith('ation') && singular.length - 5 >= MIN_ATION_STEM) found.push(singular.slice(0, -5));
  // A verb in -ate meets its -ation noun the same way (`translate` ~ `translation`, `automate` ~ `automation`).
  if (singular.endsWith('ate') && singular.length - 3 >= MIN_ATION_STEM) found.push(singular.slice(0, -3));
  // A noun in -ency is one of its verb (`dependency` ~ `depend`, `consistency` ~ `consist`).
  if (singular.endsWith('ency') && singular.length - 4 >= MIN_VERB + 1) found.push(singular.slice(0, -4));
  const noun = singular.replace(ADJECTIVE, 'ic');
  if (noun !== singular) found.push(noun);
  const agent = singular.length >= MIN_AGENT ? singular.replace(AGENT, '$1') : singular;
  if (agent !== singular && agent.length >= MIN_VERB) found.push(agent);
  return found.map(comparable);
}

/** A light stem without a final e or a doubled last letter (`type` ~ `typ`, `modell` ~ `model`, `install` ~ `instal`). */
function comparable(stem: string): string {
  const bare = stem.length > 3 && stem.endsWith('e') ? stem.slice(0, -1) : stem;
  return bare.length > 3 && bare.at(-1) === bare.at(-2) ? bare.slice(0, -1) : bare;
}

/** British spellings: -ise and -yse (`visualise`, `analyser`, `organising`) and -our (`colour`, `behaviour`). */
const BRITISH_ISE = /(?<=[a-z]{3}[iy])s(?=(?:e|es|ed|er|ers|ing|ation|ations|able)$)/;
const BRITISH_OUR = /(?<=[a-z]{3}o)u(?=(?:r|rs|red|ring|ful|rite|rites)$)/;

/**
 * A word in American spelling, so the two spellings of a word share its stems (`visualisation` ~ `visualization`,
 * `analyser` ~ `analyzer`, `colour` ~ `color`). Both words of a comparison are respelt, so a word with no American
 * twin (`promise` -> `promize`) still only meets its own forms.
 */
function americanSpelling(word: string): string {
  return word.replace(BRITISH_ISE, 'z').replace(BRITISH_OUR, '');
}

/**
 * Nouns of Latin verbs whose stem changes (`conversion` ~ `convert`, `notification` ~ `notify`, `analysis` ~
 * `analyze`, `synthesis` ~ `synthesize`, `description` ~ `describe`, `resolution` ~ `resolve`), as their verb; the
 * -ytic words of an -ysis noun as its verb too (`analytics` ~ `analysis`), and a learned -ic, -ical or -ics word as its
 * -y noun (`cryptographic` ~ `cryptography`, `genealogical` ~ `genealogy`, `astronomical` ~ `astronomy`, `economics`
 * ~ `economy`), which Porter stems apart; only past two letters before the root, so `logic` and `graphic` stay.
 */
const NOMINALIZATIONS: Array<[RegExp, string]> = [
  [/(?<=[a-z]{3})ersion(s?)$/, 'ert$1'],
  [/(?<=[a-z]{2})ification(s?)$/, 'ify$1'],
  [/(?<=[a-z]{2})ysis$/, 'yze'],
  [/(?<=[a-z]{2})ytic(?:s|al)?$/, 'yze'],
  [/(?<=[a-z]{2}(?:log|nom|graph|metr|soph|path|tom))(?:ic|ical|ics)$/, 'y'],
  [/(?<=[a-z]{2})esis$/, 'esize'],
  [/(?<=[a-z]{3})iption(s?)$/, 'ibe$1'],
  [/(?<=[a-z])olution(s?)$/, 'olve$1'],
];

/**
 * An adjective in -ular of a Latin diminutive noun in -cule, -dule, -nule or -sule, as the noun (`molecular` ~
 * `molecule`, `modular` ~ `module`, `granular` ~ `granule`); not after other letters, where the -ular word has no such
 * noun and its stem would meet other words (`popular` ~ `population`, `regular` ~ `regulation`).
 */
const DIMINUTIVE_ADJECTIVE = /(?<=[a-z]{2}[cdns])ular$/;

/** The word compared for forms: in American spelling, a noun of a Latin verb as the verb, an -ular adjective as its noun. */
function comparedWord(word: string): string {
  const compared = americanSpelling(word).replace(DIMINUTIVE_ADJECTIVE, 'ule');
  for (const [noun, verb] of NOMINALIZATIONS) if (noun.test(compared)) return compared.replace(noun, verb);
  return compared;
}

/** Stem endings whose other forms begin otherwise: the British spellings and the nouns above. */
const OTHER_BEGINNINGS: Array<[RegExp, string]> = [
  [/(?<=[a-z]{3}[iy])z$/, 's'],
  [/(?<=[a-z]{3})or$/, 'our'],
  [/(?<=[a-z]{3})ert$/, 'ers'],
  [/(?<=[a-z]{3})ib$/, 'ip'],
  [/(?<=[a-z])olv$/, 'ol'],
];

/** Where other forms of a stem are also looked for (`analyz` -> `analys`, `color` -> `colour`, `convert` -> `convers`). */
export function otherBeginning(stem: string): string | undefined {
  for (const [ending, other] of OTHER_BEGINNINGS) if (ending.test(stem)) return stem.replace(ending, other);
  return undefined;
}

function stemsOf(typed: string): string[] {
  if (typed.length < MIN_STEMMED || !/^[a-z]+$/.test(typed)) return [];
  const word = comparedWord(typed);
  const stem = stemmer(word);
  const verb = word.length >= MIN_AGENT ? word.replace(AGENT, '$1') : word;
  if (verb === word || verb.length < MIN_VERB) return [stem];
  const verbStem = stemmer(verb);
  return verbStem === stem ? [stem] : [stem, verbStem];
}

/**
 * Edits (insertion, deletion, substitution, or a swap of two adjacent letters) between two words
 * (optimal string alignment distance); stops counting past `max` and then answers `max + 1`.
 * `editDistance('wireshark', 'wrieshark')` is 1.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  if (distanceRows.length < 3 * width) distanceRows = new Int32Array(3 * width);
  const rows = distanceRows;
  // Three rows of the table at offsets in one array: the row before the previous one (for swaps), the previous, the current.
  let before = 0;
  let previous = width;
  let current = 2 * width;
  for (let j = 0; j < width; j++) {
    rows[before + j] = 0;
    rows[previous + j] = j;
  }
  for (let i = 1; i <= a.length; i++) {
    rows[current] = i;
    let rowMin = i;
    const letter = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = letter === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(rows[previous + j] + 1, rows[current + j - 1] + 1, rows[previous + j - 1] + cost);
      if (i > 1 && j > 1 && letter === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, rows[before + j - 2] + 1);
      rows[current + j] = d;
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > max) return max + 1;
    const reused = before;
    before = previous;
    previous = current;
    current = reused;
  }
  return Math.min(rows[previous + b.length], max + 1);
}

/** `editDistance`'s table rows, reused from call to call (highlighting measures every word of a name field). */
let distanceRows = new Int32Array(96);
