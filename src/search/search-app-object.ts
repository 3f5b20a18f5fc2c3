import { DurableObject } from 'cloudflare:workers';
import type { FeedingState } from '../db/schema';
import { numberVar, type Env } from '../env';
import { AnswerMemo, navigationFirst, searchKey, suggestKey, type VersionedAnswer } from './answers';
import {
  AppStorage,
  type DocumentRow,
  type FailedCycle,
  type FullFeedCycle,
  type HashedVector,
  type PreparedSwap,
  type Reshard,
} from './app-storage';
import { ChangeLog, type ChangePage } from './change-log';
import { contentHash, embeddingText } from './embedding/text';
import {
  compactFacets,
  decodeShare,
  displayFields,
  encodeShare,
  QueryError,
  SearchIndex,
  VectorIndex,
  type CompactFacet,
  type HybridNorms,
  type HybridNormsPart,
  type HybridQuery,
  type RankedSuggestion,
  type StatisticsShare,
} from './engine';
import type { HighlightRequest } from './engine/highlight';
import type {
  DocumentPayload,
  EngineSearchResult,
  IndexConfig,
  MergeKeys,
  ResultDocument,
  SearchRequest,
  SearchResult,
  Suggestion,
  SuggestRequest,
} from './engine/types';
import { ReplicaFollower, REPLICA_PAGE, type ReplicaIdentity, type ReplicaSource } from './replica-follower';
import { regionOfReplica } from './replica-regions';
import type { Outcome } from './search-app-client';
import { SINGLE_SHARD, type ShardLayout } from './shards';

/** A document operation as the feeding consumer hands it to the search app. */
export interface FeedOperation {
  opId: number;
  documentId: string;
  operation: 'update' | 'delete';
  payload?: DocumentPayload;
  /** Set when the operation was sent during a full-feed cycle. */
  cycleId?: number | null;
  /** Content hash of the document's semantic text (its vector's key); absent or null: no vector. */
  vector?: string | null;
}

/** What an app's indexes are built with: the engine's configuration and the embedder its vectors come from. */
export interface AppIndexConfig extends IndexConfig {
  /** Fingerprint of the embedder (`embedderFingerprint`); absent when the app has no embedder or no semantic field. */
  embedder?: string;
}

/** The query vector of a hybrid search and how much its ranking weighs (0 to 1). */
export interface SemanticSearch {
  vector: Float32Array;
  ratio: number;
  /** Fingerprint of the embedder that made `vector`: only vectors of the same embedder are compared with it. */
  embedder: string;
  /** Over shards: the whole index's normalization of keyword and vector scores (`combineHybridNorms`). */
  norms?: HybridNorms;
}

/** Texts a re-index still has to embed, and where the next page of documents starts (null: all seen). */
export interface MissingVectors {
  texts: Array<{ hash: string; text: string }>;
  next: string | null;
}

export interface OperationResult {
  opId: number;
  state: Extract<FeedingState, 'PREPARED' | 'FINISHED' | 'IGNORED' | 'CANCELED'>;
}

/** Index facts for tests and operations: live size, and the sequence numbers of the last batch and of the snapshot. */
export interface IndexStats {
  documents: number;
  indexed: number;
  seq: number;
  snapshotSeq: number;
}

export interface FullFeedStatus {
  active: boolean;
  cycle: FullFeedCycle | null;
  /** The last cycle, when it failed. */
  lastFailed: FailedCycle | null;
  stagedDocuments: number;
  liveDocuments: number;
}

/** A read a replica can answer as well as the primary: keyword or hybrid search, or suggest. */
export type IndexRead =
  { kind: 'search'; request: SearchRequest & HighlightRequest; semantic?: SemanticSearch } | { kind: 'suggest'; request: SuggestRequest };

/** A shard's part of a sharded read, which a replica of the shard answers as well as the shard's primary. */
export type PartRead =
  | { kind: 'search'; request: SearchRequest & HighlightRequest; semantic?: SemanticSearch; strict?: boolean }
  | { kind: 'hybridNorms'; request: SearchRequest; semantic: SemanticSearch; strict?: boolean }
  | { kind: 'suggest'; request: SuggestRequest };

/** Why a full feed cannot start now. */
const RESHARDING = 'A re-index job is moving the documents to a new shard count; start the full feed when it has finished';

/** A page of a shard's document rows moving to a new shard count, the vectors they use, and the shard's sequence when read. */
export interface MovingRows {
  rows: DocumentRow[];
  vectors: Array<HashedVector & { space: string }>;
  seq: number;
}

/** Why a hybrid search answered keyword results only. */
const NO_VECTORS = 'the index has no vectors of this embedder yet: feed documents, or schedule a feeding job after an embedder change';

/** The content hash of a document's semantic text under the config's embedder; null when it has no semantic text. */
function vectorHash(config: AppIndexConfig, payload: DocumentPayload): string | null {
  const text = config.embedder ? embeddingText(config.fields, payload) : '';
  return config.embedder && text ? contentHash(config.embedder, text) : null;
}

/**
 * A shard asks for a new exchange of statistics with the other shards (`SearchAppClient.shareStatistics`) after
 * this many changes since its last share, or this share of its documents if more (as the families' prior does).
 */
const MIN_CHANGES_BEFORE_SHARE = 256;
const CHANGED_SHARE_BEFORE_SHARE = 0.01;

/** The statistics of a shard never fed. */
const NO_STATISTICS: StatisticsShare = {
  documents: 0,
  fieldLengths: [],
  terms: [],
  frequencies: new Int32Array(0),
  titles: { keys: new Int32Array(0), beginnings: new Int32Array(0), wholes: new Int32Array(0) },
};

/** Seconds between the first change after a snapshot and the snapshot that covers it (`SNAPSHOT_DELAY_SECONDS`). */
const DEFAULT_SNAPSHOT_DELAY_SECONDS = 2;
/** Serialized answers kept for repeated queries of the current index version: about 8 MB of the object's 128 MB. */
const ANSWER_MEMO_CHARS = 4_000_000;
/** Interval of feeding recovery checks while the app has open feeding entries. */
export const RECOVERY_CHECK_MS = 15_000;
/** No operation applied for this long: the app's feeding is stalled (its messages may be lost). */
const STALL_MS = 20_000;
/**
 * How long a deleted replica refuses to follow its primary again: longer than a worker isolate keeps an app's row
 * (`SEARCH_APP_TTL_MS`, 10 s), whose replica regions may still send reads there. Then its alarm deletes the mark.
 */
