/**
 * The read side of a search app's objects: searches and suggestions answered by the app's one object, or, with
 * several shards, asked of every shard in parallel and merged (`engine/merge.ts`), each shard's part from its nearest
 * replica while that is fresh enough, else from its primary (`SearchAppClient` answers reads through this).
 */
import type { Env } from '../env';
import type { VersionedAnswer } from './answers';
import { navigationFirst } from './answers';
import { currentVersion, VERSION_BOUND_MS } from './edge-cache';
import { replicaTarget, type ReadPlacement } from './replica-reads';
import { nearestReplicaRegion, type ReplicaRegion } from './replica-regions';
import {
  combineHybridNorms,
  facetLimitsOf,
  mergeFacets,
  mergeFacetStats,
  mergeHits,
  mergeSuggestions,
  openedCategoriesOf,
  settleParts,
  shardFacetLimit,
  type PartRules,
} from './engine';
import type { HighlightRequest } from './engine/highlight';
import type { SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type { HybridNormsAnswer, IndexRead, PartRead, SearchPart, SuggestPart } from './app-object/answering';
import type { SemanticSearch, ShardView } from './app-object/live-index';
import type { SearchAppObject } from './search-app-object';
import { unwrap, type Outcome } from './outcome';
import { shardName, shardNumbers, SINGLE_SHARD } from './shards';

type ShardStub = DurableObjectStub<SearchAppObject>;

/**
 * A serialized answer and which copy of the index computed it: a replica's region or `primary`; for an app of several
 * shards one of these per shard, in shard order, comma-separated (`weur,primary,weur`).
 */
export interface RoutedAnswer extends VersionedAnswer {
  servedBy: string;
}

/** Where the shards' parts of one sharded read come from: the replicas of `region` while fresh enough, else the primaries. */
interface ShardReads {
  region: ReplicaRegion;
  /** Each shard's version as this isolate knows it: a shard's replica answers only at that version or newer. */
  versions: number[];
  /** Who answered each shard's part (`region` or `primary`); a shard that fell back stays on its primary for the read. */
  servedBy: Array<ReplicaRegion | 'primary'>;
}

/** A shard proposes this many times the suggestions asked, so values strong across shards are not cut early. */
const SUGGEST_OVERSAMPLING = 4;

/** The shard count each isolate last learnt per app (`<tenant>/<code>`): searches ask that many shards first. */
export const knownShards = new Map<string, number>();
/** Each shard's version per sharded app, as this isolate learnt it from the shards' primaries, trusted until `until`. */
const knownShardVersions = new Map<string, { versions: number[]; until: number }>();

/** The stubs of an app's objects the reads go through (the client's). */
interface AppObjects {
  /** Shard 0's stub. */
  readonly stub: ShardStub;
  shard(shard: number): ShardStub;
}

/** Reads of one search app (shard 0 named `<tenant>/<code>`). */
export class AppReads {
  /** Shard 0's object name, which its replicas' names extend. */
  readonly name: string;
  readonly #env: Env;
  readonly #tenantCode: string;
  readonly #code: string;
  readonly #objects: AppObjects;

  constructor(env: Env, tenantCode: string, code: string, objects: AppObjects) {
    this.#env = env;
    this.#tenantCode = tenantCode;
    this.#code = code;
    this.#objects = objects;
    this.name = shardName(tenantCode, code, 0);
  }

  /** The app's key in the isolate's memory of shard counts and versions. */
  get #key(): string {
    return `${this.#tenantCode}/${this.#code}`;
  }

  /**
   * A search or suggest answered by the nearest replica when it has the index version this isolate knows (learned
   * from this primary at most `VERSION_BOUND_MS` ago, or now when `fresh`), else by the primary. An app of several
   * shards reads each shard from that shard's nearest replica under the same bound, per shard, else from its primary.
   */
  async nearestAnswer(read: IndexRead, placement: ReadPlacement, fresh = false): Promise<RoutedAnswer> {
    const region = nearestReplicaRegion(placement.continent, placement.regions);
    if ((knownShards.get(this.#key) ?? 1) === 1 && region) {
      const target = replicaTarget(this.#env, this.name, region);
      const minVersion = await currentVersion(this, fresh);
      const outcome = await target.stub.replicaAnswer({ primary: this.name, name: target.name }, read, minVersion, fresh);
      const answer = outcome && unwrap(outcome);
      if (answer?.shards === 1) return { version: answer.version, json: answer.json, servedBy: region };
      if (answer) knownShards.set(this.#key, answer.shards);
    }
    const reads = await this.#shardReads(placement, fresh);
    const answer =
      read.kind === 'search'
        ? await this.searchAnswer(read.request, fresh, read.semantic, reads, read.key)
        : await this.suggestAnswer(read.request, fresh, reads, read.key);
    return { ...answer, servedBy: reads?.servedBy.join(',') ?? 'primary' };
  }

  /** For an app known to have several shards and a replica region near the request: the shard versions its replicas must have. */
  async #shardReads(placement: ReadPlacement, fresh: boolean): Promise<ShardReads | undefined> {
    const shards = knownShards.get(this.#key) ?? 1;
    const region = nearestReplicaRegion(placement.continent, placement.regions);
    if (shards === 1 || !region) return undefined;
    const known = knownShardVersions.get(this.#key);
    if (fresh || !known || known.until <= Date.now() || known.versions.length !== shards) await this.indexVersion();
    const versions = knownShardVersions.get(this.#key)?.versions ?? [];
    return { region, versions, servedBy: shardNumbers(shards).map(() => region) };
  }

  /**
   * One shard's part of a read: from the shard's replica in `reads.region` when that has the shard's known version,
   * else from the shard's primary. A part for a swap's `generation` comes from the primary (which makes it live).
   */
  async #part<T>(
    shard: number,
    generation: number | undefined,
    read: PartRead,
    fromPrimary: (stub: ShardStub) => Promise<T>,
    reads?: ShardReads,
  ): Promise<T> {
    const minVersion = reads?.versions[shard];
    if (reads && minVersion !== undefined && generation === undefined && reads.servedBy[shard] === reads.region) {
      const primary = shardName(this.#tenantCode, this.#code, shard);
      const replica = replicaTarget(this.#env, primary, reads.region);
      // RPC typing cannot express `document: Record<string, unknown>`; the object answers the part `read` names.
      const part = (await replica.stub.replicaPart({ primary, name: replica.name }, read, minVersion)) as T | null;
      if (part) return part;
    }
    if (reads) reads.servedBy[shard] = 'primary';
    return fromPrimary(this.#objects.shard(shard));
  }

  /** One page of results; an invalid query (unknown facet or sort, a value not fitting its facet) is ApiError 400. */
  async search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Promise<SearchResult> {
    if ((knownShards.get(this.#key) ?? 1) > 1) return (await this.#searchShards(request, semantic)).result;
    // RPC typing cannot express `document: Record<string, unknown>`; the object declares Outcome<SearchResult | Resharded>.
    const answer = unwrap((await this.#objects.stub.search(request, semantic)) as Outcome<SearchResult | { shards: number }>);
    if (!('shards' in answer)) return answer;
    knownShards.set(this.#key, answer.shards);
    return (await this.#searchShards(request, semantic)).result;
  }

  async suggest(request: SuggestRequest): Promise<Suggestion[]> {
    return JSON.parse((await this.suggestAnswer(request)).json) as Suggestion[];
  }

  /**
   * `search` as JSON with the index version it answers for; `fresh` skips the object's memory of repeated queries.
   * `reads`: the shards' parts may come from their replicas; `key`: the answer's `searchKey`, when made already.
   */
  async searchAnswer(
    request: SearchRequest & HighlightRequest,
    fresh = false,
    semantic?: SemanticSearch,
    reads?: ShardReads,
    key?: string,
  ): Promise<VersionedAnswer> {
    if ((knownShards.get(this.#key) ?? 1) === 1) {
      const answer = unwrap(await this.#objects.stub.searchAnswer(request, fresh, semantic, key));
      if (answer.shards === 1) return { version: answer.version, json: answer.json };
      knownShards.set(this.#key, answer.shards);
    }
    // As shard 0 answers alone: the facets of navigation fields first.
    const { result, version, navigation } = await this.#searchShards(request, semantic, reads);
    const fields = navigation.map((code) => ({ code, navigation: true }));
    return { version, json: JSON.stringify({ ...result, facets: navigationFirst(result.facets, fields) }) };
  }

  /** `suggest` as JSON with the index version it answers for; `fresh`, `reads` and `key` as for `searchAnswer`. */
  async suggestAnswer(request: SuggestRequest, fresh = false, reads?: ShardReads, key?: string): Promise<VersionedAnswer> {
    if ((knownShards.get(this.#key) ?? 1) === 1) {
      const answer = unwrap(await this.#objects.stub.suggestAnswer(request, fresh, key));
      if (answer.shards === 1) return { version: answer.version, json: answer.json };
      knownShards.set(this.#key, answer.shards);
    }
    const partRequest = { ...request, rows: request.rows * SUGGEST_OVERSAMPLING };
    const parts = await this.#fanOut((shard, generation) =>
      this.#part<SuggestPart>(
        shard,
        generation,
        { kind: 'suggest', request: partRequest },
        (stub) => stub.suggestPart(partRequest, generation),
        reads,
      ),
    );
    return {
      version: versionOf(parts),
      json: JSON.stringify(
        mergeSuggestions(
          parts.map((part) => part.suggestions),
          request.rows,
        ),
      ),
    };
  }

  /**
   * The live index's version (changes with every feeding batch, full-feed swap and re-index of any shard), from the
   * primaries; for several shards each shard's version is remembered too, for their replicas' bound.
   */
  async indexVersion(): Promise<number> {
    if ((knownShards.get(this.#key) ?? 1) === 1) {
      const view = await this.#objects.stub.shardView();
      if (view.layout.shards === 1) return view.version;
      knownShards.set(this.#key, view.layout.shards);
    }
    const views = await this.#fanOut((shard) => this.#objects.shard(shard).shardView());
    knownShardVersions.set(this.#key, { versions: views.map((view) => view.version), until: Date.now() + VERSION_BOUND_MS });
    return versionOf(views);
  }

  /**
   * A sharded search: every shard's best `page × rows` and its top `shardFacetLimit` values of each facet, merged
   * into the requested page (`exhaustiveFacetsCount: false` when a shard had more facet values than it returned).
   */
  async #searchShards(
    request: SearchRequest & HighlightRequest,
    semantic?: SemanticSearch,
    reads?: ShardReads,
  ): Promise<{ result: SearchResult; version: number; navigation: string[] }> {
    const started = Date.now();
    const start = (request.page - 1) * request.rows;
    const partRequest = {
      ...request,
      page: 1,
      rows: start + request.rows,
      facetLimit: shardFacetLimit(facetLimitsOf({ facetLimit: request.facetLimit }).max),
      // Kept as ids (each shard checks them).
      facetLimits:
        request.facetLimits && Object.fromEntries(Object.entries(request.facetLimits).map(([id, limit]) => [id, shardFacetLimit(limit)])),
    };
    // A hybrid search first learns the whole index's normalization (and how each shard answers its part).
    const { hybrid, rules } = semantic?.ratio
      ? await this.#hybridNorms(partRequest, semantic, reads)
      : { hybrid: semantic, rules: new Array<PartRules>() };
    // RPC typing cannot express `document: Record<string, unknown>`; the object declares Outcome<SearchPart>.
    const ask = async (shard: number, rules: PartRules, generation?: number) => {
      const read: PartRead = { kind: 'search', request: partRequest, semantic: hybrid, rules };
      const fromPrimary = async (stub: ShardStub) => (await stub.searchPart(partRequest, hybrid, generation, rules)) as Outcome<SearchPart>;
      return unwrap(await this.#part(shard, generation, read, fromPrimary, reads));
    };
    const first = await this.#fanOut((shard, generation) => ask(shard, (rules[shard] ??= {}), generation));
    // Rarely (a query matching in some shards only, as typed; a word with more typo expansions than one index keeps),
    // some shards answer again.
    const parts = await settleParts(first, rules, ask);
    const total = parts.reduce((sum, part) => sum + part.total, 0);
    const documents = mergeHits(
      parts.map((part) => ({ hits: part.documents, merge: part.merge })),
      start,
      request.rows,
    ).map((document, i) => ({ ...document, position: start + i + 1 }));
    const { facets, exhaustive } = mergeFacets(
      parts.map((part) => part.facets),
      facetLimitsOf(request),
      facetLimitsOf(partRequest),
      openedCategoriesOf(request),
    );
    const semanticAnswer = parts.find((part) => part.semantic?.fallback)?.semantic ?? parts[0].semantic;
    const result: SearchResult = {
      total,
      time: Date.now() - started,
      documents,
      facets,
      facetStats: mergeFacetStats(parts).facetStats,
      paging: { page: request.page, rows: request.rows, total, totalPages: Math.ceil(total / request.rows) },
      ...(exhaustive ? {} : { exhaustiveFacetsCount: false }),
      ...(semanticAnswer ? { semantic: semanticAnswer } : {}),
    };
    return { result, version: versionOf(parts), navigation: parts[0].navigation };
  }

  /**
   * The first round of a sharded hybrid search: every shard's best keyword score and nearest similarities, combined
   * into the normalization one index would use (`combineHybridNorms`), so the shards' fused scores merge exactly;
   * `rules`: how each shard answers as a share of one index (`settleParts`: whether it must not relax the query, as
   * others matched it, and its words' typo cutoffs), for its search part too.
   */
  async #hybridNorms(
    request: SearchRequest,
    semantic: SemanticSearch,
    reads?: ShardReads,
  ): Promise<{ hybrid: SemanticSearch; rules: PartRules[] }> {
    const ask = async (shard: number, rules: PartRules, generation?: number) => {
      const read: PartRead = { kind: 'hybridNorms', request, semantic, rules };
      const fromPrimary = (stub: ShardStub) => stub.hybridNormsPart(request, semantic, generation, rules);
      return unwrap(await this.#part<Outcome<HybridNormsAnswer>>(shard, generation, read, fromPrimary, reads));
    };
    const rules: PartRules[] = [];
    const first = await this.#fanOut((shard, generation) => ask(shard, (rules[shard] ??= {}), generation));
    // A shard that relaxed the query while others matched it is only marked strict: its keyword score is left out.
    const parts = await settleParts(first, rules, ask, false);
    const strict = new Set(parts.flatMap((_, shard) => (rules[shard].strict ? [shard] : [])));
    return { hybrid: { ...semantic, norms: combineHybridNorms(parts, strict) }, rules };
  }

  /**
   * Asks every shard of the layout this isolate knows, in parallel. A shard answering for another layout means the
   * app was re-sharded: ask again with the new one. Shards answering from different generations mean a swap is
   * under way that every shard prepared: the ones behind are asked again for the newest, which they make live first.
   */
  async #fanOut<T extends ShardView>(ask: (shard: number, generation?: number) => Promise<T>): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      const shards = knownShards.get(this.#key) ?? 1;
      const parts = await Promise.all(shardNumbers(shards).map((shard) => ask(shard)));
      const layout =
        parts.find((part) => part.layout.generation === Math.max(...parts.map((p) => p.layout.generation)))?.layout ?? SINGLE_SHARD;
      if (layout.shards !== shards && attempt < 2) {
        knownShards.set(this.#key, layout.shards);
        continue;
      }
      return Promise.all(parts.map((part, shard) => (part.layout.generation < layout.generation ? ask(shard, layout.generation) : part)));
    }
  }
}

/** The version of a sharded index: every shard's version only grows, so their sum changes with any change. */
function versionOf(parts: ShardView[]): number {
  return parts.reduce((total, part) => total + part.version, 0);
}
