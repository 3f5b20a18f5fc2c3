/**
 * What every part of a search app's Durable Object shares: its SQLite storage and change log, the in-memory
 * indexes (keyword and vector) with their lifecycle (lazy load from snapshot plus later changes, rebuild, snapshot),
 * the index version, the shard layout, the memory of serialized answers and the notices to the object's replicas.
 */
import { numberVar, type Env } from '../../env';
import { AnswerMemo } from '../answers';
import { AppStorage, type HashedVector } from '../app-storage';
import { ChangeLog } from '../change-log';
import { decodeShare, SearchIndex, VectorIndex, type HybridNorms, type HybridQuery } from '../engine';
import type { IndexConfig } from '../engine/types';
import type { SearchAppObject } from '../search-app-object';
import type { Outcome } from '../outcome';
import { objectId, SINGLE_SHARD, type ShardLayout } from '../shards';

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

/** What every shard answer says about the index it read: the layout (to check the caller's) and the shard's version. */
export interface ShardView {
  layout: ShardLayout;
  version: number;
}

/** A successful outcome of an object call. */
export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** Seconds between the first change after a snapshot and the snapshot that covers it (`SNAPSHOT_DELAY_SECONDS`). */
const DEFAULT_SNAPSHOT_DELAY_SECONDS = 2;
/** Serialized answers kept for repeated queries of the current index version: about 8 MB of the object's 128 MB. */
const ANSWER_MEMO_CHARS = 4_000_000;

/** The object's storage and in-memory indexes, shared by its feeding, full-feed, re-index, replication and answering parts. */
export class LiveIndex {
  #storage?: AppStorage;
  #log?: ChangeLog;
  /** Serialized answers of the current version. */
  answers = new AnswerMemo<string>(ANSWER_MEMO_CHARS, (json) => json.length);
  #index?: SearchIndex;
  /** Vectors of the live documents, of the embedder `#space`; absent until the first vector. */
  #vectors?: VectorIndex;
  #space?: string;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {}

