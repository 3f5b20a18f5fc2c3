/**
 * Search and suggest answers of a search app's Durable Object: whole answers of an app with one shard (serialized
 * once and remembered per index version), a shard's parts of a sharded read, and the statistics the shards exchange
 * so that each scores as one index of every document.
 */
import { navigationFirst, searchKey, suggestKey, type VersionedAnswer } from '../answers';
import {
  compactFacets,
  displayFields,
  encodeShare,
  QueryError,
  retrievedFields,
  type CompactFacet,
  type HybridNormsPart,
  type PartRules,
  type RankedSuggestion,
  type StatisticsShare,
} from '../engine';
import type { HighlightRequest } from '../engine/highlight';
import type {
  EngineSearchResult,
  MergeKeys,
  ResultDocument,
  SearchRequest,
  SearchResult,
  Suggestion,
  SuggestRequest,
} from '../engine/types';
import type { Outcome } from '../outcome';
import { ok, type LiveIndex, type SemanticSearch, type ShardView } from './live-index';

/**
 * A read a replica can answer as well as the primary: keyword or hybrid search, or suggest. `key`: its answer's key
 * (`searchKey` of the request and semantic, `suggestKey`) when the caller made it already, so the object need not.
 */
export type IndexRead =
  | { kind: 'search'; request: SearchRequest & HighlightRequest; semantic?: SemanticSearch; key?: string }
  | { kind: 'suggest'; request: SuggestRequest; key?: string };

/** A shard's part of a sharded read, which a replica of the shard answers as well as the shard's primary. */
export type PartRead =
  | { kind: 'search'; request: SearchRequest & HighlightRequest; semantic?: SemanticSearch; rules?: PartRules }
  | { kind: 'hybridNorms'; request: SearchRequest; semantic: SemanticSearch; rules?: PartRules }
  | { kind: 'suggest'; request: SuggestRequest };

/** One shard's part of a sharded search: its best hits with merge keys, every facet value, stats with their counts. */
export interface SearchPart extends ShardView {
  /** Nothing matched the query's words here, so this shard relaxed it (`settleParts`). */
  relaxed: boolean;
  /** The typo expansions this shard kept per query word (`settleParts`). */
  typoReport?: EngineSearchResult['typoReport'];
  total: number;
  documents: ResultDocument[];
  merge: MergeKeys;
  facets: CompactFacet[];
  facetStats: SearchResult['facetStats'];
  facetStatCounts: Record<string, number>;
  semantic?: SearchResult['semantic'];
  /** Codes of the fields with `navigation: true` (their facets come first in an answer). */
  navigation: string[];
}

/** One shard's part of the normalization of a sharded hybrid search. */
export interface HybridNormsAnswer extends ShardView, HybridNormsPart {}

/** One shard's part of a sharded suggest. */
export interface SuggestPart extends ShardView {
  suggestions: RankedSuggestion[];
}

/** Shard 0's answer to a caller that believed the app had one shard when it has `shards`: no result, ask them all. */
export interface Resharded {
  shards: number;
}

/** A serialized answer of shard 0, and how many shards the app has (more than 1: the caller asks them all instead). */
export interface LayoutAnswer extends VersionedAnswer {
  shards: number;
}

/** Why a hybrid search answered keyword results only. */
const NO_VECTORS = 'the index has no vectors of this embedder yet: feed documents, or schedule a feeding job after an embedder change';

/** The statistics of a shard never fed. */
const NO_STATISTICS: StatisticsShare = {
  documents: 0,
  fieldLengths: [],
  terms: [],
  frequencies: new Int32Array(0),
  titles: { keys: new Int32Array(0), beginnings: new Int32Array(0), wholes: new Int32Array(0), endings: new Int32Array(0) },
};

/** Searches and suggests on one object's live index. */
export class Answering {
  constructor(private readonly live: LiveIndex) {}

  /** One page of results, or, when the app has several shards, only their number (the caller asks every shard). */
  search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Outcome<SearchResult | Resharded> {
    const { shards } = this.live.layout();
    // This shard's answer alone would be a part: the caller learns the layout and asks every shard.
    if (shards > 1) return ok({ shards });
    return this.#search(request, semantic);
  }

