/**
 * Filters: a request's filters compiled against the facet columns (every problem reported at once), then
 * applied to candidates, keeping for each candidate which `or` filters it passes (for disjunctive facets).
 */
import type { ValueColumn } from './columns';
import { isNumeric } from './plan';
import { QueryError } from './query-error';
import { documentsByValue, liveOrds, type IndexState } from './state';
import type { Filter, QueryProblem, SearchAppField } from './types';

export interface CompiledFilter {
  facetId: string;
  /** An `or` term or tree filter, or a range, is left out of its own facet's counts and stats (disjunctive faceting). */
  disjunctive: boolean;
  accepts(ord: number): boolean;
  /** Sets `bit` in `marks[i]` for each `ords[i]` the filter accepts: one loop with one kind of test. */
  markEach(ords: ArrayLike<number>, marks: Int32Array, bit: number): void;
  /** An `or` term or tree filter's column and the value ids it accepts: its documents are those values' (`documentsByValue`). */
  values?: FilterValues;
}

interface FilterValues {
  column: ValueColumn;
  ids: number[];
}

/** Sets `bit` in `marks[i]` for each `ords[i]` passing a test. */
type MarkEach = (ords: ArrayLike<number>, marks: Int32Array, bit: number) => void;

/**
 * A filter from its test on one document and the same test over many (a loop in the column, which the JIT keeps
 * fast); `negate`: the documents failing the test pass.
 */
function filterOf(
  facetId: string,
  disjunctive: boolean,
  test: (ord: number) => boolean,
  testEach: MarkEach,
  negate: boolean,
  values?: FilterValues,
): CompiledFilter {
  return {
    facetId,
    disjunctive,
    values,
    accepts: negate ? (ord) => !test(ord) : test,
    markEach(ords, marks, bit) {
      testEach(ords, marks, bit);
      // This filter's bit was clear before: flipping it marks the documents failing the test.
      if (negate) for (let i = 0; i < ords.length; i++) marks[i] ^= bit;
    },
  };
}

/**
 * Candidates that pass every `and`/`not` filter (`shared`), with the `or` and range filters each one passes as
 * bits (`passes`), so each facet can leave out its own such filter cheaply (disjunctive faceting).
 */
export interface Filtered {
  shared: ArrayLike<number>;
  /** Read only where a facet leaves out one of two or more disjunctive filters (`lookIn` in facets.ts); may be empty otherwise. */
  passes: ArrayLike<number>;
  disjunctive: CompiledFilter[];
  /** The shared candidates that pass every disjunctive filter too (what facets without a filter of their own count over). */
  passing?: ArrayLike<number>;
  /** Per ordinal, not 0 exactly for the documents of `shared` (a keyword query's matches, no filter): its complement is listed from them. */
  marks?: ArrayLike<number>;
  /** `passing` is every live document holding this one value (a lone filter over every live document): kept counts may apply (term-counts.ts). */
  value?: { column: ValueColumn; id: number };
}

