/**
 * Facet counts of the documents of each frequent term, derived from the index like the facet rows (at the first
 * search that counts them, again after enough changes). A broad keyword query's matches are mostly the documents
 * of one term (`library` for `ssl library`, `haskell` for `haske`), every one of which it matches: their counts are
 * added at once, and only the rows of the other matches are counted, instead of one row per match on every query.
 * The same for each frequent value of a navigation facet, whose documents browsing narrowed to that value counts.
 * Exact between rebuilds: documents added since are among the other matches, and the rows of the term's
 * documents removed since are taken off.
 */
import type { ValueColumn } from './columns';
import { countsByColumn, prepareRowTally, type FacetRows, type CountsByColumn } from './facet-rows';
import { toleratedChanges } from './families';
import type { Covering } from './matching';
import { capacity, documentsByValue, type IndexState } from './state';

/** A term's documents (as of the counts: some may be removed since) and their counts by column. */
interface TermCounts extends CountsByColumn {
  docs: Int32Array;
}

/** The counts of every frequent term, as of one index version and one layout of the facet rows. */
export interface TermCountsCache {
  version: number;
  /** The ordinals handed out as of the counts (`capacity`): documents added since have ordinals from it on. */
  ordinals: number;
  rows: FacetRows;
  byTerm: Map<number, TermCounts>;
  /** Per navigation facet's column, the counts of each value held by at least `MIN_DOCUMENTS` live documents. */
  byValue: Map<ValueColumn, Map<number, TermCounts>>;
  /** `stamp` at the ordinals of the term being taken out of a query's matches (`coveredCounts`), earlier stamps or 0 elsewhere. */
  marks: Uint8Array;
  /** The mark of the current query's term, one more each query: no pass setting the last query's marks back. */
  stamp: number;
  /** The matches outside the term (`CoveredCounts.rest`), reused from query to query (a search runs alone on its index). */
  rest: Int32Array;
}

/** The stamps of `TermCountsCache.marks` go up to this, then every mark is cleared once. */
const LAST_STAMP = 255;

/**
 * Documents holding a term (in every scoring text slot) from which its counts are kept: the Debian catalogue's 282 such
 * terms and 38 navigation values take about 6 MB (86 and 19 from 1,024 took 4 MB), and a two-word query whose words are
 * in a few hundred documents each (`text editor`, `image viewer`) counts the rows of one word's documents only.
 */
const MIN_DOCUMENTS = 256;

/** What facets count for a query whose matches a frequent term covers: its kept counts, the other matches, its documents removed since. */
export interface CoveredCounts {
  counts: CountsByColumn;
  rest: Int32Array;
  removed: Int32Array;
}

/**
 * The covering term's kept counts, the matches outside its documents (`rest`) and its documents removed since
 * (`removed`, whose rows are to be taken off), when the term is frequent and that counts fewer row entries than
 * counting every match (or the live documents outside them); undefined otherwise. `matches`: the query's
 * matches, every live document of the term among them.
 */
export function coveredCounts(
  state: IndexState,
  rows: FacetRows,
  matches: ArrayLike<number>,
  covering: Covering,
): CoveredCounts | undefined {
  if (covering.entries < MIN_DOCUMENTS) return undefined;
  const cache = cacheFor(state, rows);
  const term = cache.byTerm.get(covering.termId);
  return term && countsBeside(state, rows, cache, term, matches);
}

/**
 * `coveredCounts` of the live documents holding value `id` of a navigation facet's `column` (`documents`, every one
 * of them), from the value's kept counts; undefined when it has none or they would not count less.
 */
export function valueCounts(
  state: IndexState,
  rows: FacetRows,
  column: ValueColumn,
  id: number,
  documents: ArrayLike<number>,
): CoveredCounts | undefined {
  if (documents.length < MIN_DOCUMENTS) return undefined;
  const cache = cacheFor(state, rows);
  const value = cache.byValue.get(column)?.get(id);
  if (!value) return undefined;
  if (cache.ordinals < capacity(state)) return countsBeside(state, rows, cache, value, documents);
  // No document added since the counts: the value's documents are its kept ones but those removed since, and
  // adding the kept counts costs at most what counting their rows would (a value id counted at least once a row).
  return { counts: value, rest: NO_DOCUMENTS, removed: removedSince(state, value.docs) };
}

