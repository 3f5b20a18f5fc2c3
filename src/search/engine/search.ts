/**
 * Query execution: term matching and ranking, filters, disjunctive facet counts, sorting, paging, suggest.
 * Work is proportional to the matching documents: text matches come from postings, filters and facet
 * counts from per-value document lists and per-document value ids.
 */
import { fuzzyDistance, tokenize } from './analysis';
import { compareStrings, type ValueColumn } from './columns';
import type { SearchIndex } from './index';
import { isNumeric, type SortSpec } from './plan';
import type { EngineSearchResult, Facet, Filter, QueryProblem, SearchRequest, Suggestion, SuggestRequest } from './types';

export class QueryError extends Error {
  constructor(readonly details: QueryProblem[]) {
    super(details.map((d) => `${d.path}: ${d.message}`).join('; '));
    this.name = 'QueryError';
  }
}

const MAX_QUERY_TERMS = 16;
const MAX_EXPANSIONS = 64;
const DEFAULT_FACET_LIMIT = 50;
const K1 = 1.2;
const B = 0.7;
/** Score multipliers by how a query term matched an indexed term. */
const EXACT = 1;
const PREFIX = 0.5;
const FUZZY = [1, 0.45, 0.3];
/** Bonus of a whole-phrase match in an exact-mode field, in BM25 units. */
const EXACT_FIELD_SCORE = 8;

interface Expansion {
  termId: number;
  quality: number;
  kind: 'exact' | 'prefix' | 'fuzzy';
}

/** Per-query match state in dense arrays indexed by ordinal (reused across queries, reset after each). */
interface Matches {
  ords: number[];
  score: Float64Array;
  /** Bit i set: query term i matched. */
  terms: Uint32Array;
  /** Bit i set: query term i matched an indexed term exactly (no typo, no completion). */
  exactTerms: Uint32Array;
}

interface Scratch extends Matches {
  termBest: Float64Array;
  termExact: Uint8Array;
}

const scratches = new WeakMap<SearchIndex, Scratch>();

function scratchFor(index: SearchIndex): Scratch {
  let scratch = scratches.get(index);
  if (!scratch || scratch.score.length < index.capacity) {
    const size = Math.max(1024, index.capacity * 2);
    scratch = {
      ords: [],
      score: new Float64Array(size),
      terms: new Uint32Array(size),
      exactTerms: new Uint32Array(size),
      termBest: new Float64Array(size),
      termExact: new Uint8Array(size),
    };
    scratches.set(index, scratch);
  }
  scratch.ords = [];
  return scratch;
}

function release(matches: Matches): void {
  for (const ord of matches.ords) {
    matches.score[ord] = 0;
    matches.terms[ord] = 0;
    matches.exactTerms[ord] = 0;
  }
  matches.ords = [];
}

/** Facet counts over every document with no filter depend only on the index version: cached. */
const browseFacets = new WeakMap<SearchIndex, { version: number; limit: number; facets: Facet[] }>();

export function runSearch(index: SearchIndex, request: SearchRequest): EngineSearchResult {
  const sort = resolveSort(index, request.sort);
  const filters = compileFilters(index, request.filters ?? {});
  const tokens = tokenize(request.q ?? '').slice(0, MAX_QUERY_TERMS);
  const matches = tokens.length ? matchText(index, tokens) : undefined;
  try {
    const candidates = matches ? matches.ords : liveOrds(index);
    const limit = request.facetLimit ?? DEFAULT_FACET_LIMIT;
    let passing = candidates;
    let facets: Facet[];
    if (filters.length) {
      const { filtered, passing: accepted } = applyFilters(candidates, filters);
      passing = accepted;
      facets = countFacets(index, limit, filtered);
    } else {
      facets = matches ? countFacets(index, limit, { shared: candidates, passes: [], disjunctive: [] }) : facetsOfEverything(index, limit);
    }

    const start = (request.page - 1) * request.rows;
    // Without a query or sort, documents come in feeding order, which is ordinal order already.
    const page =
      !matches && !sort
        ? passing.slice(start, start + request.rows)
        : selectTop(passing, start + request.rows, comparator(index, sort, matches)).slice(start);
    return {
      total: passing.length,
      hits: page.map((ord, i) => ({ id: index.ids[ord], position: start + i + 1 })),
      facets,
    };
  } finally {
    if (matches) release(matches);
  }
}

