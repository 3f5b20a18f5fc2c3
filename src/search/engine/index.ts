import type {
  DocumentPayload,
  EngineSearchResult,
  Facet,
  Filter,
  IndexConfig,
  QueryProblem,
  SearchEngine,
  SearchRequest,
  Suggestion,
  SuggestRequest,
} from './types';
import { normalize, parseScalar, textsOf, tokenize } from './analysis';
import { grown, NumberColumn, StringColumn } from './columns';
import { MAX_ORDINALS, packPosting, postingOrdinal, postingSlot, postingTf, Postings } from './postings';
import { bm25, inverseDocumentFrequency, selectTop } from './ranking';
import { canonicalScalar, type FacetDef, facetValuesOf, newFacet, type Slot, slotsOf, type SortColumn, sortsOf } from './schema';
import { decodeIndex, encodeIndex, type IndexState } from './serialization';

export { QueryError, displayFields };

/** An invalid query: answered 400 with `details`. */
class QueryError extends Error {
  constructor(readonly details: QueryProblem[]) {
    super(details.map((problem) => `${problem.path}: ${problem.message}`).join('; '));
    this.name = 'QueryError';
  }
}

/** The stored payload reduced to the fields with `display: true`. */
function displayFields(config: IndexConfig, payload: DocumentPayload): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of config.fields) if (field.display && payload[field.code] !== undefined) out[field.code] = payload[field.code];
  return out;
}

const MAX_QUERY_TERMS = 16;
const MAX_PREFIX_EXPANSIONS = 50;
const MAX_PHRASE_SHINGLE = 5;
const DEFAULT_FACET_LIMIT = 50;
/** Ranking weight of a term reached by prefix or typo rather than typed whole. */
const PREFIX_QUALITY = 0.5;
const FUZZY_QUALITY = 0.3;

type Expansion = { termId: number; quality: number; exact: boolean; prefix: boolean };

interface CompiledFilter {
  facetId: string;
  disjunctive: boolean;
  facet: FacetDef | undefined;
  test: (ordinal: number) => boolean;
}

export class SearchIndex implements SearchEngine {
  readonly config: IndexConfig;
  private readonly slots: Slot[];
  private readonly facets: FacetDef[] = [];
  /** attributes field code -> key -> facet. */
  private readonly attributeFacets = new Map<string, Map<string, FacetDef>>();
  private readonly sortColumns = new Map<string, SortColumn>();
  private readonly sorts: ReturnType<typeof sortsOf>;
  private postings = new Postings();
  private ids: string[] = [];
  private ordinals = new Map<string, number>();
  private alive = new Uint8Array(0);
  private fieldLengths: Uint16Array[];
  private lengthSums: number[];
  private liveCount = 0;
  private scoreScratch = new Float64Array(0);
  private maskScratch = new Uint32Array(0);
  private exactScratch = new Uint32Array(0);

  constructor(config: IndexConfig) {
    this.config = config;
    this.slots = slotsOf(config);
    this.fieldLengths = this.slots.map(() => new Uint16Array(0));
    this.lengthSums = this.slots.map(() => 0);
    for (const field of config.fields) {
      if (!field.facet) continue;
      if (field.dataType === 'attributes') this.attributeFacets.set(field.code, new Map());
      else this.facets.push(newFacet(field.code, field));
    }
    this.sorts = sortsOf(config);
    for (const { field: code } of this.sorts.values()) {
      if (this.sortColumns.has(code)) continue;
      const field = config.fields.find((f) => f.code === code)!;
      const numeric = field.dataType === 'long' || field.dataType === 'double' || field.dataType === 'date' || field.dataType === 'boolean';
      this.sortColumns.set(code, numeric ? { field, numbers: new NumberColumn() } : { field, strings: new StringColumn() });
    }
  }

  static load(config: IndexConfig, bytes: Uint8Array): SearchIndex {
    const index = new SearchIndex(config);
    decodeIndex(bytes, index.state());
    index.afterLoad();
    return index;
  }

  get size(): number {
    return this.liveCount;
  }

  has(id: string): boolean {
    return this.ordinals.has(id);
  }

