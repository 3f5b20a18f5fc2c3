import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import type {
  DocumentRow,
  FullFeedCycle,
  HashedVector,
  Leaving,
  PreparedSwap,
  RefusedOp,
  Reshard,
  ReshardFate,
  UnsettledEnd,
  UnsettledSwap,
} from './app-storage';
import type { ChangePage } from './change-log';
import type { PartRules, StatisticsShare } from './engine';
import type { HighlightRequest } from './engine/highlight';
import type { DocumentPayload, SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type { ReplicaIdentity, ReplicaSource } from './replica-follower';
import type { Outcome } from './outcome';
import type { ShardLayout } from './shards';
import {
  Answering,
  type HybridNormsAnswer,
  type IndexRead,
  type LayoutAnswer,
  type PartRead,
  type Resharded,
  type SearchPart,
  type SuggestPart,
} from './app-object/answering';
import {
  Feeding,
  FeedingRecovery,
  type FeedOperation,
  type HeldQuery,
  type ApplyRetry,
  type OperationResult,
  type ShardApplied,
} from './app-object/feeding';
import { FullFeeds, type Acceptance, type AppLayout, type CoordinatorCycles, type FullFeedStatus } from './app-object/full-feed';
import { LiveIndex, type AppIndexConfig, type SemanticSearch, type ShardView } from './app-object/live-index';
import { Reindexing, type MissingVectors, type MovingRows } from './app-object/reindex';
import { Replication } from './app-object/replication';

/** A shard's statistics share, and the generation of the layout it was taken in. */
export interface SharedStatistics {
  generation: number;
  share: StatisticsShare;
}

/** Index facts for tests and operations: live size, and the sequence numbers of the last batch and of the snapshot. */
export interface IndexStats {
  documents: number;
  indexed: number;
  seq: number;
  snapshotSeq: number;
}

/**
 * One instance per search app (named `<tenant>/<code>`), per shard of a sharded app (`<tenant>/<code>#<i>`) and per
 * replica (`<name>@<region>`): holds the index in memory, keeps the documents and index snapshots in its SQLite
 * storage, and serializes feeding and full-feed cycles. The index is loaded lazily: snapshot plus the changes made
 * after it, or a rebuild from the documents. This class is the RPC surface; the work is done by its parts in
 * `app-object/`: feeding, full feeds and swaps, re-index and re-shard, replication, answering.
 */
export class SearchAppObject extends DurableObject<Env> {
  readonly #live: LiveIndex;
  readonly #recovery: FeedingRecovery;
  readonly #feeding: Feeding;
  readonly #fullFeeds: FullFeeds;
  readonly #reindexing: Reindexing;
  readonly #replication: Replication;
  readonly #answering: Answering;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#live = new LiveIndex(ctx, env);
    this.#recovery = new FeedingRecovery(this.#live);
    this.#feeding = new Feeding(this.#live, this.#recovery);
    this.#fullFeeds = new FullFeeds(this.#live, this.#recovery, env);
    this.#reindexing = new Reindexing(this.#live, this.#fullFeeds);
    this.#replication = new Replication(this.#live);
    this.#answering = new Answering(this.#live);
  }

  // ---------------------------------------------------------------- feeding

  /**
   * Applies operations in id order (`Feeding.apply`) on an app of one shard, routed by the layout of `generation`
   * (`Feeding.applyToShard`: a move that committed since the caller read it fails the batch, to be retried and routed
   * again); `vectors` are the ones the consumer embedded for them.
   */
  async apply(
    operations: FeedOperation[],
    config: AppIndexConfig,
    vectors: HashedVector[] = [],
    generation?: number,
  ): Promise<OperationResult[] | ApplyRetry> {
    const applied = await this.#feeding.applyToShard(operations, config, vectors, generation, this.#fullFeeds.lastSwapped());
    return 'retry' in applied ? applied : applied.results;
  }

  /**
   * `apply` on one shard of several, routed by the layout of `generation` when shard 0 had swapped in cycle `lastSwapped`;
   * `statisticsDue`: time to share statistics.
   */
  async applyToShard(
    operations: FeedOperation[],
    config: AppIndexConfig,
    vectors: HashedVector[] = [],
    generation?: number,
    lastSwapped = 0,
  ): Promise<ShardApplied | ApplyRetry> {
    return this.#feeding.applyToShard(operations, config, vectors, generation, Math.max(lastSwapped, this.#fullFeeds.lastSwapped()));
  }

  /** What this shard holds of operations being given up, refusing those it does not hold from now on (`Feeding.holdOperations`). */
  async holdOperations(queries: HeldQuery[], generation: number): Promise<number[] | null> {
    return this.#feeding.holdOperations(queries, generation);
  }

  /** Takes back refusals of operations a give-up left open (`Feeding.releaseOperations`). */
  async releaseOperations(opIds: number[]): Promise<void> {
    this.#feeding.releaseOperations(opIds);
  }

  /**
   * Called before operations of the app are recorded: arms the recovery checks (so no accepted entry is
   * left without them) and answers the active cycle (the operations belong to it while it is ACTIVE) and the last
   * cycle id given.
   */
  async noteAccepted(appId: number): Promise<Acceptance> {
    if (this.#live.storage.get('appId') !== appId) this.#live.storage.set('appId', appId);
    await this.#recovery.arm();
    return { cycle: this.#live.storage.get('cycle') ?? null, lastCycle: this.#fullFeeds.cycles().last };
  }

  /**
   * The Cron Trigger's backstop for an app whose entries D1 shows staged for minutes in `stagedCycles`: arms the recovery
   * checks when the active cycle is ending or one of those cycles ended (the check swaps the one, settles the other's
   * entries), so a lost alarm strands neither; a cycle still being fed needs no check. Answers whether it armed.
   */
  async rearmForStaged(appId: number, stagedCycles: number[]): Promise<boolean> {
    const cycle = this.#live.storage.get('cycle');
    if (cycle?.state !== 'ENDING' && stagedCycles.every((id) => id === cycle?.id)) return false;
    await this.noteAccepted(appId);
    return true;
  }

  /** The recovery check of `requestedAt` found nothing to do: checks stop unless recovery was armed since. */
  async recoveryIdle(requestedAt: number): Promise<void> {
    this.#recovery.idle(requestedAt);
  }

  /** The live document, or null. */
  async document(id: string): Promise<DocumentPayload | null> {
    return this.#live.storage.document(id) ?? null;
  }

  /** Whether a delete of this document has something to delete (live, or staged by the active cycle). */
  async hasDocument(id: string): Promise<boolean> {
    const storage = this.#live.storage;
    const cycle = storage.get('cycle');
    return storage.document(id) !== undefined || (cycle !== undefined && storage.hasStaged(cycle.id, id));
  }

  // ---------------------------------------------------------------- re-index and re-shard

  /** Rebuilds the index from the stored documents with a new configuration (Schedule feeding job). */
  async reindex(config: AppIndexConfig): Promise<Outcome<{ documents: number }>> {
    return this.#reindexing.reindex(config);
  }

  /** Up to `limit` semantic texts of live documents (in id order after `after`) whose vector is not stored. */
  async missingVectors(config: AppIndexConfig, after: string, limit: number): Promise<MissingVectors> {
    return this.#reindexing.missingVectors(config, after, limit);
  }

  /** Which of these content hashes have a stored vector (the consumer embeds only the others). */
  async knownVectors(hashes: string[]): Promise<string[]> {
    return [...this.#live.storage.knownVectors(hashes)];
  }

  /** Stores vectors of the embedder `space` ahead of a re-index. */
  async storeVectors(space: string, vectors: HashedVector[]): Promise<void> {
    this.#live.storage.putVectors(space, vectors);
  }

  /**
   * Joins a re-shard: its rows are staged here under `reshard.id`. 409 while a full feed or another job's move runs; a
   * cycle that `coordinator` (shard 0's cycles, read once the move began there) shows ended is dropped instead.
   */
  async beginReshard(reshard: Reshard, coordinator?: CoordinatorCycles): Promise<Outcome<null>> {
    return this.#reindexing.beginReshard(reshard, coordinator);
  }

  /** A page of this shard's document rows changed after sequence `since` (-1: all), in id order after `after`. */
  async movingRows(since: number, after: string, limit: number): Promise<MovingRows> {
    return this.#reindexing.movingRows(since, after, limit);
  }

  /** Stages rows moved from other shards under the re-shard's `id`, with their vectors (and the source's refusals and horizon); 409 when this shard is not in it. */
  async stageMoved(
    id: number,
    rows: DocumentRow[],
    vectors: MovingRows['vectors'],
    refusals: RefusedOp[] = [],
    droppedUpTo = 0,
  ): Promise<Outcome<null>> {
    return this.#reindexing.stageMoved(id, rows, vectors, refusals, droppedUpTo);
  }

  /** As shard 0: what became of the re-shard `id` to `layout` (asked by shards that voted for it, once it lapsed), settling one that lapsed here. */
  async reshardFate(id: number, layout: ShardLayout): Promise<ReshardFate> {
    return this.#reindexing.reshardFate(id, layout);
  }

  /** Live feeding here fails, to be retried, for `ms` (0: from now on it applies again). */
  async seal(ms: number, leaving?: Leaving): Promise<void> {
    await this.#reindexing.seal(ms, leaving);
  }

  // ---------------------------------------------------------------- full feed

  /** Starts a cycle staging into `shards` shards (the others join it through `joinCycle`). */
  async startFullFeed(shards = 1): Promise<Outcome<FullFeedCycle>> {
    return this.#fullFeeds.start(shards);
  }

  /** The active cycle, if any. */
  async activeCycle(): Promise<FullFeedCycle | null> {
    return this.#live.storage.get('cycle') ?? null;
  }

  /** Marks the cycle as ending; the swap happens in `finishFullFeed` once its operations are processed. */
  async requestFullFeedEnd(): Promise<Outcome<FullFeedCycle>> {
    return this.#fullFeeds.requestEnd();
  }

  /** Swaps the staged dataset in as the live one, atomically; a no-op when the cycle is already done. */
  async finishFullFeed(cycleId: number, config: AppIndexConfig): Promise<boolean> {
    return this.#fullFeeds.finish(cycleId, config);
  }

  /** Ends a cycle that cannot finish (its operations were lost): staged documents are discarded, the reason kept. */
  async failFullFeed(cycleId: number, reason: string): Promise<boolean> {
    return this.#fullFeeds.fail(cycleId, reason);
  }

  /** Cancels the active cycle: its staged documents go, the live index stays. */
  async cancelFullFeed(): Promise<Outcome<FullFeedCycle>> {
    return this.#fullFeeds.cancel();
  }

  /**
   * How a cycle ended, for entries D1 still shows in it: `null` while it is the active one, `FINISHED` when it was
   * swapped in, else `CANCELED`. Callers settle D1 after the object ended a cycle and may die in between, so each
   * end arms a recovery check, which settles what was left.
   */
  async cycleOutcome(cycleId: number): Promise<'FINISHED' | 'CANCELED' | null> {
    return this.#fullFeeds.outcome(cycleId);
  }

  /** The cycle's progress. */
  async fullFeedStatus(): Promise<FullFeedStatus> {
    return this.#fullFeeds.status();
  }

  // ---------------------------------------------------------------- shards

  /** The live layout of the app's shards, the active cycle and the last cycle swapped in (coordinator: shard 0). */
  async layout(): Promise<AppLayout> {
    return { layout: this.#live.layout(), cycle: this.#live.storage.get('cycle') ?? null, lastSwapped: this.#fullFeeds.lastSwapped() };
  }

  /** A shard other than 0 joins the coordinator's cycle: the cycle's operations routed here are staged. */
  async joinCycle(cycle: FullFeedCycle): Promise<void> {
    this.#fullFeeds.join(cycle);
  }

  /** As shard 0: the active cycle's id and the last cycle id given (`CoordinatorCycles`), read before dropping shards. */
  async cycles(): Promise<CoordinatorCycles> {
    return this.#fullFeeds.cycles();
  }

  /** Phase 1 of a cross-shard swap: this shard promises to make the staged documents live as `swap.layout`. */
  async prepareSwap(swap: PreparedSwap, shardName: string): Promise<Outcome<null>> {
    return this.#fullFeeds.prepareSwap(swap, shardName);
  }

  /** As shard 0: its vote for a cross-shard swap (marked decided once every shard voted), or null. */
  async vote(): Promise<PreparedSwap | null> {
    return this.#fullFeeds.vote();
  }

  /** Whether this shard holds a vote for the move `id` cast in its attempt begun at `attempt` (the coordinator asks). */
  async votedFor(id: number, attempt: number): Promise<boolean> {
    return this.#fullFeeds.votedFor(id, attempt);
  }

  /** As shard 0, once every shard voted: the swap to `generation` is decided, no longer cancelled; false when it was before. */
  async decideSwap(generation: number): Promise<boolean> {
    return this.#fullFeeds.decideSwap(generation);
  }

  /** Phase 2: the prepared cycle's documents go live as the new generation; true when that generation is live. */
  async commitSwap(generation: number): Promise<boolean> {
    return this.#fullFeeds.commitSwap(generation);
  }

  /** A swap that did not happen: the staged documents go; false, and nothing goes, when shard 0 decided it. */
  async abortSwap(cycleId: number): Promise<boolean> {
    return this.#fullFeeds.abortSwap(cycleId);
  }

  /** As shard 0: the last cross-shard swap it committed, while what follows its commit is not done; else null. */
  async unsettledSwap(): Promise<UnsettledSwap | null> {
    return this.#fullFeeds.unsettledSwap();
  }

  /** As shard 0: what follows the commit of the swap to `generation` is done. */
  async swapSettled(generation: number): Promise<void> {
    this.#fullFeeds.swapSettled(generation);
  }

  /** As shard 0: the last cycle over several shards it ended without a swap, while the other shards may hold it; else null. */
  async unsettledEnd(): Promise<UnsettledEnd | null> {
    return this.#fullFeeds.unsettledEnd();
  }

  /** As shard 0: the other shards dropped what they held of the cycles ended up to `cycleId`. */
  async endSettled(cycleId: number): Promise<void> {
    this.#fullFeeds.endSettled(cycleId);
  }

  /**
   * A cycle (or a vote for one) this shard holds that `coordinator`, shard 0's cycles, shows ended goes with its staging:
   * its end never reached this shard. An object then holding nothing (a shard never in a live layout) deletes its storage.
   */
  async dropEndedCycles(coordinator: CoordinatorCycles): Promise<void> {
    this.#fullFeeds.dropEnded(coordinator);
    if (this.#live.storage.holdsNothing()) await this.#deleteStorage();
  }

  /**
   * This shard is not in the layout of `generation`, which shard 0 made live: its storage goes, with its replicas',
   * unless it was taken up again since (`FullFeeds.droppable`; a cycle it holds that `coordinator`, shard 0's cycles
   * read before, shows ended does not count). Answers whether it went.
   */
  async dropFromLayout(generation: number, coordinator: CoordinatorCycles): Promise<boolean> {
    if (!this.#fullFeeds.droppable(generation, coordinator)) return false;
    await this.#replication.destroyReplicas();
    // Asked again across the await: a full feed or a move may have joined this shard meanwhile.
    if (!this.#fullFeeds.droppable(generation, coordinator)) return false;
    await this.#deleteStorage();
    return true;
  }

  /**
   * This shard's statistics, summed with the other shards' into what each is handed (`useOtherShards`), and the
   * generation of the layout it belongs to.
   */
  async statisticsShare(): Promise<SharedStatistics> {
    this.#feeding.changesSinceShare = 0;
    return { generation: this.#live.layout().generation, share: this.#answering.statisticsShare() };
  }

  /**
   * What the other shards of the layout of `generation` hold of this shard's terms and titles: from now on it scores as
   * one index of every document. Ignored (false) when this shard is at another generation: a swap came between the
   * shares and now, and its own exchange follows it.
   */
  async useOtherShards(others: StatisticsShare, generation: number): Promise<boolean> {
    if (this.#live.layout().generation !== generation) return false;
    this.#answering.useOtherShards(others);
    return true;
  }

  /** This shard's version and the layout it belongs to. */
  async shardView(): Promise<ShardView> {
    return this.#live.view();
  }

  // ---------------------------------------------------------------- search and suggest

  /**
   * One page of results; with `semantic`, keyword and vector rankings fused. Without vectors of the query's
   * embedder (none fed yet, or the embedder changed and no re-index ran) it answers keyword results, flagged.
   */
  async search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Promise<Outcome<SearchResult | Resharded>> {
    return this.#answering.search(request, semantic);
  }

  /**
   * This shard's part of a sharded search (the caller asks for page 1 of `page × rows` rows and every facet value);
   * `rules`: how to answer as a share of one index (`PartRules`). With `generation`, a swap to it prepared here is
   * made live first (another shard answered from it, so every shard was prepared and the swap decided).
   */
  async searchPart(
    request: SearchRequest & HighlightRequest,
    semantic?: SemanticSearch,
    generation?: number,
    rules?: PartRules,
  ): Promise<Outcome<SearchPart>> {
    if (generation !== undefined) await this.commitSwap(generation);
    return this.#answering.searchPart(request, semantic, rules);
  }

  /** This shard's part of the normalization of a sharded hybrid search; `generation` and `rules` as for `searchPart`. */
  async hybridNormsPart(
    request: SearchRequest,
    semantic: SemanticSearch,
    generation?: number,
    rules?: PartRules,
  ): Promise<Outcome<HybridNormsAnswer>> {
    if (generation !== undefined) await this.commitSwap(generation);
    return this.#answering.hybridNormsPart(request, semantic, rules);
  }

  /** Suggestions for a prefix. */
  async suggest(request: SuggestRequest): Promise<Outcome<Suggestion[]>> {
    return this.#answering.suggest(request);
  }

  /** This shard's part of a sharded suggest; `generation` as for `searchPart`. */
  async suggestPart(request: SuggestRequest, generation?: number): Promise<SuggestPart> {
    if (generation !== undefined) await this.commitSwap(generation);
    return this.#answering.suggestPart(request);
  }

  /**
   * The version of the live index: the sequence number of its last change (a feeding batch, a full-feed swap
   * or a re-index). Answers of one version never change, so the edge cache keys them by it.
   */
  async indexVersion(): Promise<number> {
    return this.#live.version();
  }

  /**
   * `search` serialized once, with its index version; a repeat of the same version comes from memory unless `fresh`.
   * `key`: the answer's `searchKey` when the caller made it already.
   */
  async searchAnswer(
    request: SearchRequest & HighlightRequest,
    fresh = false,
    semantic?: SemanticSearch,
    key?: string,
  ): Promise<Outcome<LayoutAnswer>> {
    return this.#answering.searchAnswer(request, fresh, semantic, key);
  }

  /**
   * `suggest` serialized once, with its index version; a repeat of the same version comes from memory unless `fresh`.
   * `key` as for `searchAnswer`.
   */
  async suggestAnswer(request: SuggestRequest, fresh = false, key?: string): Promise<Outcome<LayoutAnswer>> {
    return this.#answering.suggestAnswer(request, fresh, key);
  }

  /** `searchAnswer` or `suggestAnswer`, as the read names. */
  async readAnswer(read: IndexRead, fresh = false): Promise<Outcome<LayoutAnswer>> {
    return this.#answering.readAnswer(read, fresh);
  }

  // ---------------------------------------------------------------- read replicas

  /** Registers a replica and hands it what its copy starts from: version, configuration and a snapshot of that version. */
  async replicaSnapshot(replica: string): Promise<ReplicaSource> {
    return this.#replication.snapshot(replica);
  }

  /** A page of document rows (tombstones too) in id order after `after`, for a replica's copy. */
  async replicaDocuments(after: string, limit: number): Promise<DocumentRow[]> {
    return this.#replication.documents(after, limit);
  }

  /** The documents changed after version `since`, in their current state; null when the change log no longer reaches back that far. */
  async replicaChanges(since: number, limit: number): Promise<ChangePage | null> {
    return this.#replication.changes(since, limit);
  }

  /** Keeps the replicas of these regions and deletes the others (the app's replica setting changed). */
  async retainReplicas(regions: string[]): Promise<void> {
    return this.#replication.retain(regions);
  }

  /**
   * A read at a replica: the answer when this copy is complete and at `minVersion` or newer, else null (the caller
   * asks the primary) and the replica syncs. The first read makes the object a replica of `identity.primary`.
   */
  async replicaAnswer(
    identity: ReplicaIdentity,
    read: IndexRead,
    minVersion: number,
    fresh = false,
  ): Promise<Outcome<LayoutAnswer> | null> {
    return this.#replication.serves(identity, minVersion) ? this.#answering.readAnswer(read, fresh) : null;
  }

  /** A shard's part of a sharded read at a replica of the shard: as `replicaAnswer`, null when the replica is not at `minVersion`. */
  async replicaPart(
    identity: ReplicaIdentity,
    read: PartRead,
    minVersion: number,
  ): Promise<Outcome<SearchPart> | Outcome<HybridNormsAnswer> | SuggestPart | null> {
    if (!this.#replication.serves(identity, minVersion)) return null;
    if (read.kind === 'search') return this.#answering.searchPart(read.request, read.semantic, read.rules);
    if (read.kind === 'hybridNorms') return this.#answering.hybridNormsPart(read.request, read.semantic, read.rules);
    return this.#answering.suggestPart(read.request);
  }

  /** The primary's notice of a new version; false when this object follows no primary (it was deleted). */
  async replicaNotify(version: number): Promise<boolean> {
    return this.#replication.notify(version);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Index facts for tests and operations: live size, and what the snapshot covers. */
  async stats(): Promise<IndexStats> {
    const storage = this.#live.storage;
    return {
      documents: storage.liveCount(),
      indexed: this.#live.loadIndex()?.size ?? 0,
      seq: storage.get('seq') ?? 0,
      snapshotSeq: storage.get('snapshotSeq') ?? 0,
    };
  }

  /** As shard 0: how many shards the app may have written into (`FullFeeds.shardsUsed`), which deleting it reaches. */
  async shardsUsed(): Promise<number> {
    return this.#fullFeeds.shardsUsed();
  }

  /**
   * Deletes everything the search app stored (documents, staged cycles, snapshots, meta): the app, or this replica,
   * is being deleted. A replica keeps only a mark that stops reads from making it a copy again for a minute; its
   * alarm then deletes the mark. Answers, as shard 0, how many shards the app may have written into
   * (`FullFeeds.shardsUsed`, read before the wipe), for the caller to delete the others.
   */
  async destroy(): Promise<number> {
    const shards = this.#fullFeeds.shardsUsed();
    await this.#replication.destroyReplicas();
    const replica = this.#replication.isReplica;
    await this.#deleteStorage();
    if (replica) await this.#replication.retire();
    return shards;
  }

  /** Deletes the storage (tables too) and the alarm, and forgets the in-memory state; the tables come back, empty, at the next use. */
  async #deleteStorage(): Promise<void> {
    this.#recovery.reset();
    this.#replication.forget();
    await this.#live.deleteStorage();
  }

  /**
   * Ends a lapsed seal or re-shard staging; writes a pending snapshot; when a recovery check is due, asks the feeding
   * consumer for it and arms the next.
   */
  override async alarm(): Promise<void> {
    const storage = this.#live.storage;
    const retiredUntil = storage.get('retiredUntil');
    if (retiredUntil !== undefined) {
      return retiredUntil > Date.now() ? this.#live.armAlarm(retiredUntil) : this.#deleteStorage();
    }
    await this.#reindexing.expire();
    // An object that only ever staged a move that lapsed (its app deleted meanwhile) keeps nothing.
    if (storage.holdsNothing()) return this.#deleteStorage();
    this.#live.snapshotIfBehind();
    await this.#recovery.check();
  }
}