const REPLICA_RETIREMENT_MS = 60_000;
/** Swapped cycles remembered for recovery; the entries of an ended cycle are settled within a few checks. */
const SWAPPED_CYCLES_KEPT = 50;

/**
 * What the object asks the feeding consumer to check, as a `recover` queue message: which open entries
 * of the app may have lost their messages. Entries below `appliedUpTo` were overtaken by later ones.
 */
export interface RecoveryRequest {
  appId: number;
  /** Nothing was applied for a while (or since this instance started). */
  stalled: boolean;
  /** The highest operation id this instance applied. */
  appliedUpTo: number;
  requestedAt: number;
}

/** What every shard answer says about the index it read: the layout (to check the caller's) and the shard's version. */
export interface ShardView {
  layout: ShardLayout;
  version: number;
}

/** One shard's part of a sharded search: its best hits with merge keys, every facet value, stats with their counts. */
export interface SearchPart extends ShardView {
  /** Nothing matched the query's words here, so this shard relaxed it (`partsToAskStrictly`). */
  relaxed: boolean;
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

function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/**
 * One instance per search app (named `<tenant>/<code>`): holds the app's index in memory, keeps the
 * documents and index snapshots in its SQLite storage, and serializes feeding and full-feed cycles.
 * The index is loaded lazily: snapshot plus the changes made after it, or a rebuild from the documents.
 */
export class SearchAppObject extends DurableObject<Env> {
  #storage: AppStorage;
  #index?: SearchIndex;
  /** Vectors of the live documents, of the embedder `#space`; absent until the first vector. */
  #vectors?: VectorIndex;
  #space?: string;
  #answers = new AnswerMemo(ANSWER_MEMO_CHARS);
  /** Feeding progress of this instance, for recovery: when it last applied operations, and up to which id. */
  #lastAppliedAt = 0;
  #appliedUpTo = 0;
  /** Changes applied since this shard last shared its statistics (in memory: an eviction only delays the next share). */
  #changesSinceShare = 0;
  /** When recovery was last armed: a check asked before then does not switch the checks off. */
  #recoveryArmedAt = 0;
  /** As a primary with replicas: the documents each version changed. */
  #log: ChangeLog;
  /** As a replica: the copy of the primary and its catching up. */
  readonly #follower: ReplicaFollower;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#storage = new AppStorage(ctx.storage.sql);
    this.#log = new ChangeLog(ctx.storage.sql);
    this.#follower = new ReplicaFollower({
      storage: () => this.#storage,
      transaction: (run) => ctx.storage.transactionSync(run),
      primary: (name) => env.SEARCH_APP.get(env.SEARCH_APP.idFromName(name)),
      dropIndex: () => {
        this.#index = undefined;
        this.#vectors = undefined;
      },
      applyChanges: (page) => this.#applyReplicaChanges(page),
      changed: () => this.#scheduleSnapshot(),
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
  }

  // ---------------------------------------------------------------- feeding