/** The request's filters as predicates over ordinals; throws `QueryError` naming every invalid one. */
export function compileFilters(state: IndexState, filters: Record<string, Filter>): CompiledFilter[] {
  const problems: QueryProblem[] = [];
  const compiled: CompiledFilter[] = [];
  for (const [facetId, filter] of Object.entries(filters)) {
    const path = `filters.${facetId}`;
    const field = facetField(state, facetId);
    if (!field) {
      problems.push({ path, message: `unknown facet '${facetId}'` });
      continue;
    }
    const operator = filter.filterOperator ?? 'or';
    if (filter.filterType === 'range' || filter.filterType === 'slider') {
      const column = state.numbers.get(field.code);
      if (!column || !isNumeric(field)) {
        problems.push({ path: `${path}.filterType`, message: `${filter.filterType} filters need a long, double or date field` });
        continue;
      }
      const min = bound(field.dataType, filter.minValue, `${path}.minValue`, problems);
      const max = bound(field.dataType, filter.maxValue, `${path}.maxValue`, problems);
      const inside = (ord: number) => column.within(ord, min, max);
      const insideEach: MarkEach = (ords, marks, bit) => column.markWithin(ords, min, max, marks, bit);
      // A range slider shows the whole span around its own range, as Algolia's disjunctive numeric facets do.
      compiled.push(filterOf(facetId, operator !== 'not', inside, insideEach, operator === 'not'));
      continue;
    }
    if (filter.filterType === 'tree' && field.dataType !== 'categories') {
      problems.push({ path: `${path}.filterType`, message: `tree filters need a categories field` });
      continue;
    }
    const values = filter.values ?? [];
    if (!values.length) {
      problems.push({ path: `${path}.values`, message: 'term and tree filters need at least one value' });
      continue;
    }
    const column = state.facets.get(facetId);
    const keys = values.map((value, i) => termKey(field.dataType, value, `${path}.values.${i}`, problems));
    const ids = keys.map((key) => (key === undefined ? undefined : column?.idOf.get(key)));
    const known = ids.filter((id) => id !== undefined);
    // Value ids marked in a typed array: one lookup per value a document carries, whatever the number of filter values.
    const wanted = new Uint8Array(column?.values.length ?? 0);
    for (const id of known) wanted[id] = 1;
    if (operator === 'and') {
      const hasAll = (ord: number) => known.length === ids.length && column !== undefined && known.every((id) => column.has(ord, id));
      const hasAllEach: MarkEach = (ords, marks, bit) => {
        for (let i = 0; i < ords.length; i++) if (hasAll(ords[i])) marks[i] |= bit;
      };
      compiled.push(filterOf(facetId, false, hasAll, hasAllEach, false));
      continue;
    }
    const hasAny = (ord: number) => column !== undefined && column.hasAny(ord, wanted);
    const hasAnyEach: MarkEach = (ords, marks, bit) => column?.markHasAny(ords, wanted, marks, bit);
    const accepted = column && operator === 'or' ? { column, ids: known } : undefined;
    compiled.push(filterOf(facetId, operator === 'or', hasAny, hasAnyEach, operator === 'not', accepted));
  }
  if (problems.length) throw new QueryError(problems);
  return compiled;
}

/** The candidates passing every filter, and the per-candidate bits facet counting needs. */
export function applyFilters(candidates: Int32Array, filters: CompiledFilter[]): { filtered: Filtered; passing: Int32Array } {
  const disjunctive = filters.filter((f) => f.disjunctive).slice(0, 31);
  const conjunctive = filters.filter((f) => !disjunctive.includes(f));
  // Filter after filter over the candidates (not candidate after candidate through every filter): each loop runs one
  // test. The `and`/`not` filters narrow them in turn; the others mark what they accept, one bit each.
  let shared = candidates;
  for (const filter of conjunctive) shared = acceptedBy(filter, shared);
  const passes = new Int32Array(shared.length);
  disjunctive.forEach((filter, j) => filter.markEach(shared, passes, 1 << j));
  const passing = marked(shared, passes, (1 << disjunctive.length) - 1);
  return { filtered: { shared, passes, disjunctive, passing }, passing };
}

/**
 * `applyFilters` over every live document (a search without a query). A lone filter of values (`values`) is answered
 * from their documents, without a test of every live document: browsing narrowed to one section.
 */
export function filterEverything(state: IndexState, filters: CompiledFilter[]): { filtered: Filtered; passing: Int32Array } {
  const values = filters.length === 1 ? filters[0].values : undefined;
  if (!values) return applyFilters(liveOrds(state), filters);
  const { column, ids } = values;
  const listed = documentsWithAny(state, column, ids);
  // Its own facet counts over every live document, the others over its documents: no facet reads `passes`.
  const filtered: Filtered = { shared: liveOrds(state), passes: NO_PASSES, disjunctive: filters, passing: listed };
  if (ids.length === 1) filtered.value = { column, id: ids[0] };
  return { filtered, passing: listed };
}