  #search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Outcome<SearchResult> {
    const started = Date.now();
    return this.#run(request, semantic, undefined, (found, documents, semanticAnswer) => ({
      total: found.total,
      time: Date.now() - started,
      documents,
      facets: found.facets,
      facetStats: found.facetStats,
      paging: { page: request.page, rows: request.rows, total: found.total, totalPages: Math.ceil(found.total / request.rows) },
      ...semanticAnswer,
    }));
  }

  /** This shard's part of a sharded search: hits with merge keys, facets and stats to sum (`rules`: `PartRules`). */
  searchPart(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch, rules: PartRules = {}): Outcome<SearchPart> {
    return this.#run(request, semantic, rules, (found, documents, semanticAnswer) => ({
      ...this.live.view(),
      relaxed: found.relaxed ?? false,
      ...(found.typoReport ? { typoReport: found.typoReport } : {}),
      total: found.total,
      documents,
      merge: found.merge ?? { order: [], keys: [] },
      facets: compactFacets(found.facets),
      facetStats: found.facetStats,
      facetStatCounts: found.facetStatCounts,
      navigation: (this.live.loaded?.config.fields ?? []).filter((field) => field.navigation).map((field) => field.code),
      ...semanticAnswer,
    }));
  }

  /** This shard's part of the normalization of a sharded hybrid search (`SearchIndex.hybridNormsPart`). */
  hybridNormsPart(request: SearchRequest, semantic: SemanticSearch, rules?: PartRules): Outcome<HybridNormsAnswer> {
    const index = this.live.loadIndex();
    const hybrid = this.live.hybridQuery(semantic);
    try {
      const part = (hybrid && index?.hybridNormsPart(request, hybrid, rules)) || { keywordBest: 0, nearest: [], relaxed: false };
      return ok({ ...this.live.view(), ...part });
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, status: 400, message: 'Invalid search request', details: error.details };
      throw error;
    }
  }

  /** Runs a search on the live index and shapes its answer; an invalid query is a 400 outcome. */
  #run<T>(
    request: SearchRequest & HighlightRequest,
    semantic: SemanticSearch | undefined,
    part: PartRules | undefined,
    shape: (found: EngineSearchResult, documents: ResultDocument[], semanticAnswer: Pick<SearchResult, 'semantic'>) => T,
  ): Outcome<T> {
    const { live } = this;
    const index = live.loadIndex();
    try {
      const highlighter = index?.highlighter(request);
      // No index yet (never fed): nothing to retrieve, and no schema to check the fields against, as for highlights.
      const retrieved = index ? retrievedFields(index.config.fields, request.attributesToRetrieve) : [];
      const hybrid = live.hybridQuery(semantic);
      const feeding = part && { ...part, feedingKey: (id: string) => live.storage.lastOp(id) };
      const found = index?.search(request, hybrid, feeding) ?? { total: 0, hits: [], facets: [], facetStats: {}, facetStatCounts: {} };
      const payloads = live.storage.documents(found.hits.map((hit) => hit.id));
      const documents = found.hits.map((hit) => {
        const payload = payloads.get(hit.id) ?? {};
        const shown: ResultDocument = { id: hit.id, position: hit.position, document: displayFields(retrieved, payload) };
        // Highlights read the payload: the highlighter asks displayed string fields only, retrieved or not. Assigned,
        // not spread after the other keys (V8 copies a spread into a literal with keys before it through its runtime).
        const marks = highlighter?.apply(payload);
        if (marks?.highlight) shown.highlight = marks.highlight;
        if (marks?.snippet) shown.snippet = marks.snippet;
        return shown;
      });
      return ok(
        shape(found, documents, semantic ? { semantic: hybrid ? { ratio: hybrid.ratio } : { ratio: 0, fallback: NO_VECTORS } } : {}),
      );
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, status: 400, message: 'Invalid search request', details: error.details };
      throw error;
    }
  }

  /** Suggestions for a prefix. */
  suggest(request: SuggestRequest): Outcome<Suggestion[]> {
    return ok(this.live.loadIndex()?.suggest(request) ?? []);
  }

  /** This shard's part of a sharded suggest. */
  suggestPart(request: SuggestRequest): SuggestPart {
    return { ...this.live.view(), suggestions: this.live.loadIndex()?.rankedSuggestions(request) ?? [] };
  }

  /** `search` serialized once, with its index version; a repeat of the same version comes from memory unless `fresh`. */
  searchAnswer(
    request: SearchRequest & HighlightRequest,
    fresh: boolean,
    semantic?: SemanticSearch,
    key = searchKey(request, semantic),
  ): Outcome<LayoutAnswer> {
    return this.#memoized(key, fresh, () => {
      const outcome = this.#search(request, semantic);
      if (!outcome.ok) return outcome;
      return ok({ ...outcome.value, facets: navigationFirst(outcome.value.facets, this.live.loaded?.config.fields ?? []) });
    });
  }

  /** `suggest` serialized once, with its index version; a repeat of the same version comes from memory unless `fresh`. */
  suggestAnswer(request: SuggestRequest, fresh: boolean, key = suggestKey(request)): Outcome<LayoutAnswer> {
    return this.#memoized(key, fresh, () => this.suggest(request));
  }

  /** `searchAnswer` or `suggestAnswer`, as the read names. */
  readAnswer(read: IndexRead, fresh: boolean): Outcome<LayoutAnswer> {
    return read.kind === 'search'
      ? this.searchAnswer(read.request, fresh, read.semantic, read.key)
      : this.suggestAnswer(read.request, fresh, read.key);
  }

  /** Nothing else runs between reading the version and computing the answer: the object handles one event at a time. */
  #memoized<T>(key: string, fresh: boolean, answer: () => Outcome<T>): Outcome<LayoutAnswer> {
    const version = this.live.version();
    const { shards } = this.live.layout();
    if (shards > 1) return ok({ version, json: 'null', shards });
    const known = fresh ? undefined : this.live.answers.get(version, key);
    if (known !== undefined) return ok({ version, json: known, shards });
    const outcome = answer();
    if (!outcome.ok) return outcome;
    const json = JSON.stringify(outcome.value);
    this.live.answers.add(version, key, json);
    return ok({ version, json, shards });
  }

  /** This shard's statistics, summed with the other shards' into what each is handed (`useOtherShards`). */
  statisticsShare(): StatisticsShare {
    return this.live.loadIndex()?.statisticsShare() ?? NO_STATISTICS;
  }

  /**
   * What the other shards hold of this shard's terms and titles: from now on it scores as one index of every
   * document. Kept in storage for cold starts; a new index version (answers remembered for the old one go).
   */
  useOtherShards(others: StatisticsShare): void {
    const { live } = this;
    live.transaction(() => {
      live.storage.writeOtherShards(encodeShare(others));
      // Replicas take the new share with their next change page (`Replication.changes`), not a whole copy.
      live.storage.set('othersSeq', live.storage.nextSeq());
    });
    live.loaded?.useOtherShards(others);
    live.notifyReplicas();
  }
}