function liveOrds(index: SearchIndex): number[] {
  const ords: number[] = [];
  for (let ord = 0; ord < index.capacity; ord++) if (index.isAlive(ord)) ords.push(ord);
  return ords;
}

// ---------------------------------------------------------------- text matching and ranking

/** Expansions per query token, valid for one index version: search-as-you-type repeats prefixes. */
const expansionCache = new WeakMap<SearchIndex, { version: number; byToken: Map<string, Expansion[]> }>();
const EXPANSION_CACHE_SIZE = 2048;

function expand(index: SearchIndex, token: string, isLast: boolean): Expansion[] {
  let cache = expansionCache.get(index);
  if (!cache || cache.version !== index.version) {
    cache = { version: index.version, byToken: new Map() };
    expansionCache.set(index, cache);
  }
  const key = `${isLast ? '>' : '='}${token}`;
  let expansions = cache.byToken.get(key);
  if (!expansions) {
    expansions = computeExpansions(index, token, isLast);
    if (cache.byToken.size >= EXPANSION_CACHE_SIZE) cache.byToken.clear();
    cache.byToken.set(key, expansions);
  }
  return expansions;
}

function computeExpansions(index: SearchIndex, token: string, isLast: boolean): Expansion[] {
  const dictionary = index.text.dictionary;
  const expansions: Expansion[] = [];
  const exactId = dictionary.get(token);
  if (exactId !== undefined) expansions.push({ termId: exactId, quality: EXACT, kind: 'exact' });
  if (isLast && index.plan.text.some((f) => f.prefix)) {
    const completions: Expansion[] = [];
    for (const [term, termId] of dictionary.atPrefix(token)) {
      if (term === token) continue;
      completions.push({ termId, quality: PREFIX * (0.5 + (0.5 * token.length) / term.length), kind: 'prefix' });
    }
    expansions.push(...mostFrequent(index, completions));
  }
  const distance = fuzzyDistance(token);
  if (distance && index.plan.text.some((f) => f.fuzzy)) {
    const near: Expansion[] = [];
    for (const [term, [termId, edits]] of dictionary.fuzzyGet(token, distance)) {
      if (edits === 0 || term === token) continue;
      near.push({ termId, quality: FUZZY[edits], kind: 'fuzzy' });
    }
    expansions.push(...mostFrequent(index, near));
  }
  return expansions;
}

/** Keeps the expansions with the longest postings, so a one-letter prefix stays cheap. */
function mostFrequent(index: SearchIndex, expansions: Expansion[]): Expansion[] {
  if (expansions.length <= MAX_EXPANSIONS) return expansions;
  return expansions.sort((a, b) => index.text.count(b.termId) - index.text.count(a.termId)).slice(0, MAX_EXPANSIONS);
}

function matchText(index: SearchIndex, tokens: string[]): Matches {
  const m = scratchFor(index);
  const record = (ord: number, termScore: number, bit: number, exact: boolean) => {
    if (m.terms[ord] === 0) m.ords.push(ord);
    m.terms[ord] |= bit;
    m.score[ord] += termScore;
    if (exact) m.exactTerms[ord] |= bit;
  };

  const slots = index.plan.text;
  const total = Math.max(index.size, 1);
  tokens.forEach((token, i) => {
    const touched: number[] = [];
    for (const expansion of expand(index, token, i === tokens.length - 1)) {
      const frequency = index.text.count(expansion.termId);
      const idf = Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
      const exact = expansion.kind === 'exact';
      for (const { data, from, to } of index.text.runs(expansion.termId))
        for (let p = from; p < to; p += 2) {
          const ord = data[p] >>> 5;
          if (!index.isAlive(ord)) continue;
          const slot = slots[data[p] & 31];
          if (!slot.weight || (expansion.kind === 'prefix' && !slot.prefix) || (expansion.kind === 'fuzzy' && !slot.fuzzy)) continue;
          const tf = data[p + 1];
          const norm = 1 - B + (B * index.text.length(slot.slot, ord)) / index.text.averageLength(slot.slot);
          const score = slot.weight * idf * ((tf * (K1 + 1)) / (tf + K1 * norm)) * expansion.quality;
          if (m.termBest[ord] === 0 && m.termExact[ord] === 0) touched.push(ord);
          if (score > m.termBest[ord]) m.termBest[ord] = score;
          if (exact) m.termExact[ord] = 1;
        }
    }
    const bit = 1 << i;
    for (const ord of touched) {
      record(ord, m.termBest[ord], bit, m.termExact[ord] === 1);
      m.termBest[ord] = 0;
      m.termExact[ord] = 0;
    }
  });

  const allTerms = (1 << tokens.length) - 1;
  const query = tokens.join(' ');
  for (const field of index.plan.exact) {
    for (const ord of exactFieldMatches(index, field.code, field.match, query)) {
      record(ord, EXACT_FIELD_SCORE * Math.max(field.weight, 1), allTerms, true);
    }
  }
  return m;
}