const NO_PASSES = new Int32Array(0);

/** The live documents holding any of the value ids `ids` of `column`, in ordinal order. */
function documentsWithAny(state: IndexState, column: ValueColumn, ids: number[]): Int32Array {
  const { starts, ords } = documentsByValue(state, column);
  if (ids.length === 1) return ords.subarray(starts[ids[0]], starts[ids[0] + 1]);
  let size = 0;
  for (const id of ids) size += starts[id + 1] - starts[id];
  const all = new Int32Array(size);
  let at = 0;
  for (const id of ids) {
    all.set(ords.subarray(starts[id], starts[id + 1]), at);
    at += starts[id + 1] - starts[id];
  }
  all.sort();
  // A document holding two of the values is listed once.
  let length = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[length++] = all[i];
  return all.subarray(0, length);
}

/** The ordinals of `ords` a filter accepts, in order. */
function acceptedBy(filter: CompiledFilter, ords: Int32Array): Int32Array {
  const marks = new Int32Array(ords.length);
  filter.markEach(ords, marks, 1);
  return marked(ords, marks, 1);
}

/** `marked`'s working list, grown as candidates grow (filters run one at a time, and `marked` copies out of it). */
let markedScratch = new Int32Array(1024);

/**
 * The ordinals of `ords` whose `marks` are `bits`, in order. Typed, as the candidates are: a list the engine reads
 * both as a typed list and as a `number[]` makes every loop over ordinals polymorphic. One pass without a branch on
 * the marks (every ordinal written, the next one over it unless marked), so scattered marks cost no mispredictions.
 */
function marked(ords: Int32Array, marks: Int32Array, bits: number): Int32Array {
  if (markedScratch.length < ords.length) markedScratch = new Int32Array(ords.length * 2);
  const kept = markedScratch;
  let length = 0;
  for (let i = 0; i < ords.length; i++) {
    kept[length] = ords[i];
    length += +(marks[i] === bits);
  }
  return kept.slice(0, length);
}

/** The faceted field a facet id names: a field code, or `<code>.<key>` of an attributes field. */
export function facetField(state: IndexState, facetId: string): SearchAppField | undefined {
  const direct = state.plan.fields.get(facetId);
  if (direct?.facet && direct.dataType !== 'attributes') return direct;
  const dot = facetId.indexOf('.');
  const parent = dot > 0 ? state.plan.fields.get(facetId.slice(0, dot)) : undefined;
  return parent?.facet && parent.dataType === 'attributes' ? parent : undefined;
}

function bound(dataType: string, value: number | string | undefined, path: string, problems: QueryProblem[]): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = dataType === 'date' && typeof value === 'string' ? Date.parse(value) : Number(value);
  if (Number.isNaN(number)) {
    problems.push({ path, message: dataType === 'date' ? 'expected an ISO 8601 date' : 'expected a number' });
    return undefined;
  }
  return number;
}

/** The facet value a filter value stands for, checked against the field's type. */
function termKey(dataType: string, value: string, path: string, problems: QueryProblem[]): string | undefined {
  if (dataType === 'long' || dataType === 'double') {
    const number = Number(value);
    if (value.trim() === '' || Number.isNaN(number)) return void problems.push({ path, message: 'expected a number' });
    return String(number);
  }
  if (dataType === 'date') {
    const time = Date.parse(value);
    if (Number.isNaN(time)) return void problems.push({ path, message: 'expected an ISO 8601 date' });
    return new Date(time).toISOString();
  }
  if (dataType === 'boolean') {
    if (value !== 'true' && value !== 'false') return void problems.push({ path, message: 'expected true or false' });
    return value;
  }
  if (dataType === 'categories')
    return value
      .split('/')
      .map((s) => s.trim())
      .filter(Boolean)
      .join('/');
  return value;
}