  add(id: string, payload: DocumentPayload): void {
    this.remove(id);
    if (this.ids.length >= MAX_ORDINALS) this.compact();
    const ordinal = this.ids.length;
    this.ids.push(id);
    this.ordinals.set(id, ordinal);
    this.alive = grown(this.alive, ordinal + 1);
    this.alive[ordinal] = 1;
    this.liveCount++;
    for (const slot of this.slots) this.indexSlot(slot, ordinal, payload[slot.field.code]);
    for (const facet of this.facets) {
      const value = payload[facet.field.code];
      facet.values.set(ordinal, facetValuesOf(facet, value));
      facet.numbers?.set(ordinal, facet.kind === 'date' ? parseScalar(value, 'date') : parseScalar(value, 'number'));
    }
    for (const [code, byKey] of this.attributeFacets) {
      const value = payload[code];
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const [key, inner] of Object.entries(value)) {
        let facet = byKey.get(key);
        if (!facet) byKey.set(key, (facet = newFacet(`${code}.${key}`, this.fieldOf(code), key)));
        facet.values.set(ordinal, facetValuesOf(facet, inner));
      }
    }
    for (const [code, column] of this.sortColumns) {
      const value = payload[code];
      if (column.numbers) column.numbers.set(ordinal, typeof value === 'boolean' ? Number(value) : parseScalar(value, column.field.dataType === 'date' ? 'date' : 'number'));
      else column.strings!.set(ordinal, textsOf(value).map(normalize)[0]);
    }
    if (this.postings.deltaSize > Math.max(500_000, this.postings.baseData.length)) this.compact();
  }

  remove(id: string): boolean {
    const ordinal = this.ordinals.get(id);
    if (ordinal === undefined) return false;
    this.ordinals.delete(id);
    this.alive[ordinal] = 0;
    this.ids[ordinal] = '';
    this.liveCount--;
    this.slots.forEach((slot, i) => (this.lengthSums[i] -= this.fieldLengths[i][ordinal]));
    const dead = this.ids.length - this.liveCount;
    if (dead > 1000 && dead * 4 > this.ids.length) this.compact();
    return true;
  }

  search(request: SearchRequest): EngineSearchResult {
    const problems: QueryProblem[] = [];
    const order = this.compileSort(request.sort, problems);
    const filters = this.compileFilters(request.filters ?? {}, problems);
    if (problems.length > 0) throw new QueryError(problems);

    const terms = tokenize(request.q ?? '').slice(0, MAX_QUERY_TERMS);
    const candidates = terms.length > 0 ? this.score(request.q ?? '', terms) : this.allOrdinals();

    const facetList = this.allFacets();
    const counts = facetList.map((facet) => new Int32Array(facet.values.values.length));
    const touched: number[][] = facetList.map(() => []);
    const facetIndex = new Map(facetList.map((facet, i) => [facet.id, i]));
    const count = (i: number, ordinal: number) => {
      const c = counts[i];
      const t = touched[i];
      facetList[i].values.forEach(ordinal, (valueId) => {
        if (c[valueId]++ === 0) t.push(valueId);
      });
    };
    const matches: number[] = [];
    for (const ordinal of candidates) {
      let failed = -1;
      let failures = 0;
      for (let j = 0; j < filters.length && failures < 2; j++) {
        if (!filters[j].test(ordinal)) {
          failed = j;
          failures++;
        }
      }
      if (failures === 0) {
        matches.push(ordinal);
        for (let i = 0; i < facetList.length; i++) count(i, ordinal);
      } else if (failures === 1 && filters[failed].disjunctive) {
        const i = facetIndex.get(filters[failed].facetId);
        if (i !== undefined) count(i, ordinal);
      }
    }

    const limit = request.facetLimit ?? DEFAULT_FACET_LIMIT;
    const facets: Facet[] = facetList.map((facet, i) => {
      const values = facet.values.values;
      const c = counts[i];
      const ranked = touched[i].sort((a, b) => c[b] - c[a] || (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0));
      return { id: facet.id, name: facet.id, values: ranked.slice(0, limit).map((v) => ({ value: values[v], count: c[v] })) };
    });

    const page = Math.max(1, Math.floor(request.page));
    const rows = Math.max(0, Math.floor(request.rows));
    const start = (page - 1) * rows;
    const best = start < matches.length ? selectTop(matches, Math.min(start + rows, matches.length), order(terms.length > 0)) : [];
    const hits = best.slice(start).map((ordinal, i) => ({ id: this.ids[ordinal], position: start + i + 1 }));
    if (terms.length > 0) this.clearScratch(candidates);
    return { total: matches.length, hits, facets };
  }

  suggest(request: SuggestRequest): Suggestion[] {
    const terms = tokenize(request.q ?? '').slice(0, MAX_QUERY_TERMS);
    const rows = Math.max(0, Math.floor(request.rows));
    if (terms.length === 0 || rows === 0) return [];
    const suggestSlots = new Set(this.slots.filter((slot) => slot.field.suggest && slot.kind === 'text').map((slot) => slot.index));
    if (suggestSlots.size === 0) return [];
    const last = terms[terms.length - 1];
    const lead = terms.slice(0, -1).join(' ');
    const candidates = new Map<string, { termId: number; typo: boolean }>();
    for (const [term, termId] of this.postings.textTerms.atPrefix(last)) candidates.set(term, { termId, typo: false });
    if (last.length >= 4) {
      for (const [term, [termId]] of this.postings.textTerms.fuzzyGet(last, last.length >= 8 ? 2 : 1)) {
        if (!candidates.has(term)) candidates.set(term, { termId, typo: true });
      }
    }
    // Counting documents reads postings: only the most frequent few hundred candidates are counted.
    const counted = [...candidates].sort((a, b) => this.postings.count(b[1].termId) - this.postings.count(a[1].termId)).slice(0, 300);
    const suggestions = counted
      .map(([term, { termId, typo }]) => ({ term, typo, count: this.documentsInSlots(termId, suggestSlots) }))
      .filter((s) => s.count > 0)
      .sort((a, b) => Number(a.typo) - Number(b.typo) || b.count - a.count || (a.term < b.term ? -1 : 1));
    return suggestions.slice(0, rows).map((s) => ({ value: lead ? `${lead} ${s.term}` : s.term, count: s.count }));
  }

  serialize(): Uint8Array {
    this.compact();
    return encodeIndex(this.state());
  }

  /** The parts the binary form holds (shared with ./serialization). */
  private state(): IndexState {
    return {
      postings: this.postings,
      ids: this.ids,
      fieldLengths: this.fieldLengths,
      facets: this.allFacets(),
      sortColumns: this.sortColumns,
      facetById: (id: string) => this.facets.find((facet) => facet.id === id) ?? this.attributeFacet(id, true),
      setIds: (ids: string[]) => (this.ids = ids),
      setFieldLengths: (lengths: Uint16Array[]) => (this.fieldLengths = lengths),
    };
  }

  private afterLoad(): void {
    this.ordinals = new Map(this.ids.map((id, ordinal) => [id, ordinal]));
    this.alive = new Uint8Array(this.ids.length).fill(1);
    this.liveCount = this.ids.length;
    this.lengthSums = this.fieldLengths.map((lengths) => lengths.reduce((sum, n) => sum + n, 0));
  }

  private fieldOf(code: string) {
    return this.config.fields.find((field) => field.code === code)!;
  }

  private attributeFacet(id: string, create: boolean): FacetDef | undefined {
    const dot = id.indexOf('.');
    if (dot < 0) return undefined;
    const byKey = this.attributeFacets.get(id.slice(0, dot));
    if (!byKey) return undefined;
    const key = id.slice(dot + 1);
    let facet = byKey.get(key);
    if (!facet && create) byKey.set(key, (facet = newFacet(id, this.fieldOf(id.slice(0, dot)), key)));
    return facet;
  }

  private allFacets(): FacetDef[] {
    const out: FacetDef[] = [];
    for (const field of this.config.fields) {
      if (!field.facet) continue;
      const byKey = this.attributeFacets.get(field.code);
      if (byKey) out.push(...[...byKey.values()].sort((a, b) => (a.id < b.id ? -1 : 1)));
      else out.push(this.facets.find((facet) => facet.id === field.code)!);
    }
    return out;
  }

  private indexSlot(slot: Slot, ordinal: number, value: unknown): void {
    this.fieldLengths[slot.index] = grown(this.fieldLengths[slot.index], ordinal + 1);
    if (value === undefined || value === null) return;
    let length = 0;
    if (slot.kind === 'scalar') {
      const key = scalarKey(slot, value);
      if (key === undefined) return;
      this.postings.append(this.postings.exactTermId(key), packPosting(ordinal, slot.index, 1));
      length = 1;
    } else if (slot.kind === 'phrase') {
      const keys = new Set<string>();
      for (const text of textsOf(value)) {
        const tokens = tokenize(text);
        length += tokens.length;
        for (const key of shingles(tokens)) keys.add(key);
      }
      for (const key of keys) this.postings.append(this.postings.exactTermId(key), packPosting(ordinal, slot.index, 1));
    } else {
      const frequencies = new Map<string, number>();
      for (const text of textsOf(value)) {
        for (const token of tokenize(text)) {
          frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
          length++;
        }
      }
      for (const [term, tf] of frequencies) this.postings.append(this.postings.textTermId(term), packPosting(ordinal, slot.index, tf));
    }
    this.fieldLengths[slot.index][ordinal] = Math.min(length, 0xffff);
    this.lengthSums[slot.index] += this.fieldLengths[slot.index][ordinal];
  }

  /** Scores the documents matching the query into the scratch arrays; answers the matched ordinals. */
  private score(q: string, terms: string[]): number[] {
    const capacity = this.ids.length;
    if (this.scoreScratch.length < capacity) {
      this.scoreScratch = new Float64Array(capacity * 2);
      this.maskScratch = new Uint32Array(capacity * 2);
      this.exactScratch = new Uint32Array(capacity * 2);
    }
    const scores = this.scoreScratch;
    const masks = this.maskScratch;
    const exacts = this.exactScratch;
    const matched: number[] = [];
    const n = Math.max(this.liveCount, 1);
    const averages = this.lengthSums.map((sum) => sum / n);
    const slots = this.slots;
    const visit = (termId: number, bit: number, quality: number, exact: boolean, allow: (slot: Slot) => boolean) => {
      const idf = inverseDocumentFrequency(n, this.postings.count(termId));
      this.postings.forEach(termId, (posting) => {
        const ordinal = postingOrdinal(posting);
        if (this.alive[ordinal] === 0) return;
        const slot = slots[postingSlot(posting)];
        if (!allow(slot)) return;
        if (masks[ordinal] === 0) matched.push(ordinal);
        masks[ordinal] |= bit;
        if (exact) exacts[ordinal] |= bit;
        scores[ordinal] += slot.weight * quality * idf * bm25(postingTf(posting), this.fieldLengths[slot.index][ordinal], averages[slot.index]);
      });
    };

    terms.forEach((term, i) => {
      const bit = 1 << i;
      const isLast = i === terms.length - 1;
      for (const { termId, quality, exact, prefix } of this.expand(term, isLast)) {
        visit(termId, bit, quality, exact, (slot) => slot.kind === 'text' && (exact || (prefix ? slot.fuzzy || isLast : slot.fuzzy)));
      }
    });

    // Exact fields: the whole query phrase, or the query as a scalar value, matches every query term at once.
    const all = terms.length >= 32 ? 0xffffffff : (1 << terms.length) - 1;
    const phraseId = this.postings.exactTerms.get(`=${terms.join(' ')}`);
    if (phraseId !== undefined) visit(phraseId, all, 1, true, (slot) => slot.kind === 'phrase');
    for (const key of scalarQueryKeys(q)) {
      const termId = this.postings.exactTerms.get(key);
      if (termId !== undefined) visit(termId, all, 1, true, (slot) => slot.kind === 'scalar' && scalarKey(slot, q.trim()) === key);
    }
    return matched;
  }

  private expand(term: string, isLast: boolean): Expansion[] {
    const dictionary = this.postings.textTerms;
    const out: Expansion[] = [];
    const exactId = dictionary.get(term);
    if (exactId !== undefined) out.push({ termId: exactId, quality: 1, exact: true, prefix: false });
    const prefixed: Array<[string, number]> = [];
    for (const [key, termId] of dictionary.atPrefix(term)) if (key !== term) prefixed.push([key, termId]);
    prefixed.sort((a, b) => a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1));
    for (const [key, termId] of prefixed.slice(0, MAX_PREFIX_EXPANSIONS)) {
      out.push({ termId, quality: PREFIX_QUALITY * (term.length / key.length) + (1 - PREFIX_QUALITY) * 0.5, exact: false, prefix: true });
    }
    if (term.length >= 4) {
      for (const [key, [termId, distance]] of dictionary.fuzzyGet(term, term.length >= 8 ? 2 : 1)) {
        if (key === term || key.startsWith(term)) continue;
        out.push({ termId, quality: FUZZY_QUALITY / distance, exact: false, prefix: false });
      }
    }
    void isLast;
    return out;
  }

  private clearScratch(ordinals: number[]): void {
    for (const ordinal of ordinals) {
      this.scoreScratch[ordinal] = 0;
      this.maskScratch[ordinal] = 0;
      this.exactScratch[ordinal] = 0;
    }
  }

  private allOrdinals(): number[] {
    const out: number[] = [];
    for (let ordinal = 0; ordinal < this.ids.length; ordinal++) if (this.alive[ordinal] === 1) out.push(ordinal);
    return out;
  }

  private documentsInSlots(termId: number, slots: Set<number>): number {
    let count = 0;
    let previous = -1;
    this.postings.forEach(termId, (posting) => {
      const ordinal = postingOrdinal(posting);
      if (ordinal === previous || this.alive[ordinal] === 0 || !slots.has(postingSlot(posting))) return;
      previous = ordinal;
      count++;
    });
    return count;
  }

  /** A comparator of ordinals for the sort identifier (relevance when none). */
  private compileSort(sort: string | undefined, problems: QueryProblem[]): (relevance: boolean) => (a: number, b: number) => number {
    const ids = this.ids;
    const byId = (a: number, b: number) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0);
    // Reads the scratch arrays when called: scoring may have reallocated them.
    const byRelevance = (a: number, b: number) => {
      const masks = this.maskScratch;
      const exacts = this.exactScratch;
      return popcount(masks[b]) - popcount(masks[a]) || popcount(exacts[b]) - popcount(exacts[a]) || this.scoreScratch[b] - this.scoreScratch[a];
    };
    if (sort === undefined || sort === '') return (relevance) => (relevance ? (a, b) => byRelevance(a, b) || byId(a, b) : byId);
    const named = this.sorts.get(sort);
    if (!named) {
      problems.push({ path: 'sort', message: `unknown sort '${sort}'; known: ${[...this.sorts.keys()].join(', ') || 'none'}` });
      return () => byId;
    }
    const column = this.sortColumns.get(named.field)!;
    const sign = named.direction === 'asc' ? 1 : -1;
    const byValue = column.numbers
      ? (a: number, b: number) => {
          const x = column.numbers!.get(a);
          const y = column.numbers!.get(b);
          if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y));
          return sign * (x - y);
        }
      : (a: number, b: number) => {
          const x = column.strings!.get(a);
          const y = column.strings!.get(b);
          if (x === undefined || y === undefined) return Number(x === undefined) - Number(y === undefined);
          return x === y ? 0 : sign * (x < y ? -1 : 1);
        };
    return (relevance) => (relevance ? (a, b) => byValue(a, b) || byRelevance(a, b) || byId(a, b) : (a, b) => byValue(a, b) || byId(a, b));
  }

  private compileFilters(filters: Record<string, Filter>, problems: QueryProblem[]): CompiledFilter[] {
    const out: CompiledFilter[] = [];
    for (const [facetId, filter] of Object.entries(filters)) {
      const path = `filters.${facetId}`;
      const facet = this.facets.find((f) => f.id === facetId) ?? this.attributeFacet(facetId, false);
      const known = facet !== undefined || (facetId.includes('.') && this.attributeFacets.has(facetId.slice(0, facetId.indexOf('.'))));
      if (!known) {
        problems.push({ path, message: `unknown facet '${facetId}'` });
        continue;
      }
      const operator = filter.filterOperator ?? 'or';
      const negate = operator === 'not';
      if (filter.filterType === 'range' || filter.filterType === 'slider') {
        if (!facet?.numbers) {
          problems.push({ path: `${path}.filterType`, message: `facet '${facetId}' is not a number or date facet` });
          continue;
        }
        const kind = facet.kind === 'date' ? 'date' : 'number';
        const bound = (value: unknown, name: string): number | undefined => {
          if (value === undefined || value === null || value === '') return undefined;
          const n = parseScalar(value, kind);
          if (Number.isNaN(n)) problems.push({ path: `${path}.${name}`, message: `'${String(value)}' is not a ${kind === 'date' ? 'ISO 8601 date' : 'number'}` });
          return n;
        };
        const min = bound(filter.minValue, 'minValue') ?? -Infinity;
        const max = bound(filter.maxValue, 'maxValue') ?? Infinity;
        const numbers = facet.numbers;
        out.push({
          facetId,
          facet,
          disjunctive: false,
          test: (ordinal) => {
            const value = numbers.get(ordinal);
            return (value >= min && value <= max) !== negate;
          },
        });
        continue;
      }
      const values = filter.values ?? [];
      if (values.length === 0) {
        problems.push({ path: `${path}.values`, message: 'at least one value is required' });
        continue;
      }
      const valueIds: number[] = [];
      let missing = false;
      values.forEach((value, i) => {
        const canonical = facet ? canonicalScalar(facet.kind === 'categories' ? 'string' : facet.kind, value) : String(value);
        if (canonical === undefined) {
          problems.push({ path: `${path}.values.${i}`, message: `'${String(value)}' does not fit the ${facet!.kind} facet '${facetId}'` });
          return;
        }
        const valueId = facet?.values.valueIds.get(canonical);
        if (valueId === undefined) missing = true;
        else valueIds.push(valueId);
      });
      const column = facet?.values;
      let test: (ordinal: number) => boolean;
      if (!column) test = () => negate;
      else if (operator === 'and') test = missing ? () => false : (ordinal) => valueIds.every((valueId) => column.has(ordinal, valueId));
      else test = (ordinal) => valueIds.some((valueId) => column.has(ordinal, valueId)) !== negate;
      out.push({ facetId, facet, disjunctive: operator === 'or', test });
    }
    return out;
  }

  /** Drops removed documents and merges recent postings into the compact base. */
  private compact(): void {
    const remap = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    for (let ordinal = 0; ordinal < this.ids.length; ordinal++) {
      if (this.alive[ordinal] === 1) {
        remap[ordinal] = ids.length;
        ids.push(this.ids[ordinal]);
      }
    }
    const size = ids.length;
    const dense = size === this.ids.length;
    this.postings.compact(dense ? null : remap);
    if (!dense) {
      for (const facet of this.allFacets()) {
        facet.values.compact(remap, size);
        facet.numbers?.compact(remap, size);
      }
      for (const column of this.sortColumns.values()) (column.numbers ?? column.strings!).compact(remap, size);
      this.fieldLengths = this.fieldLengths.map((lengths) => {
        const next = new Uint16Array(size);
        for (let ordinal = 0; ordinal < remap.length; ordinal++) if (remap[ordinal] >= 0) next[remap[ordinal]] = lengths[ordinal] ?? 0;
        return next;
      });
      this.ids = ids;
      this.afterLoad();
    }
  }
}

function popcount(mask: number): number {
  let m = mask - ((mask >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (((m + (m >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Keys of an exact string field: every run of up to 5 tokens, and the whole value. */
function shingles(tokens: string[]): string[] {
  const out: string[] = [];
  for (let start = 0; start < tokens.length; start++) {
    for (let end = start + 1; end <= Math.min(tokens.length, start + MAX_PHRASE_SHINGLE); end++) out.push(`=${tokens.slice(start, end).join(' ')}`);
  }
  if (tokens.length > MAX_PHRASE_SHINGLE) out.push(`=${tokens.join(' ')}`);
  return out;
}

function scalarKey(slot: Slot, value: unknown): string | undefined {
  const type = slot.field.dataType;
  const kind = type === 'boolean' ? 'boolean' : type === 'date' ? 'date' : 'number';
  const canonical = canonicalScalar(kind, value);
  return canonical === undefined ? undefined : `#${kind}:${canonical}`;
}

function scalarQueryKeys(q: string): string[] {
  const text = q.trim();
  const keys: string[] = [];
  for (const kind of ['number', 'date', 'boolean'] as const) {
    const canonical = canonicalScalar(kind, text);
    if (canonical !== undefined) keys.push(`#${kind}:${canonical}`);
  }
  return keys;
}