/** `kept`'s counts beside the rest of `matches` (every live document of `kept` among them), when that counts less. */
function countsBeside(
  state: IndexState,
  rows: FacetRows,
  cache: TermCountsCache,
  kept: TermCounts,
  matches: ArrayLike<number>,
): CoveredCounts | undefined {
  const { docs } = kept;
  // Value ids per document, and the work of each way: a place added or a document marked and tested costs about
  // what a value id of a row does (ids, not entries: a combination's entry holds several, and a row costs its misses
  // more than its entries; measured with one entry per id).
  const perRow = rows.valueIds / Math.max(rows.filled, 1);
  const plain = Math.min(matches.length, state.liveCount - matches.length) * perRow;
  const covered = kept.ids.length + 2 * docs.length + matches.length + (matches.length - docs.length) * perRow;
  if (covered >= plain) return undefined;
  // Documents added since are matched too: marks as long as the ordinals.
  if (cache.marks.length < capacity(state)) cache.marks = new Uint8Array(capacity(state));
  if (++cache.stamp > LAST_STAMP) {
    cache.marks.fill(0);
    cache.stamp = 1;
  }
  const { marks, stamp } = cache;
  for (let i = 0; i < docs.length; i++) marks[docs[i]] = stamp;
  if (cache.rest.length <= matches.length) cache.rest = new Int32Array(Math.max(matches.length + 1, cache.rest.length * 2));
  const { rest } = cache;
  let length = 0;
  // Every match written, the next one over it unless it is the term's: no branch on where the term's documents fall.
  for (let i = 0; i < matches.length; i++) {
    const ord = matches[i];
    rest[length] = ord;
    length += Number(marks[ord] !== stamp);
  }
  return { counts: kept, rest: rest.subarray(0, length), removed: removedSince(state, docs) };
}

const NO_DOCUMENTS = new Int32Array(0);

/** The documents of `docs` no longer alive; without a removed document in the whole index, none. */
function removedSince(state: IndexState, docs: Int32Array): Int32Array {
  return state.liveCount === capacity(state) ? NO_DOCUMENTS : removedOf(docs, state.alive);
}

/** The documents of `docs` no longer alive. */
function removedOf(docs: Int32Array, alive: Uint8Array): Int32Array {
  let count = 0;
  for (let i = 0; i < docs.length; i++) count += 1 - alive[docs[i]];
  const removed = new Int32Array(count);
  if (count) for (let i = 0, at = 0; i < docs.length; i++) if (alive[docs[i]] !== 1) removed[at++] = docs[i];
  return removed;
}

function cacheFor(state: IndexState, rows: FacetRows): TermCountsCache {
  const cache = state.caches.termCounts;
  // Derived again after as many changes as the family prior (families.ts).
  if (cache && cache.rows === rows && state.version - cache.version <= toleratedChanges(state)) return cache;
  // `frequentTerms` marks with 1 and clears after itself: the last queries' stamps cleared first.
  const marks = cache && cache.marks.length >= capacity(state) ? cache.marks.fill(0) : new Uint8Array(capacity(state));
  const rest = cache?.rest ?? new Int32Array(0);
  const byTerm = frequentTerms(state, rows, marks);
  const byValue = frequentValues(state, rows);
  const computed = { version: state.version, ordinals: capacity(state), rows, byTerm, byValue, marks, stamp: 0, rest };
  state.caches.termCounts = computed;
  return computed;
}

/** The counts of every term held by at least `MIN_DOCUMENTS` live documents in the scoring text slots. */
function frequentTerms(state: IndexState, rows: FacetRows, marks: Uint8Array): Map<number, TermCounts> {
  const { alive, text } = state;
  const scoring = state.plan.text.map((slot) => !!slot.weight);
  const byTerm = new Map<number, TermCounts>();
  let listed = new Int32Array(0);
  for (let termId = 0; termId < text.terms.length; termId++) {
    const entries = text.count(termId);
    if (entries < MIN_DOCUMENTS) continue;
    if (listed.length < entries) listed = new Int32Array(entries);
    let size = 0;
    for (const { data, from, to } of text.runs(termId))
      for (let p = from; p < to; p += 2) {
        const ord = data[p] >>> 5;
        if (!scoring[data[p] & 31] || alive[ord] !== 1 || marks[ord] === 1) continue;
        marks[ord] = 1;
        listed[size++] = ord;
      }
    for (let i = 0; i < size; i++) marks[listed[i]] = 0;
    if (size < MIN_DOCUMENTS) continue;
    const docs = listed.slice(0, size);
    const tally = (state.caches.rowTally = prepareRowTally(state.caches.rowTally, rows));
    byTerm.set(termId, { docs, ...countsByColumn(rows, docs, tally) });
  }
  return byTerm;
}

/** The counts of every value of a navigation facet held by at least `MIN_DOCUMENTS` live documents. */
function frequentValues(state: IndexState, rows: FacetRows): Map<ValueColumn, Map<number, TermCounts>> {
  const byValue = new Map<ValueColumn, Map<number, TermCounts>>();
  for (const field of state.plan.facets) {
    const column = field.navigation ? state.facets.get(field.code) : undefined;
    if (!column) continue;
    const { starts, ords } = documentsByValue(state, column);
    const counts = new Map<number, TermCounts>();
    for (let id = 0; id < column.values.length; id++) {
      if (starts[id + 1] - starts[id] < MIN_DOCUMENTS) continue;
      const docs = ords.slice(starts[id], starts[id + 1]);
      const tally = (state.caches.rowTally = prepareRowTally(state.caches.rowTally, rows));
      counts.set(id, { docs, ...countsByColumn(rows, docs, tally) });
    }
    byValue.set(column, counts);
  }
  return byValue;
}
