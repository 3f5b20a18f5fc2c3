/**
 * The one typed client of a search app's Durable Objects: every caller (routes, feeding, agent, tests) talks
 * to the app through it, so answers are typed once and failed outcomes become the one error type once.
 *
 * An app's documents live in one or more shard objects (`shards.ts`). With one shard every call goes to the
 * app's one object as it always did. With more, searches and suggestions fan out to every shard in parallel and
 * merge (`engine/merge.ts`), feeding routes each operation to its document's shard, and a full feed stages in
 * every shard and swaps them as one step (`finishFullFeed`, two-phase: `shard-swap.ts`).
 */
import type { Env } from '../env';
import type { VersionedAnswer } from './answers';
import { navigationFirst } from './answers';
import { currentVersion, VERSION_BOUND_MS } from './edge-cache';
import { replicaTarget, type ReadPlacement } from './replica-reads';
import { nearestReplicaRegion, type ReplicaRegion } from './replica-regions';
import type { FullFeedCycle, HashedVector } from './app-storage';
import {
  combineHybridNorms,
  facetLimitsOf,
  mergeFacets,
  mergeFacetStats,
  mergeHits,
  mergeSuggestions,
  openedCategoriesOf,
  partsToAskStrictly,
  shardFacetLimit,
} from './engine';
import type { HighlightRequest } from './engine/highlight';
import type { DocumentPayload, SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type { HybridNormsAnswer, IndexRead, PartRead, SearchPart, SuggestPart } from './app-object/answering';
import type { FeedOperation, OperationResult } from './app-object/feeding';
import type { FullFeedStatus } from './app-object/full-feed';
import type { AppIndexConfig, SemanticSearch, ShardView } from './app-object/live-index';
import type { MissingVectors } from './app-object/reindex';
import type { IndexStats, SearchAppObject } from './search-app-object';
import { unwrap, type Outcome } from './outcome';
import { afterLastCommit, commitSwap, exchangeStatistics, prepareSwap, reshardApp, type SwappingShards } from './shard-swap';
import { MAX_SHARDS, shardName, shardNumbers, shardOf, SINGLE_SHARD, type ShardLayout } from './shards';

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

/** How a full feed's swap ended. */
export type SwapOutcome = 'swapped' | 'refused' | 'not-ending';

/** A shard proposes this many times the suggestions asked, so values strong across shards are not cut early. */
const SUGGEST_OVERSAMPLING = 4;

/** The shard count each isolate last learnt per app (`<tenant>/<code>`): searches ask that many shards first. */
const knownShards = new Map<string, number>();
/** Each shard's version per sharded app, as this isolate learnt it from the shards' primaries, trusted until `until`. */
const knownShardVersions = new Map<string, { versions: number[]; until: number }>();

/** Typed calls to one search app's Durable Objects (shard 0 named `<tenant>/<code>`). */
export class SearchAppClient {
  /** Shard 0's object name, which its replicas' names extend. */
  readonly name: string;
  readonly #env: Env;
  readonly #tenantCode: string;
  readonly #code: string;
  #stub?: ShardStub;

  constructor(env: Env, tenantCode: string, code: string) {
    this.#env = env;
    this.#tenantCode = tenantCode;
    this.#code = code;
    this.name = shardName(tenantCode, code, 0);
  }

  /** Shard 0's raw stub (also for tests that evict the object or run its alarm), made on first use: a search answered from memory needs none. */
  get stub(): ShardStub {
    return (this.#stub ??= this.shard(0));
  }

  /**
   * A search or suggest answered by the nearest replica when it has the index version this isolate knows (learned
   * from this primary at most `VERSION_BOUND_MS` ago, or now when `fresh`), else by the primary. An app of several
   * shards reads each shard from that shard's nearest replica under the same bound, per shard, else from its primary.
   */
  async nearestAnswer(read: IndexRead, placement: ReadPlacement, fresh = false): Promise<RoutedAnswer> {
    const region = nearestReplicaRegion(placement.continent, placement.regions);
    if ((knownShards.get(this.#app) ?? 1) === 1 && region) {
      const target = replicaTarget(this.#env, this.name, region);
      const minVersion = await currentVersion(this, fresh);
      const outcome = await target.stub.replicaAnswer({ primary: this.name, name: target.name }, read, minVersion, fresh);
      const answer = outcome && unwrap(outcome);
      if (answer?.shards === 1) return { version: answer.version, json: answer.json, servedBy: region };
      if (answer) knownShards.set(this.#app, answer.shards);
    }
    const reads = await this.#shardReads(placement, fresh);
    const answer =
      read.kind === 'search'
        ? await this.searchAnswer(read.request, fresh, read.semantic, reads)
        : await this.suggestAnswer(read.request, fresh, reads);
    return { ...answer, servedBy: reads?.servedBy.join(',') ?? 'primary' };
  }

  /** For an app known to have several shards and a replica region near the request: the shard versions its replicas must have. */
  async #shardReads(placement: ReadPlacement, fresh: boolean): Promise<ShardReads | undefined> {
    const shards = knownShards.get(this.#app) ?? 1;
    const region = nearestReplicaRegion(placement.continent, placement.regions);
    if (shards === 1 || !region) return undefined;
    const known = knownShardVersions.get(this.#app);
    if (fresh || !known || known.until <= Date.now() || known.versions.length !== shards) await this.indexVersion();
    const versions = knownShardVersions.get(this.#app)?.versions ?? [];
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
    return fromPrimary(this.shard(shard));
  }

  /** Keeps the replicas of these regions in every shard, deletes the others. */
  async retainReplicas(regions: readonly ReplicaRegion[]): Promise<void> {
    const { layout, cycle } = await this.layout();
    const shards = shardNumbers(Math.max(layout.shards, cycle?.shards ?? 1));
    await Promise.all(shards.map((shard) => this.shard(shard).retainReplicas([...regions])));
  }

  /** The stub of one shard's object (the coordinator is shard 0). */
  shard(shard: number): ShardStub {
    const name = shardName(this.#tenantCode, this.#code, shard);
    return this.#env.SEARCH_APP.get(this.#env.SEARCH_APP.idFromName(name));
  }

  get #app(): string {
    return `${this.#tenantCode}/${this.#code}`;
  }

  /** The live layout and active cycle, from the coordinator. */
  async layout(): Promise<{ layout: ShardLayout; cycle: FullFeedCycle | null }> {
    const answer = await this.stub.layout();
    knownShards.set(this.#app, answer.layout.shards);
    return answer;
  }

  /** Every shard of the live layout. */
  async #liveShards(): Promise<number[]> {
    return shardNumbers((await this.layout()).layout.shards);
  }

  // ---------------------------------------------------------------- search

  /** One page of results; an invalid query (unknown facet or sort, a value not fitting its facet) is ApiError 400. */
  async search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Promise<SearchResult> {
    if ((knownShards.get(this.#app) ?? 1) > 1) return (await this.#searchShards(request, semantic)).result;
    // RPC typing cannot express `document: Record<string, unknown>`; the object declares Outcome<SearchResult | Resharded>.
    const answer = unwrap((await this.stub.search(request, semantic)) as Outcome<SearchResult | { shards: number }>);
    if (!('shards' in answer)) return answer;
    knownShards.set(this.#app, answer.shards);
    return (await this.#searchShards(request, semantic)).result;
  }

  async suggest(request: SuggestRequest): Promise<Suggestion[]> {
    return JSON.parse((await this.suggestAnswer(request)).json) as Suggestion[];
  }

  /**
   * `search` as JSON with the index version it answers for; `fresh` skips the object's memory of repeated queries.
   * `reads`: the shards' parts may come from their replicas.
   */
  async searchAnswer(
    request: SearchRequest & HighlightRequest,
    fresh = false,
    semantic?: SemanticSearch,
    reads?: ShardReads,
  ): Promise<VersionedAnswer> {
    if ((knownShards.get(this.#app) ?? 1) === 1) {
      const answer = unwrap(await this.stub.searchAnswer(request, fresh, semantic));
      if (answer.shards === 1) return { version: answer.version, json: answer.json };
      knownShards.set(this.#app, answer.shards);
    }
    // As shard 0 answers alone: the facets of navigation fields first.
    const { result, version, navigation } = await this.#searchShards(request, semantic, reads);
    const fields = navigation.map((code) => ({ code, navigation: true }));
    return { version, json: JSON.stringify({ ...result, facets: navigationFirst(result.facets, fields) }) };
  }

  /** `suggest` as JSON with the index version it answers for; `fresh` and `reads` as for `searchAnswer`. */
  async suggestAnswer(request: SuggestRequest, fresh = false, reads?: ShardReads): Promise<VersionedAnswer> {
    if ((knownShards.get(this.#app) ?? 1) === 1) {
      const answer = unwrap(await this.stub.suggestAnswer(request, fresh));
      if (answer.shards === 1) return { version: answer.version, json: answer.json };
      knownShards.set(this.#app, answer.shards);
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
    if ((knownShards.get(this.#app) ?? 1) === 1) {
      const view = await this.stub.shardView();
      if (view.layout.shards === 1) return view.version;
      knownShards.set(this.#app, view.layout.shards);
    }
    const views = await this.#fanOut((shard) => this.shard(shard).shardView());
    knownShardVersions.set(this.#app, { versions: views.map((view) => view.version), until: Date.now() + VERSION_BOUND_MS });
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
    // A hybrid search first learns the whole index's normalization (and which shards must not relax the query).
    const { hybrid, strict } = semantic?.ratio
      ? await this.#hybridNorms(partRequest, semantic, reads)
      : { hybrid: semantic, strict: new Set<number>() };
    // RPC typing cannot express `document: Record<string, unknown>`; the object declares Outcome<SearchPart>.
    const ask = async (shard: number, generation?: number, strict?: boolean) => {
      const read: PartRead = { kind: 'search', request: partRequest, semantic: hybrid, strict };
      const fromPrimary = async (stub: ShardStub) =>
        (await stub.searchPart(partRequest, hybrid, generation, strict)) as Outcome<SearchPart>;
      return unwrap(await this.#part(shard, generation, read, fromPrimary, reads));
    };
    const parts = await this.#fanOut((shard, generation) => ask(shard, generation, strict.has(shard)));
    // Rarely (a query matching in some shards only, as typed), the shards that relaxed it answer again without.
    await Promise.all(partsToAskStrictly(parts).map(async (shard) => (parts[shard] = await ask(shard, undefined, true))));
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
   * `strict`: the shards that relaxed the query while others matched it (their search parts must not relax it).
   */
  async #hybridNorms(
    request: SearchRequest,
    semantic: SemanticSearch,
    reads?: ShardReads,
  ): Promise<{ hybrid: SemanticSearch; strict: Set<number> }> {
    const parts = await this.#fanOut(async (shard, generation) => {
      const read: PartRead = { kind: 'hybridNorms', request, semantic };
      const fromPrimary = (stub: ShardStub) => stub.hybridNormsPart(request, semantic, generation);
      return unwrap(await this.#part<Outcome<HybridNormsAnswer>>(shard, generation, read, fromPrimary, reads));
    });
    const strict = new Set(partsToAskStrictly(parts));
    return { hybrid: { ...semantic, norms: combineHybridNorms(parts, strict) }, strict };
  }

  /**
   * Asks every shard of the layout this isolate knows, in parallel. A shard answering for another layout means the
   * app was re-sharded: ask again with the new one. Shards answering from different generations mean a swap is
   * under way that every shard prepared: the ones behind are asked again for the newest, which they make live first.
   */
  async #fanOut<T extends ShardView>(ask: (shard: number, generation?: number) => Promise<T>): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      const shards = knownShards.get(this.#app) ?? 1;
      const parts = await Promise.all(shardNumbers(shards).map((shard) => ask(shard)));
      const layout =
        parts.find((part) => part.layout.generation === Math.max(...parts.map((p) => p.layout.generation)))?.layout ?? SINGLE_SHARD;
      if (layout.shards !== shards && attempt < 2) {
        knownShards.set(this.#app, layout.shards);
        continue;
      }
      return Promise.all(parts.map((part, shard) => (part.layout.generation < layout.generation ? ask(shard, layout.generation) : part)));
    }
  }

  // ---------------------------------------------------------------- documents

  /** The live document, or null. */
  async document(id: string): Promise<DocumentPayload | null> {
    const { layout } = await this.layout();
    return (await this.shard(shardOf(id, layout.shards)).document(id)) as DocumentPayload | null;
  }

  /** Whether a delete of this document has something to delete (live, or staged by the active cycle). */
  async hasDocument(id: string): Promise<boolean> {
    const { layout, cycle } = await this.layout();
    const holders = new Set([shardOf(id, layout.shards), shardOf(id, cycle?.shards ?? 1)]);
    const answers = await Promise.all([...holders].map((shard) => this.shard(shard).hasDocument(id)));
    return answers.some(Boolean);
  }

  /**
   * Applies operations, each on its document's shard (operations of a full-feed cycle on the cycle's shards);
   * `vectors` are the ones embedded for them that the objects do not have yet.
   */
  async apply(operations: FeedOperation[], config: AppIndexConfig, vectors: HashedVector[] = []): Promise<OperationResult[]> {
    const { layout, cycle } = await this.layout();
    if (layout.shards === 1 && (cycle?.shards ?? 1) === 1) return this.stub.apply(operations, config, vectors);
    const byShard = new Map<number, FeedOperation[]>();
    for (const op of operations) {
      const shard = shardOf(op.documentId, op.cycleId ? (cycle?.shards ?? 1) : layout.shards);
      const ops = byShard.get(shard);
      if (ops) ops.push(op);
      else byShard.set(shard, [op]);
    }
    const applied = await Promise.all(
      [...byShard].map(([shard, ops]) => {
        const referenced = new Set(ops.map((op) => op.vector));
        return this.shard(shard).applyToShard(
          ops,
          config,
          vectors.filter((vector) => referenced.has(vector.hash)),
          layout.generation,
        );
      }),
    );
    if (applied.some((part) => part.statisticsDue)) await this.shareStatistics();
    return applied.flatMap((part) => part.results);
  }

  /**
   * Hands every shard of the live layout what the other shards hold of its terms and titles (BM25 document
   * frequencies, documents, field lengths, name families: `engine/corpus.ts`), so each scores as one index of every
   * document without asking the others per query. Run at a swap, a re-index, and when a feeding batch left a shard
   * changed enough since its last share.
   */
  async shareStatistics(): Promise<void> {
    const { layout } = await this.layout();
    await exchangeStatistics(
      shardNumbers(layout.shards).map((shard) => this.shard(shard)),
      layout.generation,
    );
  }

  /**
   * Does what follows a cross-shard swap's last commit when whoever committed stopped before (a job that died after
   * shard 0 committed, a search that committed the shards behind): the shards the new layout drops go and the shards
   * exchange statistics (`afterLastCommit`). Shard 0 records the swap at its commit and arms a recovery check, which
   * calls this.
   */
  async settleSwap(): Promise<void> {
    const unsettled = await this.stub.unsettledSwap();
    if (unsettled) await afterLastCommit((shard) => this.shard(shard), unsettled.from, unsettled.layout);
  }

  /** Rebuilds every shard's indexes with `config`; 409 while a semantic text of a document has no stored vector. */
  async reindex(config: AppIndexConfig): Promise<{ documents: number }> {
    const shards = await this.#liveShards();
    const results = await Promise.all(shards.map(async (shard) => unwrap(await this.shard(shard).reindex(config))));
    await this.shareStatistics();
    return { documents: results.reduce((sum, result) => sum + result.documents, 0) };
  }

  /**
   * Semantic texts a re-index with `config` would lack vectors for, a page of documents at a time, shard after
   * shard; the cursor is `<shard>/<document id>`.
   */
  async missingVectors(config: AppIndexConfig, after: string, limit: number): Promise<MissingVectors> {
    const shards = (await this.layout()).layout.shards;
    const slash = after.indexOf('/');
    const shard = slash < 0 ? 0 : Number(after.slice(0, slash));
    const page = await this.shard(shard).missingVectors(config, slash < 0 ? after : after.slice(slash + 1), limit);
    const next = page.next !== null ? `${shard}/${page.next}` : shard + 1 < shards ? `${shard + 1}/` : null;
    return { texts: page.texts, next };
  }

  /** Which of these content hashes have a stored vector in every shard (a document may go to any of them). */
  async knownVectors(hashes: string[]): Promise<Set<string>> {
    const shards = await this.#liveShards();
    const known = await Promise.all(shards.map((shard) => this.shard(shard).knownVectors(hashes)));
    return new Set(hashes.filter((hash) => known.every((list) => list.includes(hash))));
  }

  /** Stores vectors ahead of a re-index, in every shard (each keeps the ones its documents use at its next snapshot). */
  async storeVectors(space: string, vectors: HashedVector[]): Promise<void> {
    const shards = await this.#liveShards();
    await Promise.all(shards.map((shard) => this.shard(shard).storeVectors(space, vectors)));
  }

  /**
   * Deletes the app's documents, index and snapshots in every shard object it may have written: all `MAX_SHARDS`
   * names, not the ones shard 0 names, which are gone once it was wiped, while a job racing the deletion may still
   * write into shards after their wipe (join a re-shard, stage, vote), so a later call must reach them too.
   */
  async destroy(): Promise<void> {
    await Promise.all(shardNumbers(MAX_SHARDS).map((shard) => this.shard(shard).destroy()));
    knownShards.delete(this.#app);
  }

  /** Live size and versions, summed over the shards. */
  async stats(): Promise<IndexStats> {
    const shards = await this.#liveShards();
    const all = await Promise.all(shards.map((shard) => this.shard(shard).stats()));
    return {
      documents: sum(all.map((s) => s.documents)),
      indexed: sum(all.map((s) => s.indexed)),
      seq: sum(all.map((s) => s.seq)),
      snapshotSeq: sum(all.map((s) => s.snapshotSeq)),
    };
  }

  // ---------------------------------------------------------------- full feed

  /** Starts a full-feed cycle staging into `shards` shards (the app's setting); 409 while one is in progress. */
  async startFullFeed(shards = 1): Promise<FullFeedCycle> {
    const cycle = unwrap(await this.stub.startFullFeed(shards));
    await Promise.all(
      shardNumbers(shards)
        .slice(1)
        .map((shard) => this.shard(shard).joinCycle(cycle)),
    );
    return cycle;
  }

  /** Marks the active cycle as ending; 404 without one. */
  async requestFullFeedEnd(): Promise<FullFeedCycle> {
    return unwrap(await this.stub.requestFullFeedEnd());
  }

  /** Discards the active cycle's staged documents in every shard; 404 without one. */
  async cancelFullFeed(): Promise<FullFeedCycle> {
    const cycle = unwrap(await this.stub.cancelFullFeed());
    await this.#abortOthers(cycle);
    return cycle;
  }

  async activeCycle(): Promise<FullFeedCycle | null> {
    return this.stub.activeCycle();
  }

  /** Before recording operations of app `appId`: arms the app's feeding recovery; answers the active cycle. */
  async noteAccepted(appId: number): Promise<FullFeedCycle | null> {
    return this.stub.noteAccepted(appId);
  }

  /** The recovery check asked at `requestedAt` found nothing open. */
  async recoveryIdle(requestedAt: number): Promise<void> {
    return this.stub.recoveryIdle(requestedAt);
  }

  /** Fails the cycle with a reason shown by the status (every shard's staged documents go); false when it is no longer the active one. */
  async failFullFeed(cycleId: number, reason: string): Promise<boolean> {
    const cycle = await this.stub.activeCycle();
    if (!(await this.stub.failFullFeed(cycleId, reason))) return false;
    if (cycle) await this.#abortOthers(cycle);
    return true;
  }

  /** How an ended cycle ended (`FINISHED`: swapped in, `CANCELED`: cancelled or failed); null while it is active. */
  async cycleOutcome(cycleId: number): Promise<'FINISHED' | 'CANCELED' | null> {
    return this.stub.cycleOutcome(cycleId);
  }

  /**
   * Makes an ending cycle's staged documents the live index; `not-ending` when the cycle is not (or no longer)
   * ending, `refused` when a shard refused and the cycle failed.
   * One shard in the cycle and the layout: the object swaps alone. Otherwise a two-phase commit: every shard of
   * the cycle prepares (a refusal fails the cycle and every shard discards its staged documents, the live index
   * untouched), then every shard commits the new generation, shard 0 last. Searches that meet shards of two
   * generations meanwhile ask the ones behind for the newer, which they make live first, so no answer mixes them.
   * A shard failing to commit throws; the consumer's retry commits again (idempotent).
   */
  async finishFullFeed(cycleId: number, config: AppIndexConfig): Promise<SwapOutcome> {
    const { layout, cycle } = await this.layout();
    if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return 'not-ending';
    const shards = cycle.shards ?? 1;
    if (shards === 1 && layout.shards === 1) return (await this.stub.finishFullFeed(cycleId, config)) ? 'swapped' : 'not-ending';
    const swap = { cycleId, layout: { shards, generation: layout.generation + 1 }, config };
    const refusal = await prepareSwap(this.#swapping, swap, layout);
    if (refusal) {
      await this.failFullFeed(cycleId, `the swap was refused: ${refusal}`);
      return 'refused';
    }
    await commitSwap(this.#swapping, swap, layout);
    return 'swapped';
  }

  // ---------------------------------------------------------------- re-shard

  /**
   * Moves the documents to `shards` shards (a re-index job, when the app's setting differs from the live layout),
   * atomically like a full feed's swap (`shard-swap.ts`); 409 while a full feed is in progress.
   */
  async reshard(shards: number, config: AppIndexConfig, job: string): Promise<void> {
    const { layout } = await this.layout();
    if (layout.shards !== shards) await reshardApp(this.#swapping, layout, shards, config, job);
  }

  /** This app's shards as a swap reaches them; a committed layout is what searches in this isolate ask first. */
  get #swapping(): SwappingShards {
    return {
      coordinator: this.name,
      shard: (shard) => this.shard(shard),
      shardName: (shard) => shardName(this.#tenantCode, this.#code, shard),
      committed: (layout) => knownShards.set(this.#app, layout.shards),
    };
  }

  /** Full-feed progress; staged and live documents summed over the shards. */
  async fullFeedStatus(): Promise<FullFeedStatus> {
    const status = await this.stub.fullFeedStatus();
    const { layout, cycle } = await this.layout();
    const shards = shardNumbers(Math.max(layout.shards, cycle?.shards ?? 1)).slice(1);
    if (!shards.length) return status;
    const others = await Promise.all(shards.map((shard) => this.shard(shard).fullFeedStatus()));
    return {
      ...status,
      stagedDocuments: status.stagedDocuments + sum(others.map((s) => s.stagedDocuments)),
      liveDocuments: status.liveDocuments + sum(others.slice(0, layout.shards - 1).map((s) => s.liveDocuments)),
    };
  }

  /** Shards other than 0 drop a cycle that will not swap. */
  async #abortOthers(cycle: FullFeedCycle): Promise<void> {
    await Promise.all(
      shardNumbers(cycle.shards ?? 1)
        .slice(1)
        .map((shard) => this.shard(shard).abortSwap(cycle.id)),
    );
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The version of a sharded index: every shard's version only grows, so their sum changes with any change. */
function versionOf(parts: ShardView[]): number {
  return sum(parts.map((part) => part.version));
}
