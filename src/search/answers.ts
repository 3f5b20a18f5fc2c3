/**
 * Search and suggest answers as the public routes send them: serialized once by the Durable Object,
 * with the index version they answer for, and keyed by a canonical form of the request so the same
 * question asked with other parameter order, defaults spelled out or other tracking fields is one key.
 */
import type { Facet, SearchAppField, SearchRequest, SuggestRequest } from './engine/types';

/** A serialized answer (`SearchResult` or `Suggestion[]` as JSON) and the index version it was computed on. */
export interface VersionedAnswer {
  version: number;
  json: string;
  /** Answered under a passing condition (the embedding provider failed): never remembered or cached. */
  transient?: boolean;
}

/** What else a hybrid answer depends on: the weight of vector ranking and the embedder that made the query vector. */
export interface HybridKey {
  ratio: number;
  embedder: string;
}

/** Request fields that say who asks, not what: never part of a key. */
const TRACKING_FIELDS = new Set(['requestId', 'userId', 'sessionId', 'requestOrigin']);

/** Object keys in order at every level, so the same question in any key order is one string. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One string per distinct question: keys sorted at every level, tracking fields and undefined values left out. */
function answerKey(kind: string, request: object): string {
  const question = Object.entries(request).filter(([name, value]) => value !== undefined && !TRACKING_FIELDS.has(name));
  return `${kind} ${JSON.stringify(Object.fromEntries(question), sortedKeys)}`;
}

/**
 * The key of a search (the validated request: defaults filled, so `page=1` and no page are one key); a hybrid
 * search's adds its ratio and embedder (the query vector follows from them and the query).
 */
export function searchKey(request: SearchRequest, hybrid?: HybridKey): string {
  return answerKey('search', hybrid ? { ...request, hybrid: { ratio: hybrid.ratio, embedder: hybrid.embedder } } : request);
}

export function suggestKey(request: SuggestRequest): string {
  return answerKey('suggest', request);
}

/** The codes of the `navigation: true` fields of a fields array, kept as long as the array (an index's configuration). */
const navigationCodes = new WeakMap<object, Set<string>>();

/** Facets of `navigation: true` fields first (schema order): the browse menu of an empty-query search. */
export function navigationFirst(facets: Facet[], fields: Array<Pick<SearchAppField, 'code' | 'navigation'>>): Facet[] {
  let navigation = navigationCodes.get(fields);
  if (!navigation)
    navigationCodes.set(fields, (navigation = new Set(fields.filter((field) => field.navigation).map((field) => field.code))));
  const first: Facet[] = [];
  const rest: Facet[] = [];
  for (const facet of facets) {
    // An attribute's facet (`attributes.source`) is its field's.
    const dot = facet.id.indexOf('.');
    (navigation.has(dot < 0 ? facet.id : facet.id.slice(0, dot)) ? first : rest).push(facet);
  }
  for (const facet of rest) first.push(facet);
  return first;
}

/**
 * Serialized answers of one index version, newest kept, bounded by their total size in characters (`charsOf`): a
 * repeated query costs the Durable Object a Map lookup instead of a search. Asking with another version empties it.
 */
export class AnswerMemo<T = string> {
  #version = -1;
  #answers = new Map<string, T>();
  #chars = 0;

  constructor(
    private readonly maxChars: number,
    private readonly charsOf: (answer: T) => number,
  ) {}

  get(version: number, key: string): T | undefined {
    if (version !== this.#version) return undefined;
    const answer = this.#answers.get(key);
    if (answer !== undefined) {
      // Map order is insertion order: re-inserting makes this the most recently used.
      this.#answers.delete(key);
      this.#answers.set(key, answer);
    }
    return answer;
  }

  /**
   * `set` unless an answer of `key` at `version` is remembered already (it stays, as the most recently used): answers of
   * one version differ in their `time` only, so a fresh one replacing it would only turn a long-lived string into
   * garbage of the old generation. False when one was remembered.
   */
  add(version: number, key: string, answer: T): boolean {
    if (this.get(version, key) !== undefined) return false;
    this.set(version, key, answer);
    return true;
  }

  set(version: number, key: string, answer: T): void {
    if (version !== this.#version) {
      this.#version = version;
      this.#answers.clear();
      this.#chars = 0;
    }
    const chars = this.charsOf(answer);
    if (chars > this.maxChars / 4) return;
    const replaced = this.#answers.get(key);
    this.#chars += chars - (replaced === undefined ? 0 : this.charsOf(replaced));
    this.#answers.delete(key);
    this.#answers.set(key, answer);
    for (const [oldest, kept] of this.#answers) {
      if (this.#chars <= this.maxChars) break;
      this.#answers.delete(oldest);
      this.#chars -= this.charsOf(kept);
    }
  }

  /**
   * Puts `updated` in the place of `key`'s answer while that is still `known` (not evicted, no other version since):
   * an answer that grew after it was remembered is counted anew, and the least recently used go while over the size.
   */
  update(key: string, known: T, updated: T): void {
    if (this.#answers.get(key) === known) this.set(this.#version, key, updated);
  }
}