  /**
   * Applies operations in id order; a document's older operations are IGNORED behind newer ones. `vectors` are
   * the ones the consumer embedded for these operations (the others' hashes are stored already).
   */
  async apply(operations: FeedOperation[], config: AppIndexConfig, vectors: HashedVector[] = []): Promise<OperationResult[]> {
    if ((this.#storage.get('sealedUntil') ?? 0) > Date.now() && operations.some((op) => !op.cycleId)) {
      throw new Error('documents are moving to a new shard count: retry');
    }
    this.#lastAppliedAt = Date.now();
    for (const op of operations) this.#appliedUpTo = Math.max(this.#appliedUpTo, op.opId);
    const newest = new Map<string, number>();
    for (const op of operations) newest.set(op.documentId, Math.max(op.opId, newest.get(op.documentId) ?? 0));
    const cycle = this.#storage.get('cycle');
    const firstIndex = !this.#storage.get('config');
    const results = this.ctx.storage.transactionSync(() => {
      if (config.embedder) this.#storage.putVectors(config.embedder, vectors);
      const referenced = [...new Set(operations.map((op) => op.vector).filter((hash): hash is string => !!hash))];
      // A vector dropped since the consumer asked (an unused-vector sweep) fails the batch, which the queue retries.
      if (referenced.length && this.#storage.knownVectors(referenced).size < referenced.length)
        throw new Error('document vectors are not stored');
      let seq: number | undefined;

      const applied = [...operations]
        .sort((a, b) => a.opId - b.opId)
        .map((op): OperationResult => {
          if (newest.get(op.documentId) !== op.opId) return { opId: op.opId, state: 'IGNORED' };
          if (op.cycleId) {
            if (cycle?.id !== op.cycleId) return { opId: op.opId, state: 'CANCELED' };
            const update = op.operation === 'update';
            const staged = this.#storage.stage(
              cycle.id,
              op.documentId,
              update ? op.payload : undefined,
              op.opId,
              update ? (op.vector ?? null) : null,
            );
            return { opId: op.opId, state: staged ? 'PREPARED' : 'IGNORED' };
          }
          if (this.#storage.lastOp(op.documentId) > op.opId) return { opId: op.opId, state: 'IGNORED' };
          const index = this.#indexFor(config);
          seq ??= this.#storage.nextSeq();
          if (op.operation === 'update') {
            this.#storage.put(op.documentId, op.payload ?? {}, op.opId, seq, op.vector ?? null);
            index.add(op.documentId, op.payload ?? {});
            this.#indexVector(op.documentId, op.vector);
          } else {
            this.#storage.markDeleted(op.documentId, op.opId, seq);
            index.remove(op.documentId);
            this.#vectors?.remove(op.documentId);
          }
          return { opId: op.opId, state: 'FINISHED' };
        });
      if (seq !== undefined) this.#logChanges(seq, firstIndex, applied, operations);
      return applied;
    });
    if (results.some((r) => r.state === 'FINISHED')) {
      this.#changesSinceShare += results.filter((r) => r.state === 'FINISHED').length;
      this.#notifyReplicas();
      await this.#scheduleSnapshot();
    }
    return results;
  }

  /**
   * `apply` on one shard of several, routed by the layout of `generation`; `statisticsDue`: enough changed here that
   * the shards should share statistics anew. Routed by another layout than this shard's (a swap is committing), the
   * batch fails, to be retried and routed again.
   */
  async applyToShard(
    operations: FeedOperation[],
    config: AppIndexConfig,
    vectors: HashedVector[] = [],
    generation?: number,
  ): Promise<{ results: OperationResult[]; statisticsDue: boolean }> {
    const live = operations.some((op) => !op.cycleId);
    if (live && generation !== undefined && generation !== this.#layout().generation) {
      throw new Error(`operations routed by the layout of generation ${generation}, this shard is at ${this.#layout().generation}: retry`);
    }
    const results = await this.apply(operations, config, vectors);
    const due = Math.max(MIN_CHANGES_BEFORE_SHARE, (this.#index?.size ?? 0) * CHANGED_SHARE_BEFORE_SHARE);
    return { results, statisticsDue: this.#changesSinceShare >= due };
  }

  /**
   * Called before operations of the app are recorded: arms the recovery checks (so no accepted entry is
   * left without them) and answers the active cycle the operations belong to.
   */
  async noteAccepted(appId: number): Promise<FullFeedCycle | null> {
    if (this.#storage.get('appId') !== appId) this.#storage.set('appId', appId);
    await this.#armRecovery();
    return this.#storage.get('cycle') ?? null;
  }

  /** The recovery check of `requestedAt` found nothing to do: checks stop unless recovery was armed since. */
  async recoveryIdle(requestedAt: number): Promise<void> {
    if (this.#recoveryArmedAt <= requestedAt) this.#storage.set('recoveryAt', undefined);
  }

  /** The live document, or null. */
  async document(id: string): Promise<DocumentPayload | null> {
    return this.#storage.document(id) ?? null;
  }

  /** Whether a delete of this document has something to delete (live, or staged by the active cycle). */
  async hasDocument(id: string): Promise<boolean> {
    const cycle = this.#storage.get('cycle');
    return this.#storage.document(id) !== undefined || (cycle !== undefined && this.#storage.hasStaged(cycle.id, id));
  }

  /**
   * Rebuilds the index from the stored documents with a new configuration (Schedule feeding job). With an
   * embedder, each document first points at the vector of its current semantic text, which `missingVectors`
   * and `storeVectors` made sure is stored; unchanged texts keep their vectors.
   */
  async reindex(config: AppIndexConfig): Promise<Outcome<{ documents: number }>> {
    if (config.embedder) {
      const changes: Array<[string, string | null]> = [];
      for (const doc of this.#storage.liveDocuments()) {
        const hash = vectorHash(config, doc.payload);
        if (hash !== (doc.vector ?? null)) changes.push([doc.id, hash]);
      }
      const hashes = [...new Set(changes.map(([, hash]) => hash).filter((hash): hash is string => hash !== null))];
      const known = this.#storage.knownVectors(hashes);
      const missing = hashes.filter((hash) => !known.has(hash)).length;
      if (missing) return { ok: false, status: 409, message: `${missing} semantic texts have no vector yet` };
      this.ctx.storage.transactionSync(() => {
        for (const [id, hash] of changes) this.#storage.setVector(id, hash);
      });
    }
    const rebuilt = this.ctx.storage.transactionSync(() => {
      const seq = this.#storage.nextSeq(); // a new index version: answers cached for the old configuration are not reused
      if (this.#log.active) this.#log.reset(seq);
      return { documents: this.#rebuild(config).size };
    });
    this.#notifyReplicas();
    return ok(rebuilt);
  }

  /** Up to `limit` semantic texts of live documents (in id order after `after`) whose vector is not stored. */
  async missingVectors(config: AppIndexConfig, after: string, limit: number): Promise<MissingVectors> {
    const texts = new Map<string, string>();
    let last: string | null = null;
    if (!config.embedder) return { texts: [], next: null };
    for (const doc of this.#storage.liveDocumentsAfter(after)) {
      if (texts.size >= limit) return { texts: [...texts].map(([hash, text]) => ({ hash, text })), next: last };
      last = doc.id;
      const hash = vectorHash(config, doc.payload);
      if (hash && hash !== doc.vector && !texts.has(hash) && !this.#storage.knownVectors([hash]).size) {
        texts.set(hash, embeddingText(config.fields, doc.payload));
      }
    }
    return { texts: [...texts].map(([hash, text]) => ({ hash, text })), next: null };
  }

  /** Which of these content hashes have a stored vector (the consumer embeds only the others). */
  async knownVectors(hashes: string[]): Promise<string[]> {
    return [...this.#storage.knownVectors(hashes)];
  }

  /** Stores vectors of the embedder `space` ahead of a re-index. */
  async storeVectors(space: string, vectors: HashedVector[]): Promise<void> {
    this.#storage.putVectors(space, vectors);
  }

  // ---------------------------------------------------------------- full feed

  /** Starts a cycle staging into `shards` shards (the others join it through `joinCycle`). */
  async startFullFeed(shards = 1): Promise<Outcome<FullFeedCycle>> {
    const active = this.#storage.get('cycle');
    if (active) return { ok: false, status: 409, message: `A full feed is already in progress (cycle ${active.id})` };
    if (this.#storage.get('reshard')) return { ok: false, status: 409, message: RESHARDING };
    const cycle: FullFeedCycle = {
      id: (this.#storage.get('lastCycleId') ?? 0) + 1,
      state: 'ACTIVE',
      startedAt: new Date().toISOString(),
      ...(shards > 1 ? { shards } : {}),
    };
    this.#storage.set('cycle', cycle);
    this.#storage.set('lastCycleId', cycle.id);
    return ok(cycle);
  }

  async activeCycle(): Promise<FullFeedCycle | null> {
    return this.#storage.get('cycle') ?? null;
  }

  /** Marks the cycle as ending; the swap happens in `finishFullFeed` once its operations are processed. */
  async requestFullFeedEnd(): Promise<Outcome<FullFeedCycle>> {
    const cycle = this.#storage.get('cycle');
    if (!cycle) return { ok: false, status: 404, message: 'No active full feed' };
    const ending: FullFeedCycle = { ...cycle, state: 'ENDING', endRequestedAt: cycle.endRequestedAt ?? new Date().toISOString() };
    this.#storage.set('cycle', ending);
    return ok(ending);
  }

  /** Swaps the staged dataset in as the live one, atomically; a no-op when the cycle is already done. */
  async finishFullFeed(cycleId: number, config: AppIndexConfig): Promise<boolean> {
    const cycle = this.#storage.get('cycle');
    if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return false;
    this.ctx.storage.transactionSync(() => {
      this.#storage.promoteStaged(cycleId);
      this.#storage.set('cycle', undefined);
      this.#storage.set('swappedCycles', [...(this.#storage.get('swappedCycles') ?? []), cycleId].slice(-SWAPPED_CYCLES_KEPT));
      if (this.#log.active) this.#log.reset(this.#version());
      this.#rebuild(config);
    });
    this.#notifyReplicas();
    await this.#armRecovery();
    return true;
  }

  /** Ends a cycle that cannot finish (its operations were lost): staged documents are discarded, the reason kept for the status. */
  async failFullFeed(cycleId: number, reason: string): Promise<boolean> {
    if (this.#storage.get('cycle')?.id !== cycleId) return false;
    this.ctx.storage.transactionSync(() => {
      this.#storage.discardStaged(cycleId);
      this.#storage.set('cycle', undefined);
      this.#storage.set('failedCycle', { id: cycleId, reason, failedAt: new Date().toISOString() });
    });
    await this.#armRecovery();
    return true;
  }

  async cancelFullFeed(): Promise<Outcome<FullFeedCycle>> {
    const cycle = this.#storage.get('cycle');
    if (!cycle) return { ok: false, status: 404, message: 'No active full feed' };
    this.ctx.storage.transactionSync(() => {
      this.#storage.discardStaged(cycle.id);
      this.#storage.set('cycle', undefined);
    });
    await this.#armRecovery();
    return ok(cycle);
  }

  /**
   * How a cycle ended, for entries D1 still shows in it: `null` while it is the active one, `FINISHED` when it was
   * swapped in, else `CANCELED` (cancelled or failed). Callers settle D1 after the object ended a cycle and may die
   * in between, so each end arms a recovery check, which settles what was left.
   */
  async cycleOutcome(cycleId: number): Promise<'FINISHED' | 'CANCELED' | null> {
    if (this.#storage.get('cycle')?.id === cycleId) return null;
    return this.#storage.get('swappedCycles')?.includes(cycleId) ? 'FINISHED' : 'CANCELED';
  }

  async fullFeedStatus(): Promise<FullFeedStatus> {
    const cycle = this.#storage.get('cycle') ?? null;
    const failed = this.#storage.get('failedCycle');
    return {
      active: cycle !== null,
      cycle,
      lastFailed: failed && failed.id === this.#storage.get('lastCycleId') ? failed : null,
      stagedDocuments: cycle ? this.#storage.stagedCount(cycle.id) : 0,
      liveDocuments: this.#storage.liveCount(),
    };
  }

  // ---------------------------------------------------------------- shards

  /** The live layout of the app's shards and the active cycle (coordinator: shard 0). */
  async layout(): Promise<{ layout: ShardLayout; cycle: FullFeedCycle | null }> {
    return { layout: this.#layout(), cycle: this.#storage.get('cycle') ?? null };
  }

  /** A shard other than 0 joins the coordinator's cycle: the cycle's operations routed here are staged. */
  async joinCycle(cycle: FullFeedCycle): Promise<void> {
    this.#storage.set('cycle', cycle);
  }

  /**
   * Phase 1 of a cross-shard swap: this shard holds the cycle's staged documents and promises to make them live
   * as `swap.layout` when told (or when a search asks for that generation: the decision was then taken). Yes as
   * well when that generation is live here already (a retried swap). `shardName` is for `TEST_REFUSE_SWAP`.
   */
  async prepareSwap(swap: PreparedSwap, shardName: string): Promise<Outcome<null>> {
    if (this.#layout().generation >= swap.layout.generation) return ok(null);
    if (this.env.TEST_REFUSE_SWAP?.split(',').includes(shardName))
      return { ok: false, status: 409, message: `${shardName} refuses swaps (TEST_REFUSE_SWAP)` };
    if (this.#storage.get('cycle')?.id !== swap.cycleId && this.#storage.get('reshard')?.id !== swap.cycleId)
      return { ok: false, status: 409, message: `cycle ${swap.cycleId} is not staged here` };
    this.#storage.set('ready', swap);
    return ok(null);
  }

  /** Phase 2: the prepared cycle's documents go live as the new generation; true when that generation is live. */
  async commitSwap(generation: number): Promise<boolean> {
    if (this.#layout().generation >= generation) return true;
    const ready = this.#storage.get('ready');
    if (ready?.layout.generation !== generation) return false;
    this.ctx.storage.transactionSync(() => {
      this.#storage.promoteStaged(ready.cycleId);
      if (this.#storage.get('cycle')?.id === ready.cycleId) {
        this.#storage.set('cycle', undefined);
        this.#storage.set('swappedCycles', [...(this.#storage.get('swappedCycles') ?? []), ready.cycleId].slice(-SWAPPED_CYCLES_KEPT));
      }
      if (this.#storage.get('reshard')?.id === ready.cycleId) this.#storage.set('reshard', undefined);
      this.#storage.set('sealedUntil', undefined);
      this.#storage.set('layout', ready.layout);
      this.#storage.set('ready', undefined);
      // The other shards' statistics are of the old generation: the shard scores alone until the next exchange.
      this.#storage.writeOtherShards(undefined);
      if (this.#log.active) this.#log.reset(this.#version());
      this.#rebuild(ready.config);
    });
    this.#notifyReplicas();
    await this.#armRecovery();
    return true;
  }

  /** A swap that did not happen (a shard refused, or the cycle was cancelled or failed): the staged documents go. */
  async abortSwap(cycleId: number): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      this.#storage.discardStaged(cycleId);
      if (this.#storage.get('cycle')?.id === cycleId) this.#storage.set('cycle', undefined);
      if (this.#storage.get('ready')?.cycleId === cycleId) this.#storage.set('ready', undefined);
      if (this.#storage.get('reshard')?.id === cycleId) this.#storage.set('reshard', undefined);
      this.#storage.set('sealedUntil', undefined);
    });
  }

  /**
   * Joins a re-shard (a re-index job moving the documents to a new shard count): its rows are staged here under
   * `reshard.id`, anything staged under it before discarded. 409 while a full feed is in progress.
   */
  async beginReshard(reshard: Reshard): Promise<Outcome<null>> {
    const cycle = this.#storage.get('cycle');
    if (cycle) return { ok: false, status: 409, message: `A full feed is in progress (cycle ${cycle.id}); re-index when it has finished` };
    this.ctx.storage.transactionSync(() => {
      this.#storage.discardStaged(reshard.id);
      this.#storage.set('reshard', reshard);
    });
    return ok(null);
  }

  /**
   * A page of this shard's document rows (tombstones too) changed after sequence `since` (-1: all), in id order after
   * `after`, with the vectors they use, and the sequence now: the next catch-up reads the changes after it.
   */
  async movingRows(since: number, after: string, limit: number): Promise<MovingRows> {
    const rows = this.#storage.documentRowsSince(since, after, limit);
    const hashes = new Set(rows.map((row) => row.vector).filter((hash): hash is string => !!hash));
    const vectors = [...hashes].flatMap((hash) => {
      const stored = this.#storage.vector(hash);
      return stored ? [{ hash, ...stored }] : [];
    });
    return { rows, vectors, seq: this.#storage.get('seq') ?? 0 };
  }

  /** Stages rows moved from other shards under the re-shard's `id` (a row staged from a newer operation stays), with their vectors. */
  async stageMoved(id: number, rows: DocumentRow[], vectors: MovingRows['vectors']): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      for (const { space, hash, vector } of vectors) this.#storage.putVectors(space, [{ hash, vector }]);
      this.#storage.stageRows(id, rows);
    });
  }

  /** Live feeding here fails, to be retried, for `ms` (0: from now on it applies again): a re-shard's last catch-up and swap. */
  async seal(ms: number): Promise<void> {
    this.#storage.set('sealedUntil', ms > 0 ? Date.now() + ms : undefined);
  }

  /** Documents and index change when the layout did (a shard joining a new layout); the sequence tells versions apart. */
  #layout(): ShardLayout {
    return this.#storage.get('layout') ?? SINGLE_SHARD;
  }

  #view(): ShardView {
    return { layout: this.#layout(), version: this.#version() };
  }

  // ---------------------------------------------------------------- search

  /**
   * One page of results; with `semantic`, keyword and vector rankings fused. Without vectors of the query's
   * embedder (none fed yet, or the embedder changed and no re-index ran) it answers keyword results, flagged.
   */
  async search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Promise<Outcome<SearchResult | Resharded>> {
    const { shards } = this.#layout();
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

  /**
   * This shard's part of a sharded search (the caller asks for page 1 of `page × rows` rows and every facet value):
   * hits with merge keys, facets and stats to sum; `relaxed` when nothing matched the query's words here (`strict`:
   * another shard matched them, do not relax). With `generation`, a swap to it prepared here is made live first
   * (another shard answered from it, so every shard was prepared and the swap decided).
   */
  async searchPart(
    request: SearchRequest & HighlightRequest,
    semantic?: SemanticSearch,
    generation?: number,
    strict?: boolean,
  ): Promise<Outcome<SearchPart>> {
    if (generation !== undefined) await this.commitSwap(generation);
    return this.#run(request, semantic, { strict }, (found, documents, semanticAnswer) => ({
      ...this.#view(),
      relaxed: found.relaxed ?? false,
      total: found.total,
      documents,
      merge: found.merge ?? { order: [], keys: [] },
      facets: compactFacets(found.facets),
      facetStats: found.facetStats,
      facetStatCounts: found.facetStatCounts,
      navigation: (this.#index?.config.fields ?? []).filter((field) => field.navigation).map((field) => field.code),
      ...semanticAnswer,
    }));
  }

  /**
   * This shard's part of the normalization of a sharded hybrid search (`SearchIndex.hybridNormsPart`), asked before
   * the search parts so that every shard fuses with the whole index's; `generation` and `strict` as for `searchPart`.
   * Without vectors of the query's embedder it brings nothing (its search part answers keyword results).
   */
  async hybridNormsPart(
    request: SearchRequest,
    semantic: SemanticSearch,
    generation?: number,
    strict?: boolean,
  ): Promise<Outcome<HybridNormsAnswer>> {
    if (generation !== undefined) await this.commitSwap(generation);
    const index = this.#loadIndex();
    const hybrid = this.#hybridQuery(semantic);
    try {
      const part = (hybrid && index?.hybridNormsPart(request, hybrid, strict)) || { keywordBest: 0, nearest: [], relaxed: false };
      return ok({ ...this.#view(), ...part });
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, status: 400, message: 'Invalid search request', details: error.details };
      throw error;
    }
  }

  /** The engine's hybrid query for `semantic`, when this index has vectors of its embedder. */
  #hybridQuery(semantic: SemanticSearch | undefined): HybridQuery | undefined {
    const vectors = semantic && this.#space === semantic.embedder ? this.#vectors : undefined;
    return semantic && vectors ? { vectors, vector: semantic.vector, ratio: semantic.ratio, norms: semantic.norms } : undefined;
  }

  /** Runs a search on the live index and shapes its answer; an invalid query is a 400 outcome. */
  #run<T>(
    request: SearchRequest & HighlightRequest,
    semantic: SemanticSearch | undefined,
    part: { strict?: boolean } | undefined,
    shape: (found: EngineSearchResult, documents: ResultDocument[], semanticAnswer: Pick<SearchResult, 'semantic'>) => T,
  ): Outcome<T> {
    const index = this.#loadIndex();
    try {
      const highlighter = index?.highlighter(request);
      const hybrid = this.#hybridQuery(semantic);
      const feeding = part && { feedingKey: (id: string) => this.#storage.lastOp(id), strict: part.strict };
      const found = index?.search(request, hybrid, feeding) ?? { total: 0, hits: [], facets: [], facetStats: {}, facetStatCounts: {} };
      const payloads = this.#storage.documents(found.hits.map((hit) => hit.id));
      const fields = index?.config.fields ?? [];
      const documents = found.hits.map((hit) => {
        const document = displayFields(fields, payloads.get(hit.id) ?? {});
        return { id: hit.id, position: hit.position, document, ...highlighter?.apply(document) };
      });
      return ok(
        shape(found, documents, semantic ? { semantic: hybrid ? { ratio: hybrid.ratio } : { ratio: 0, fallback: NO_VECTORS } } : {}),
      );
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, status: 400, message: 'Invalid search request', details: error.details };
      throw error;
    }
  }

  async suggest(request: SuggestRequest): Promise<Outcome<Suggestion[]>> {
    return ok(this.#loadIndex()?.suggest(request) ?? []);
  }

  /** This shard's statistics, summed with the other shards' into what each is handed (`useOtherShards`). */
  async statisticsShare(): Promise<StatisticsShare> {
    this.#changesSinceShare = 0;
    return this.#loadIndex()?.statisticsShare() ?? NO_STATISTICS;
  }

  /**
   * What the other shards hold of this shard's terms and titles: from now on it scores as one index of every
   * document. Kept in storage for cold starts; a new index version (answers remembered for the old one go).
   */
  async useOtherShards(others: StatisticsShare): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      this.#storage.writeOtherShards(encodeShare(others));
      const seq = this.#storage.nextSeq();
      // Replicas copy the shard again, with the new share (the change log carries documents only).
      if (this.#log.active) this.#log.reset(seq);
    });
    this.#index?.useOtherShards(others);
    this.#notifyReplicas();
  }

  /** This shard's part of a sharded suggest; `generation` as for `searchPart`. */
  async suggestPart(request: SuggestRequest, generation?: number): Promise<SuggestPart> {
    if (generation !== undefined) await this.commitSwap(generation);
    return { ...this.#view(), suggestions: this.#loadIndex()?.rankedSuggestions(request) ?? [] };
  }

  /**
   * The version of the live index: the sequence number of its last change (a feeding batch, a full-feed swap
   * or a re-index). Answers of one version never change, so the edge cache keys them by it.
   */
  async indexVersion(): Promise<number> {
    return this.#version();
  }

  /** This shard's version and the layout it belongs to. */
  async shardView(): Promise<ShardView> {
    return this.#view();
  }

  /**
   * `search` serialized once, with its index version; a repeat of the same version (and, hybrid, of the same ratio
   * and embedder) comes from memory unless `fresh`.
   */
  async searchAnswer(request: SearchRequest & HighlightRequest, fresh = false, semantic?: SemanticSearch): Promise<Outcome<LayoutAnswer>> {
    return this.#memoized(searchKey(request, semantic), fresh, async () => {
      const outcome = this.#search(request, semantic);
      if (!outcome.ok) return outcome;
      return ok({ ...outcome.value, facets: navigationFirst(outcome.value.facets, this.#index?.config.fields ?? []) });
    });
  }

  /** `suggest` serialized once, with its index version; a repeat of the same version comes from memory unless `fresh`. */
  async suggestAnswer(request: SuggestRequest, fresh = false): Promise<Outcome<LayoutAnswer>> {
    return this.#memoized(suggestKey(request), fresh, () => this.suggest(request));
  }

  /** Index facts for tests and operations: live size, and what the snapshot covers. */
  async stats(): Promise<IndexStats> {
    return {
      documents: this.#storage.liveCount(),
      indexed: this.#loadIndex()?.size ?? 0,
      seq: this.#storage.get('seq') ?? 0,
      snapshotSeq: this.#storage.get('snapshotSeq') ?? 0,
    };
  }

  /**
   * Deletes everything the search app stored (documents, staged cycles, snapshots, meta): the app, or this replica,
   * is being deleted. A replica keeps only a mark that stops reads from making it a copy again for
   * `REPLICA_RETIREMENT_MS`; its alarm then deletes the mark.
   */
  async destroy(): Promise<void> {
    await Promise.all((this.#storage.get('replicas') ?? []).map((name) => this.#replica(name).destroy()));
    const replica = this.#follower.identity !== undefined;
    await this.#deleteStorage();
    if (!replica) return;
    const until = Date.now() + REPLICA_RETIREMENT_MS;
    this.#storage.set('retiredUntil', until);
    await this.ctx.storage.setAlarm(until);
  }

  /** Deletes the storage and the alarm, and forgets the in-memory state; the tables come back empty. */
  async #deleteStorage(): Promise<void> {
    this.#index = undefined;
    this.#vectors = undefined;
    // Versions start again from 0: answers remembered for the old ones must not answer for the new.
    this.#answers = new AnswerMemo(ANSWER_MEMO_CHARS);
    this.#lastAppliedAt = this.#appliedUpTo = this.#recoveryArmedAt = 0;
    this.#follower.forget();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.#storage = new AppStorage(this.ctx.storage.sql);
    this.#log = new ChangeLog(this.ctx.storage.sql);
  }

  /** Writes a pending snapshot; when a recovery check is due, asks the feeding consumer for it and arms the next. */
  override async alarm(): Promise<void> {
    const retiredUntil = this.#storage.get('retiredUntil');
    if (retiredUntil !== undefined) {
      return retiredUntil > Date.now() ? this.#armAlarm(retiredUntil) : this.#deleteStorage();
    }
    const seq = this.#storage.get('seq') ?? 0;
    if (seq > (this.#storage.get('snapshotSeq') ?? 0)) {
      const index = this.#loadIndex();
      if (index) this.#writeSnapshot(index);
    }
    const recoveryAt = this.#storage.get('recoveryAt');
    const appId = this.#storage.get('appId');
    if (recoveryAt === undefined || appId === undefined) return;
    const now = Date.now();
    if (recoveryAt > now) return this.#armAlarm(recoveryAt);
    const request: RecoveryRequest = {
      appId,
      stalled: now - this.#lastAppliedAt > STALL_MS,
      appliedUpTo: this.#appliedUpTo,
      requestedAt: now,
    };
    await this.env.FEEDING_QUEUE.send({ kind: 'recover', ...request });
    this.#storage.set('recoveryAt', now + RECOVERY_CHECK_MS);
    await this.#armAlarm(now + RECOVERY_CHECK_MS);
  }

  /** Makes sure a recovery check is due within RECOVERY_CHECK_MS (an armed check keeps its time). */
  async #armRecovery(): Promise<void> {
    this.#recoveryArmedAt = Date.now();
    if (this.#storage.get('recoveryAt') !== undefined) return;
    const at = Date.now() + RECOVERY_CHECK_MS;
    this.#storage.set('recoveryAt', at);
    await this.#armAlarm(at);
  }

  // ---------------------------------------------------------------- read replicas: the primary's side

  /**
   * Registers a replica (by its object name) and hands it what its copy starts from: the current version, the
   * configuration and a snapshot of exactly that version (written now when the last one is older). From here on
   * every version's changes are logged and the replica is told of each new version.
   */
  async replicaSnapshot(replica: string): Promise<ReplicaSource> {
    const version = this.#version();
    const layout = this.#layout();
    const index = this.#loadIndex();
    if (index && (this.#storage.get('snapshotSeq') ?? 0) < version) this.#writeSnapshot(index);
    const replicas = this.#storage.get('replicas') ?? [];
    if (!replicas.includes(replica)) this.#storage.set('replicas', [...replicas, replica]);
    if (!this.#log.active || this.#log.floor > version) this.#log.reset(version);
    const snapshot = index && this.#storage.readSnapshot();
    return {
      version,
      layout,
      config: index && this.#storage.get('config'),
      snapshot: snapshot && new Blob([snapshot.index]).stream(),
      others: this.#storage.readOtherShards(),
      vectors: snapshot?.vectors && new Blob([snapshot.vectors]).stream(),
    };
  }

  /** A page of document rows (tombstones too) in id order after `after`, for a replica's copy. */
  async replicaDocuments(after: string, limit: number): Promise<DocumentRow[]> {
    return this.#storage.documentRowsAfter(after, Math.min(limit, REPLICA_PAGE));
  }

  /** The documents changed after version `since`, in their current state; null when the change log no longer reaches back that far. */
  async replicaChanges(since: number, limit: number): Promise<ChangePage | null> {
    const version = this.#version();
    const found = this.#log.changedSince(since, Math.min(limit, REPLICA_PAGE), version);
    if (!found) return null;
    const rows = new Map(this.#storage.documentRowsOf(found.ids).map((row) => [row.id, row]));
    const changes = found.ids.map((id) => {
      const row = rows.get(id);
      // No row: a deletion whose tombstone a snapshot dropped since.
      if (!row?.payload) return { id, op: row?.op ?? 0 };
      return { id, op: row.op, payload: JSON.parse(row.payload) as DocumentPayload, vector: row.vector ?? undefined };
    });
    const hashes = new Set(changes.map((change) => change.vector).filter((hash): hash is string => !!hash));
    const vectors = [...hashes].flatMap((hash) => {
      const stored = this.#storage.vector(hash);
      return stored ? [{ hash, ...stored }] : [];
    });
    return { version: found.upTo, primaryVersion: version, changes, vectors };
  }

  /** Keeps the replicas of these regions and deletes the others (the app's replica setting changed). */
  async retainReplicas(regions: string[]): Promise<void> {
    const replicas = this.#storage.get('replicas') ?? [];
    const kept = replicas.filter((name) => regions.includes(regionOfReplica(name) ?? ''));
    this.#storage.set('replicas', kept.length ? kept : undefined);
    if (!kept.length) this.#log.stop();
    await Promise.all(replicas.filter((name) => !kept.includes(name)).map((name) => this.#replica(name).destroy()));
  }

  /** Stops telling a replica that follows no more (it was deleted); the log stops with the last replica. */
  #forgetReplica(name: string): void {
    const kept = (this.#storage.get('replicas') ?? []).filter((replica) => replica !== name);
    this.#storage.set('replicas', kept.length ? kept : undefined);
    if (!kept.length) this.#log.stop();
  }

  #replica(name: string): DurableObjectStub<SearchAppObject> {
    return this.env.SEARCH_APP.get(this.env.SEARCH_APP.idFromName(name));
  }

  /** Logs the documents a batch changed, when the object has replicas; the first batch of a new index restarts the log. */
  #logChanges(seq: number, firstIndex: boolean, results: OperationResult[], operations: FeedOperation[]): void {
    if (!this.#log.active) return;
    if (firstIndex) return this.#log.reset(seq);
    const finished = new Set(results.filter((r) => r.state === 'FINISHED').map((r) => r.opId));
    const ids = operations.filter((op) => finished.has(op.opId)).map((op) => op.documentId);
    this.#log.record(seq, ids, this.#storage.get('snapshotSeq') ?? 0);
  }

  /** Tells every replica of the new version (without waiting: feeding does not wait on replicas); forgets deleted ones. */
  #notifyReplicas(): void {
    const replicas = this.#storage.get('replicas');
    if (!replicas?.length) return;
    const version = this.#version();
    const notices = replicas.map(async (name) => {
      try {
        if (!(await this.#replica(name).replicaNotify(version))) this.#forgetReplica(name);
      } catch (error) {
        console.error(JSON.stringify({ level: 'warn', msg: 'replica notice failed', replica: name, error: String(error) }));
      }
    });
    this.ctx.waitUntil(Promise.all(notices));
  }

  // ---------------------------------------------------------------- read replicas: the replica's side

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
    return this.#servesAsReplica(identity, minVersion) ? this.readAnswer(read, fresh) : null;
  }

  /** A shard's part of a sharded read at a replica of the shard: as `replicaAnswer`, null when the replica is not at `minVersion`. */
  async replicaPart(
    identity: ReplicaIdentity,
    read: PartRead,
    minVersion: number,
  ): Promise<Outcome<SearchPart> | Outcome<HybridNormsAnswer> | SuggestPart | null> {
    if (!this.#servesAsReplica(identity, minVersion)) return null;
    if (read.kind === 'search') return this.searchPart(read.request, read.semantic, undefined, read.strict);
    if (read.kind === 'hybridNorms') return this.hybridNormsPart(read.request, read.semantic, undefined, read.strict);
    return this.suggestPart(read.request);
  }

  /** Whether this replica's copy is complete and at `minVersion`; when not, it syncs. The first read names its primary. */
  #servesAsReplica(identity: ReplicaIdentity, minVersion: number): boolean {
    if (this.#storage.get('retiredUntil') !== undefined) return false;
    this.#follower.follow(identity);
    if (this.#follower.ready(minVersion)) return true;
    this.#follower.heard(minVersion);
    return false;
  }

  /** The primary's notice of a new version; false when this object follows no primary (it was deleted). */
  async replicaNotify(version: number): Promise<boolean> {
    if (!this.#follower.identity) return false;
    this.#follower.heard(version);
    return true;
  }

  /** `searchAnswer` or `suggestAnswer`, as the read names. */
  async readAnswer(read: IndexRead, fresh = false): Promise<Outcome<LayoutAnswer>> {
    return read.kind === 'search' ? this.searchAnswer(read.request, fresh, read.semantic) : this.suggestAnswer(read.request, fresh);
  }

  /** Stores a page of the primary's changes at its version and applies it to the loaded index. */
  #applyReplicaChanges(page: ChangePage): void {
    const index = this.#loadIndex();
    for (const { hash, space, vector } of page.vectors) this.#storage.putVectors(space, [{ hash, vector }]);
    for (const { id, op, payload, vector } of page.changes) {
      if (payload) {
        this.#storage.put(id, payload, op, page.version, vector ?? null);
        index?.add(id, payload);
        if (index) this.#indexVector(id, vector);
      } else {
        this.#storage.markDeleted(id, op, page.version);
        index?.remove(id);
        this.#vectors?.remove(id);
      }
    }
    this.#storage.set('seq', page.version);
  }

  // ---------------------------------------------------------------- answers

  #version(): number {
    return this.#storage.get('seq') ?? 0;
  }

  /** Nothing else runs between reading the version and computing the answer: the object handles one event at a time. */
  async #memoized<T>(key: string, fresh: boolean, answer: () => Promise<Outcome<T>>): Promise<Outcome<LayoutAnswer>> {
    const version = this.#version();
    const { shards } = this.#layout();
    if (shards > 1) return ok({ version, json: 'null', shards });
    const known = fresh ? undefined : this.#answers.get(version, key);
    if (known !== undefined) return ok({ version, json: known, shards });
    const outcome = await answer();
    if (!outcome.ok) return outcome;
    const json = JSON.stringify(outcome.value);
    this.#answers.set(version, key, json);
    return ok({ version, json, shards });
  }

  // ---------------------------------------------------------------- index lifecycle

  /** The in-memory index (with the vectors), loading it on first use; undefined while the app was never fed. */
  #loadIndex(): SearchIndex | undefined {
    if (this.#index) return this.#index;
    const stored = this.#storage.get('config');
    if (!stored) return undefined;
    const snapshot = this.#storage.readSnapshot();
    if (snapshot) {
      try {
        const index = SearchIndex.load(stored, snapshot.index);
        this.#space = stored.embedder;
        this.#vectors = snapshot.vectors && VectorIndex.load(snapshot.vectors);
        for (const change of this.#storage.changesSince(this.#storage.get('snapshotSeq') ?? 0)) {
          if (change.payload) {
            index.add(change.id, change.payload);
            this.#indexVector(change.id, change.vector);
          } else {
            index.remove(change.id);
            this.#vectors?.remove(change.id);
          }
        }
        return (this.#index = this.#withOtherShards(index));
      } catch (error) {
        this.#vectors = undefined;
        console.error(JSON.stringify({ level: 'warn', msg: 'snapshot unusable, rebuilding', error: String(error) }));
      }
    }
    return this.#rebuild(stored);
  }

  /** The index, or the first, empty one of an app never fed before, built with `config`. */
  #indexFor(config: AppIndexConfig): SearchIndex {
    const loaded = this.#loadIndex();
    if (loaded) return loaded;
    this.#storage.set('config', config);
    this.#space = config.embedder;
    return (this.#index = this.#withOtherShards(new SearchIndex(config)));
  }

  /** Fresh indexes from the stored documents and vectors, snapshotted at once so the next cold start is a load. */
  #rebuild(config: AppIndexConfig): SearchIndex {
    // Let the old indexes go before the new ones grow.
    this.#index = undefined;
    this.#vectors = undefined;
    this.#space = config.embedder;
    const index = new SearchIndex(config);
    for (const doc of this.#storage.liveDocuments()) {
      index.add(doc.id, doc.payload);
      this.#indexVector(doc.id, doc.vector);
    }
    this.#index = this.#withOtherShards(index);
    this.#writeSnapshot(index);
    return index;
  }

  /** A shard's index scores with what the other shards held at the last exchange (`useOtherShards`). */
  #withOtherShards(index: SearchIndex): SearchIndex {
    const others = this.#layout().shards > 1 ? this.#storage.readOtherShards() : undefined;
    if (others) index.useOtherShards(decodeShare(others));
    return index;
  }

  /** Puts a document's stored vector in the vector index, when it is of the index's embedder. */
  #indexVector(id: string, hash: string | null | undefined): void {
    this.#vectors?.remove(id);
    const stored = hash && this.#space ? this.#storage.vector(hash) : undefined;
    // A vector of another embedder (fed after an embedder change) joins at the next re-index.
    if (!stored || stored.space !== this.#space) return;
    this.#vectors ??= new VectorIndex(stored.vector.length);
    if (stored.vector.length === this.#vectors.dimensions) this.#vectors.add(id, stored.vector);
  }

  #writeSnapshot(index: SearchIndex): void {
    const config: AppIndexConfig = { ...index.config, embedder: this.#space };
    this.#storage.writeSnapshot({ index: index.serialize(), vectors: this.#vectors?.serialize() }, config, this.#storage.get('seq') ?? 0);
  }

  /** Arms the snapshot of the changes just made (unless one is pending). */
  async #scheduleSnapshot(): Promise<void> {
    await this.#armAlarm(Date.now() + numberVar(this.env.SNAPSHOT_DELAY_SECONDS, DEFAULT_SNAPSHOT_DELAY_SECONDS) * 1000);
  }

  /** One alarm serves snapshots and recovery checks: it is moved earlier, never later. */
  async #armAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