/** Documents whose exact-mode field holds the query phrase contiguously (or equals it, for values). */
function exactFieldMatches(index: SearchIndex, code: string, match: 'phrase' | 'value', query: string): number[] {
  const field = index.plan.fields.get(code)!;
  if (isNumeric(field)) {
    const wanted = field.dataType === 'date' ? Date.parse(query) : Number(query);
    const column = index.numbers.get(code)!;
    if (Number.isNaN(wanted)) return [];
    return liveOrds(index).filter((ord) => column.get(ord) === wanted);
  }
  const column = index.values.get(code)!;
  const padded = ` ${query} `;
  const hits = new Set<number>();
  column.values.forEach((value, id) => {
    if (match === 'value' ? value === query : ` ${value} `.includes(padded)) hits.add(id);
  });
  if (!hits.size) return [];
  return liveOrds(index).filter((ord) => {
    let hit = false;
    column.forEachId(ord, (id) => (hit ||= hits.has(id)));
    return hit;
  });
}

function popcount(bits: number): number {
  let count = 0;
  for (let b = bits; b; b &= b - 1) count++;
  return count;
}

type Compare = (a: number, b: number) => number;

function comparator(index: SearchIndex, sort: SortSpec | undefined, matches: Matches | undefined): Compare {
  const byId: Compare = (a, b) => compareStrings(index.ids[a], index.ids[b]);
  const byRelevance: Compare = matches
    ? (a, b) =>
        popcount(matches.terms[b]) - popcount(matches.terms[a]) ||
        popcount(matches.exactTerms[b]) - popcount(matches.exactTerms[a]) ||
        matches.score[b] - matches.score[a] ||
        byId(a, b)
    : (a, b) => a - b;
  if (!sort) return byRelevance;
  const sign = sort.direction === 'asc' ? 1 : -1;
  const numbers = index.numbers.get(sort.field);
  const key: (ord: number) => number = numbers ? (ord) => numbers.get(ord) : columnRank(index.values.get(sort.field)!);
  // Documents without a value come last in both directions.
  return (a, b) => {
    const ka = key(a);
    const kb = key(b);
    const missingA = Number.isNaN(ka);
    const missingB = Number.isNaN(kb);
    if (missingA || missingB) return missingA === missingB ? byRelevance(a, b) : missingA ? 1 : -1;
    return sign * (ka - kb) || byRelevance(a, b);
  };
}

function columnRank(column: ValueColumn): (ord: number) => number {
  const ranks = column.ranks();
  return (ord) => {
    const id = column.firstId(ord);
    return id < 0 ? NaN : ranks[id];
  };
}