  /**
   * The object's SQLite storage (replaced by `deleteStorage`: read it through here each time). Its tables are created at
   * first use, not in the constructor: a deleted object keeps no table until it is used again.
   */
  get storage(): AppStorage {
    return (this.#storage ??= new AppStorage(this.ctx.storage.sql));
  }

  /** As a primary with replicas: the documents each version changed (its tables, too, created at first use). */
  get log(): ChangeLog {
    return (this.#log ??= new ChangeLog(this.ctx.storage.sql));
  }

  /** The index if it is in memory (no load). */
  get loaded(): SearchIndex | undefined {
    return this.#index;
  }

  /** Runs `run` as one SQLite transaction. */
  transaction<T>(run: () => T): T {
    try {
      return this.ctx.storage.transactionSync(run);
    } catch (error) {
      // Rolled back: what the storage keeps in memory may hold writes SQLite no longer has.
      this.storage.forgetRemembered();
      throw error;
    }
  }

  /** The version of the live index: the sequence number of its last change. */
  version(): number {
    return this.storage.get('seq') ?? 0;
  }

  /** Documents and index change when the layout did (a shard joining a new layout); the sequence tells versions apart. */
  layout(): ShardLayout {
    return this.storage.get('layout') ?? SINGLE_SHARD;
  }

  /** This shard's layout and version. */
  view(): ShardView {
    return { layout: this.layout(), version: this.version() };
  }

  /** The in-memory index (with the vectors), loading it on first use; undefined while the app was never fed. */
  loadIndex(): SearchIndex | undefined {
    if (this.#index) return this.#index;
    const stored = this.storage.get('config');
    if (!stored) return undefined;
    const snapshot = this.storage.readSnapshot();
    if (snapshot) {
      try {
        const index = SearchIndex.load(stored, snapshot.index);
        this.#space = stored.embedder;
        this.#vectors = snapshot.vectors && VectorIndex.load(snapshot.vectors);
        for (const change of this.storage.changesSince(this.storage.get('snapshotSeq') ?? 0)) {
          if (change.payload) {
            index.add(change.id, change.payload);
            this.indexVector(change.id, change.vector);
          } else {
            index.remove(change.id);
            this.removeVector(change.id);
          }
        }
        return (this.#index = this.#withOtherShards(index));
      } catch (error) {
        this.#vectors = undefined;
        console.error(JSON.stringify({ level: 'warn', msg: 'snapshot unusable, rebuilding', error: String(error) }));
      }
    }
    return this.rebuild(stored);
  }

  /** The index, or the first, empty one of an app never fed before, built with `config`. */
  indexFor(config: AppIndexConfig): SearchIndex {
    const loaded = this.loadIndex();
    if (loaded) return loaded;
    this.storage.set('config', config);
    this.#space = config.embedder;
    return (this.#index = this.#withOtherShards(new SearchIndex(config)));
  }

  /** Fresh indexes from the stored documents and vectors, snapshotted at once so the next cold start is a load. */
  rebuild(config: AppIndexConfig): SearchIndex {
    // Let the old indexes go before the new ones grow.
    this.dropIndex();
    this.#space = config.embedder;
    const index = new SearchIndex(config);
    for (const doc of this.storage.liveDocuments()) {
      index.add(doc.id, doc.payload);
      this.indexVector(doc.id, doc.vector);
    }
    this.#index = this.#withOtherShards(index);
    this.writeSnapshot(index);
    return index;
  }

  /** Forgets the in-memory indexes (the storage under them is being replaced); the next read loads them again. */
  dropIndex(): void {
    this.#index = undefined;
    this.#vectors = undefined;
  }

  /** A shard's index scores with what the other shards held at the last exchange (`useOtherShards`). */
  #withOtherShards(index: SearchIndex): SearchIndex {
    const others = this.layout().shards > 1 ? this.storage.readOtherShards() : undefined;
    if (others) index.useOtherShards(decodeShare(others));
    return index;
  }

  /** Puts a document's stored vector in the vector index, when it is of the index's embedder. */
  indexVector(id: string, hash: string | null | undefined): void {
    this.#vectors?.remove(id);
    const stored = hash && this.#space ? this.storage.vector(hash) : undefined;
    // A vector of another embedder (fed after an embedder change) joins at the next re-index.
    if (!stored || stored.space !== this.#space) return;
    this.#vectors ??= new VectorIndex(stored.vector.length);
    if (stored.vector.length === this.#vectors.dimensions) this.#vectors.add(id, stored.vector);
  }

  /** Takes a document out of the vector index. */
  removeVector(id: string): void {
    this.#vectors?.remove(id);
  }

  /** The stored vectors (with their embedder) of these content hashes, each once; absent hashes are skipped. */
  storedVectors(hashes: Array<string | null | undefined>): Array<HashedVector & { space: string }> {
    return [...new Set(hashes.filter((hash): hash is string => !!hash))].flatMap((hash) => {
      const stored = this.storage.vector(hash);
      return stored ? [{ hash, ...stored }] : [];
    });
  }

  /** The engine's hybrid query for `semantic`, when this index has vectors of its embedder. */
  hybridQuery(semantic: SemanticSearch | undefined): HybridQuery | undefined {
    const vectors = semantic && this.#space === semantic.embedder ? this.#vectors : undefined;
    return semantic && vectors ? { vectors, vector: semantic.vector, ratio: semantic.ratio, norms: semantic.norms } : undefined;
  }

  /** Writes the snapshot of the indexes at the current version. */
  writeSnapshot(index: SearchIndex): void {
    const config: AppIndexConfig = { ...index.config, embedder: this.#space };
    this.storage.writeSnapshot({ index: index.serialize(), vectors: this.#vectors?.serialize() }, config, this.storage.get('seq') ?? 0);
  }

  /**
   * Brings the snapshot up to the current version. A version that changed no document (the other shards' share,
   * stored apart) only moves the snapshot's mark: serializing a shard's whole index holds its one thread for as long
   * as a search waits behind it, and every shard's share changes at once after a swap.
   */
  snapshotIfBehind(): void {
    const version = this.version();
    const snapshotSeq = this.storage.get('snapshotSeq') ?? 0;
    if (version <= snapshotSeq) return;
    if (!this.storage.documentsChangedAfter(snapshotSeq) && this.storage.hasSnapshot()) {
      this.storage.set('snapshotSeq', version);
      return;
    }
    const index = this.loadIndex();
    if (index) this.writeSnapshot(index);
  }

  /** Arms the snapshot of the changes just made (unless one is pending). */
  async scheduleSnapshot(): Promise<void> {
    await this.armAlarm(Date.now() + numberVar(this.env.SNAPSHOT_DELAY_SECONDS, DEFAULT_SNAPSHOT_DELAY_SECONDS) * 1000);
  }

  /** One alarm serves snapshots, recovery checks and a replica's retirement: it is moved earlier, never later. */
  async armAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** The object named `name` of the same class: a replica, or another shard. */
  object(name: string): DurableObjectStub<SearchAppObject> {
    return this.env.SEARCH_APP.get(objectId(this.env.SEARCH_APP, name));
  }

  /** Tells every replica of the new version (without waiting: feeding does not wait on replicas); forgets deleted ones. */
  notifyReplicas(): void {
    const replicas = this.storage.get('replicas');
    if (!replicas?.length) return;
    const version = this.version();
    const notices = replicas.map(async (name) => {
      try {
        if (!(await this.object(name).replicaNotify(version))) this.forgetReplica(name);
      } catch (error) {
        console.error(JSON.stringify({ level: 'warn', msg: 'replica notice failed', replica: name, error: String(error) }));
      }
    });
    this.ctx.waitUntil(Promise.all(notices));
  }

  /** Stops telling a replica that follows no more (it was deleted); the log stops with the last replica. */
  forgetReplica(name: string): void {
    const kept = (this.storage.get('replicas') ?? []).filter((replica) => replica !== name);
    this.storage.set('replicas', kept.length ? kept : undefined);
    if (!kept.length) this.log.stop();
  }

  /**
   * Deletes the storage (the tables too: SQLite-backed `deleteAll`) and the alarm, and forgets the in-memory state; the
   * tables come back, empty, only when the object is used again.
   */
  async deleteStorage(): Promise<void> {
    this.dropIndex();
    // Versions start again from 0: answers remembered for the old ones must not answer for the new.
    this.answers = new AnswerMemo<string>(ANSWER_MEMO_CHARS, (json) => json.length);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.#storage = undefined;
    this.#log = undefined;
  }
}
