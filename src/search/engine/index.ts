/**
 * The search index of one search app: full text (TextIndex), exact-match, facet and sort columns.
 * Pure TypeScript with no Workers imports, so Node loads it for benchmarks.
 * Documents get an ordinal on insertion; a replaced or removed document leaves a dead ordinal that
 * readers skip and that `serialize()` (hence `compact()`) drops.
 */
import { phrase, tokenize } from './analysis';
import { decodeIndex, encodeIndex } from './codec';
import { NumberColumn, ValueColumn } from './columns';
import { isNumeric, planIndex, type IndexPlan } from './plan';
import { runSearch, runSuggest } from './search';
import { TextIndex } from './text-index';
import type { DocumentPayload, EngineSearchResult, IndexConfig, SearchEngine, SearchRequest, Suggestion, SuggestRequest } from './types';
import { attributeEntries, fieldText, numberValue, stringValues } from './values';

export { QueryError } from './search';
export { displayFields } from './values';

/** Compaction runs once dead ordinals are this share of all ordinals (and at least MIN_DEAD). */
const DEAD_SHARE = 0.3;
const MIN_DEAD = 2048;

export class SearchIndex implements SearchEngine {
  readonly plan: IndexPlan;
  ids: string[] = [];
  ordOf = new Map<string, number>();
  alive = new Uint8Array(1024);
  liveCount = 0;
  /** Bumped by every change, so per-version caches know when they are stale. */
  version = 0;
  text: TextIndex;
  /** Facet id -> values; attribute facets (`<code>.<key>`) appear as keys are seen. */
  facets = new Map<string, ValueColumn>();
  /** Exact-match and string sort columns by field code, holding phrases (`phrase()` of the value). */
  values = new Map<string, ValueColumn>();
  numbers = new Map<string, NumberColumn>();

  constructor(readonly config: IndexConfig) {
    this.plan = planIndex(config);
    this.text = new TextIndex(this.plan.text.length);
    for (const field of this.plan.facets) if (field.dataType !== 'attributes') this.facets.set(field.code, new ValueColumn());
    for (const code of this.plan.valueColumns) this.values.set(code, new ValueColumn());
    for (const code of this.plan.numbers) this.numbers.set(code, new NumberColumn());
  }

  static load(config: IndexConfig, bytes: Uint8Array): SearchIndex {
    return decodeIndex(new SearchIndex(config), bytes);
  }

  get size(): number {
    return this.liveCount;
  }

  /** Ordinals handed out so far, dead ones included. */
  get capacity(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.ordOf.has(id);
  }

  isAlive(ord: number): boolean {
    return this.alive[ord] === 1;
  }

  add(id: string, payload: DocumentPayload): void {
    this.remove(id);
    this.version += 1;
    const ord = this.ids.length;
    this.ids.push(id);
    this.ordOf.set(id, ord);
    this.markAlive(ord);
    this.text.add(
      ord,
      this.plan.text.map((slot) => {
        const field = this.plan.fields.get(slot.code)!;
        return [slot.slot, tokenize(fieldText(field, payload[slot.code]))];
      }),
    );
    for (const field of this.plan.facets) {
      const value = payload[field.code];
      if (field.dataType === 'attributes') {
        for (const [key, values] of attributeEntries(value)) this.attributeFacet(`${field.code}.${key}`).add(ord, values);
      } else {
        this.facets.get(field.code)!.add(ord, isNumeric(field) ? numberFacetValues(field, value) : stringValues(field, value));
      }
    }
    for (const [code, column] of this.values) {
      column.add(ord, stringValues(this.plan.fields.get(code)!, payload[code]).map(phrase));
    }
    for (const [code, column] of this.numbers) {
      const number = numberValue(this.plan.fields.get(code)!, payload[code]);
      if (!Number.isNaN(number)) column.set(ord, number);
    }
  }

  remove(id: string): boolean {
    const ord = this.ordOf.get(id);
    if (ord === undefined) return false;
    this.version += 1;
    this.ordOf.delete(id);
    this.alive[ord] = 0;
    this.liveCount -= 1;
    this.text.remove(ord);
    for (const column of this.facets.values()) column.remove(ord);
    for (const column of this.values.values()) column.remove(ord);
    for (const column of this.numbers.values()) column.clear(ord);
    this.compactIfSparse();
    return true;
  }

  search(request: SearchRequest): EngineSearchResult {
    return runSearch(this, request);
  }

  suggest(request: SuggestRequest): Suggestion[] {
    return runSuggest(this, request);
  }

  serialize(): Uint8Array {
    return encodeIndex(this);
  }

  /** Rebuilds the internals without dead ordinals. */
  compact(): void {
    const fresh = SearchIndex.load(this.config, this.serialize());
    Object.assign(this, {
      ids: fresh.ids,
      ordOf: fresh.ordOf,
      alive: fresh.alive,
      liveCount: fresh.liveCount,
      text: fresh.text,
      facets: fresh.facets,
      values: fresh.values,
      numbers: fresh.numbers,
    });
  }

  attributeFacet(id: string): ValueColumn {
    let column = this.facets.get(id);
    if (!column) {
      column = new ValueColumn();
      this.facets.set(id, column);
    }
    return column;
  }

  markAlive(ord: number): void {
    if (ord >= this.alive.length) {
      const grown = new Uint8Array(Math.max(ord + 1, this.alive.length * 2));
      grown.set(this.alive);
      this.alive = grown;
    }
    this.alive[ord] = 1;
    this.liveCount += 1;
  }

  private compactIfSparse(): void {
    const dead = this.ids.length - this.liveCount;
    if (dead >= MIN_DEAD && dead >= this.ids.length * DEAD_SHARE) this.compact();
  }
}

/** Facet values of a numeric field: canonical numbers, dates as ISO 8601 (what filters compare with). */
function numberFacetValues(field: IndexConfig['fields'][number], value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values
    .map((v) => numberValue(field, v))
    .filter((n) => !Number.isNaN(n))
    .map((n) => (field.dataType === 'date' ? new Date(n).toISOString() : String(n)));
}