/** The first `k` of `ords` in order, without sorting everything when k is small. */
function selectTop(ords: number[], k: number, compare: Compare): number[] {
  if (k <= 0) return [];
  if (ords.length <= k * 4 || ords.length < 512) return ords.sort(compare).slice(0, k);
  // Bounded max-heap of the best k seen so far (the worst on top).
  const heap: number[] = [];
  const worse = (i: number, j: number) => compare(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  for (const ord of ords) {
    if (heap.length < k) {
      heap.push(ord);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(ord, heap[0]) < 0) {
      heap[0] = ord;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let top = i;
        if (l < heap.length && worse(l, top)) top = l;
        if (r < heap.length && worse(r, top)) top = r;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  return heap.sort(compare);
}

function resolveSort(index: SearchIndex, sort: string | undefined): SortSpec | undefined {
  if (!sort) return undefined;
  const spec = index.plan.sorts.get(sort);
  if (!spec) {
    const known = [...index.plan.sorts.keys()];
    throw new QueryError([{ path: 'sort', message: `unknown sort '${sort}'${known.length ? `; known: ${known.join(', ')}` : ''}` }]);
  }
  return spec;
}

// ---------------------------------------------------------------- filters

interface CompiledFilter {
  facetId: string;
  /** An `or` filter is left out of its own facet's counts (disjunctive faceting). */
  disjunctive: boolean;
  accepts(ord: number): boolean;
}

function facetField(index: SearchIndex, facetId: string) {
  const direct = index.plan.fields.get(facetId);
  if (direct?.facet && direct.dataType !== 'attributes') return direct;
  const dot = facetId.indexOf('.');
  const parent = dot > 0 ? index.plan.fields.get(facetId.slice(0, dot)) : undefined;
  return parent?.facet && parent.dataType === 'attributes' ? parent : undefined;
}

function compileFilters(index: SearchIndex, filters: Record<string, Filter>): CompiledFilter[] {
  const problems: QueryProblem[] = [];
  const compiled: CompiledFilter[] = [];
  for (const [facetId, filter] of Object.entries(filters)) {
    const path = `filters.${facetId}`;
    const field = facetField(index, facetId);
    if (!field) {
      problems.push({ path, message: `unknown facet '${facetId}'` });
      continue;
    }
    const operator = filter.filterOperator ?? 'or';
    if (filter.filterType === 'range' || filter.filterType === 'slider') {
      const column = index.numbers.get(field.code);
      if (!column || !isNumeric(field)) {
        problems.push({ path: `${path}.filterType`, message: `${filter.filterType} filters need a long, double or date field` });
        continue;
      }
      const min = bound(field.dataType, filter.minValue, `${path}.minValue`, problems);
      const max = bound(field.dataType, filter.maxValue, `${path}.maxValue`, problems);
      const inside = (ord: number) => {
        const v = column.get(ord);
        return !Number.isNaN(v) && (min === undefined || v >= min) && (max === undefined || v <= max);
      };
      compiled.push({ facetId, disjunctive: false, accepts: operator === 'not' ? (ord) => !inside(ord) : inside });
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
    const column = index.facets.get(facetId);
    const keys = values.map((value, i) => termKey(field.dataType, value, `${path}.values.${i}`, problems));
    const ids = keys.map((key) => (key === undefined ? undefined : column?.idOf.get(key)));
    const has = (ord: number, id: number | undefined) => id !== undefined && column !== undefined && column.has(ord, id);
    const accepts =
      operator === 'and'
        ? (ord: number) => ids.every((id) => has(ord, id))
        : operator === 'not'
          ? (ord: number) => !ids.some((id) => has(ord, id))
          : (ord: number) => ids.some((id) => has(ord, id));
    compiled.push({ facetId, disjunctive: operator === 'or', accepts });
  }
  if (problems.length) throw new QueryError(problems);
  return compiled;
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

// ---------------------------------------------------------------- facets

/**
 * Candidates that pass every `and`/`not`/range filter (`shared`), with the `or` filters each one passes as
 * bits (`passes`), so each facet can leave out its own `or` filter cheaply (disjunctive faceting).
 */
interface Filtered {
  shared: number[];
  passes: number[];
  disjunctive: CompiledFilter[];
}

/** The candidates passing every filter, and the per-candidate bits facet counting needs. */
function applyFilters(candidates: number[], filters: CompiledFilter[]): { filtered: Filtered; passing: number[] } {
  const disjunctive = filters.filter((f) => f.disjunctive).slice(0, 31);
  const conjunctive = filters.filter((f) => !disjunctive.includes(f));
  const all = (1 << disjunctive.length) - 1;
  const shared: number[] = [];
  const passes: number[] = [];
  const passing: number[] = [];
  for (const ord of candidates) {
    if (!conjunctive.every((f) => f.accepts(ord))) continue;
    let bits = 0;
    for (let j = 0; j < disjunctive.length; j++) if (disjunctive[j].accepts(ord)) bits |= 1 << j;
    shared.push(ord);
    passes.push(bits);
    if (bits === all) passing.push(ord);
  }
  return { filtered: { shared, passes, disjunctive }, passing };
}

function countFacets(index: SearchIndex, limit: number, { shared, passes, disjunctive }: Filtered): Facet[] {
  const all = (1 << disjunctive.length) - 1;
  return facetList(index, (facetId, column) => {
    const own = disjunctive.findIndex((f) => f.facetId === facetId);
    const needed = own < 0 ? all : all & ~(1 << own);
    const tally = new Uint32Array(column.values.length);
    const first = column.first;
    const extra = column.extra;
    for (let i = 0; i < shared.length; i++) {
      if (needed && (passes[i] & needed) !== needed) continue;
      const ord = shared[i];
      const id = ord < first.length ? first[ord] : -1;
      if (id < 0) continue;
      tally[id]++;
      const more = extra[ord];
      if (more) for (const other of more) tally[other]++;
    }
    return topValues(column, tally, limit);
  });
}

function facetsOfEverything(index: SearchIndex, limit: number): Facet[] {
  const cached = browseFacets.get(index);
  if (cached && cached.version === index.version && cached.limit === limit) return cached.facets;
  const facets = facetList(index, (_, column) => topValues(column, column.live, limit));
  browseFacets.set(index, { version: index.version, limit, facets });
  return facets;
}

function facetList(index: SearchIndex, values: (facetId: string, column: ValueColumn) => Facet['values']): Facet[] {
  const facets: Facet[] = [];
  for (const [facetId, column] of index.facets) {
    const name = facetId.includes('.') ? facetId.slice(facetId.indexOf('.') + 1) : facetId;
    facets.push({ id: facetId, name, values: values(facetId, column) });
  }
  return facets.sort((a, b) => compareStrings(a.id, b.id));
}

function topValues(column: ValueColumn, counts: ArrayLike<number>, limit: number) {
  const ids: number[] = [];
  for (let id = 0; id < counts.length; id++) if (counts[id] > 0) ids.push(id);
  const order = (a: number, b: number) => counts[b] - counts[a] || compareStrings(column.values[a], column.values[b]);
  return selectTop(ids, limit, order).map((id) => ({ value: column.values[id], count: counts[id] }));
}

// ---------------------------------------------------------------- suggest

export function runSuggest(index: SearchIndex, request: SuggestRequest): Suggestion[] {
  const tokens = tokenize(request.q ?? '').slice(0, MAX_QUERY_TERMS);
  const slots = index.plan.suggestSlots;
  if (!tokens.length || !slots.size || request.rows <= 0) return [];
  const last = tokens[tokens.length - 1];
  const leading = tokens.slice(0, -1);

  // Documents whose suggest fields hold every leading word exactly.
  let required: Set<number> | undefined;
  for (const word of leading) {
    const docs = suggestDocs(index, index.text.dictionary.get(word), slots);
    required = required ? new Set([...required].filter((ord) => docs.has(ord))) : docs;
  }

  const seen = new Set<number>();
  const candidates: Array<{ termId: number; fuzzy: boolean }> = [];
  const consider = (termId: number | undefined, fuzzy: boolean) => {
    if (termId === undefined || seen.has(termId)) return;
    seen.add(termId);
    candidates.push({ termId, fuzzy });
  };
  consider(index.text.dictionary.get(last), false);
  for (const [, termId] of index.text.dictionary.atPrefix(last)) consider(termId, false);
  const distance = fuzzyDistance(last);
  if (distance) for (const [, [termId]] of index.text.dictionary.fuzzyGet(last, distance)) consider(termId, true);

  const ranked = candidates
    .sort((a, b) => index.text.count(b.termId) - index.text.count(a.termId))
    .slice(0, MAX_EXPANSIONS * 4)
    .map(({ termId, fuzzy }) => {
      const docs = suggestDocs(index, termId, slots);
      let count = 0;
      for (const ord of docs) if (!required || required.has(ord)) count++;
      return { value: [...leading, index.text.terms[termId]].join(' '), count, fuzzy };
    })
    .filter((s) => s.count > 0);
  return ranked
    .sort((a, b) => Number(a.fuzzy) - Number(b.fuzzy) || b.count - a.count || compareStrings(a.value, b.value))
    .slice(0, request.rows)
    .map(({ value, count }) => ({ value, count }));
}

function suggestDocs(index: SearchIndex, termId: number | undefined, slots: Set<number>): Set<number> {
  const docs = new Set<number>();
  if (termId === undefined) return docs;
  for (const { data, from, to } of index.text.runs(termId)) {
    for (let p = from; p < to; p += 2) {
      const ord = data[p] >>> 5;
      if (index.isAlive(ord) && slots.has(data[p] & 31)) docs.add(ord);
    }
  }
  return docs;
}
