/**
 * Read replication of a search app's Durable Object, both sides: as a primary it hands replicas a snapshot, its
 * document rows and the changes of each version, and keeps the list of its replicas; as a replica it follows its
 * primary (`ReplicaFollower`) and answers only when its copy is complete and recent enough. A deleted replica keeps
 * a retirement mark for a while so that reads still sent there do not make it a copy again.
 */
import type { DocumentRow } from '../app-storage';
import type { ChangePage } from '../change-log';
import { decodeShare } from '../engine';
import type { DocumentPayload } from '../engine/types';
import { ReplicaFollower, REPLICA_PAGE, type ReplicaIdentity, type ReplicaSource } from '../replica-follower';
import { regionOfReplica } from '../replica-regions';
import type { LiveIndex } from './live-index';

/**
 * How long a deleted replica refuses to follow its primary again: longer than a worker isolate keeps an app's row
 * (`SEARCH_APP_TTL_MS`, 10 s), whose replica regions may still send reads there. Then its alarm deletes the mark.
 */
const REPLICA_RETIREMENT_MS = 60_000;

/** The primary's and the replica's side of read replication for one object. */
export class Replication {
  /** As a replica: the copy of the primary and its catching up. */
  readonly #follower: ReplicaFollower;
  /** As a replica: the load of its index, begun after the read that found it not loaded. */
  #loading?: Promise<void>;

  constructor(private readonly live: LiveIndex) {
    this.#follower = new ReplicaFollower({
      storage: () => live.storage,
      transaction: (run) => live.transaction(run),
      primary: (name) => live.object(name),
      dropIndex: () => live.dropIndex(),
      applyChanges: (page) => this.#applyChanges(page),
      changed: () => live.scheduleSnapshot(),
      warm: () => this.#loadSoon(),
      waitUntil: (promise) => live.ctx.waitUntil(promise),
    });
  }

  // ---------------------------------------------------------------- the primary's side

  /**
   * Registers a replica (by its object name) and hands it what its copy starts from: the current version, the
   * configuration and a snapshot of exactly that version (written now when the last one is older). From here on
   * every version's changes are logged and the replica is told of each new version.
   */
  snapshot(replica: string): ReplicaSource {
    const { live } = this;
    const storage = live.storage;
    const version = live.version();
    const layout = live.layout();
    live.snapshotIfBehind();
    const index = live.loadIndex();
    const replicas = storage.get('replicas') ?? [];
    if (!replicas.includes(replica)) storage.set('replicas', [...replicas, replica]);
    if (!live.log.active || live.log.floor > version) live.log.reset(version);
    const snapshot = index && storage.readSnapshot();
    return {
      version,
      layout,
      config: index && storage.get('config'),
      snapshot: snapshot && new Blob([snapshot.index]).stream(),
      others: storage.readOtherShards(),
      vectors: snapshot?.vectors && new Blob([snapshot.vectors]).stream(),
    };
  }

  /** A page of document rows (tombstones too) in id order after `after`, for a replica's copy. */
  documents(after: string, limit: number): DocumentRow[] {
    return this.live.storage.documentRowsAfter(after, Math.min(limit, REPLICA_PAGE));
  }

  /**
   * The documents changed after version `since`, in their current state, and the other shards' statistics share when
   * an exchange changed it since; null when the change log no longer reaches back that far.
   */
  changes(since: number, limit: number): ChangePage | null {
    const { live } = this;
    const version = live.version();
    const found = live.log.changedSince(since, Math.min(limit, REPLICA_PAGE), version);
    if (!found) return null;
    const rows = new Map(live.storage.documentRowsOf(found.ids).map((row) => [row.id, row]));
    const changes = found.ids.map((id) => {
      const row = rows.get(id);
      // No row: a deletion whose tombstone a snapshot dropped since.
      if (!row?.payload) return { id, op: row?.op ?? 0 };
      return { id, op: row.op, payload: JSON.parse(row.payload) as DocumentPayload, vector: row.vector ?? undefined };
    });
    const vectors = live.storedVectors(changes.map((change) => change.vector));
    // The share as it is now, like the documents: never older than the version the page reaches.
    const others = (live.storage.get('othersSeq') ?? 0) > since ? live.storage.readOtherShards() : undefined;
    return { version: found.upTo, primaryVersion: version, changes, vectors, ...(others ? { others } : {}) };
  }

  /** Keeps the replicas of these regions and deletes the others (the app's replica setting changed). */
  async retain(regions: string[]): Promise<void> {
    const storage = this.live.storage;
    const replicas = storage.get('replicas') ?? [];
    const kept = replicas.filter((name) => regions.includes(regionOfReplica(name) ?? ''));
    storage.set('replicas', kept.length ? kept : undefined);
    if (!kept.length) this.live.log.stop();
    await Promise.all(replicas.filter((name) => !kept.includes(name)).map((name) => this.live.object(name).destroy()));
  }

  /** Deletes every replica of this object (the object itself is being deleted). */
  async destroyReplicas(): Promise<void> {
    await Promise.all((this.live.storage.get('replicas') ?? []).map((name) => this.live.object(name).destroy()));
  }

  // ---------------------------------------------------------------- the replica's side

  /** Whether this object is a replica (it follows a primary). */
  get isReplica(): boolean {
    return this.#follower.identity !== undefined;
  }

  /**
   * Whether this replica's copy is complete, at `minVersion` and its index in memory; when behind, it syncs, and when
   * not loaded (after its copy or an eviction) it loads once this read was handed back: the primary answers meanwhile
   * rather than the read waiting for the load. The first read names its primary.
   */
  serves(identity: ReplicaIdentity, minVersion: number): boolean {
    if (this.live.storage.get('retiredUntil') !== undefined) return false;
    this.#follower.follow(identity);
    if (!this.#follower.ready(minVersion)) {
      this.#follower.heard(minVersion);
      return false;
    }
    // Never fed: there is no index to load.
    if (this.live.loaded || !this.live.storage.get('config')) return true;
    this.#loadSoon();
    return false;
  }

  /** Loads the replica's index after the current call has answered (once; not while a copy is incomplete). */
  #loadSoon(): void {
    const { live } = this;
    this.#loading ??= new Promise((resolve) => setTimeout(resolve, 0))
      .then(() => {
        if (!live.storage.get('replicaLoading')) live.loadIndex();
      })
      .finally(() => (this.#loading = undefined));
    live.ctx.waitUntil(this.#loading);
  }

  /** The primary's notice of a new version; false when this object follows no primary (it was deleted). */
  notify(version: number): boolean {
    if (!this.#follower.identity) return false;
    this.#follower.heard(version);
    return true;
  }

  /** Forgets the sync in progress (the storage is being deleted). */
  forget(): void {
    this.#follower.forget();
  }

  /** Marks a deleted replica as retired for `REPLICA_RETIREMENT_MS`, after which its alarm deletes the mark. */
  async retire(): Promise<void> {
    const until = Date.now() + REPLICA_RETIREMENT_MS;
    this.live.storage.set('retiredUntil', until);
    await this.live.ctx.storage.setAlarm(until);
  }

  /** Stores a page of the primary's changes at its version and applies it to the index when loaded (a load replays them). */
  #applyChanges(page: ChangePage): void {
    const { live } = this;
    const storage = live.storage;
    const index = live.loaded;
    for (const { hash, space, vector } of page.vectors) storage.putVectors(space, [{ hash, vector }]);
    for (const { id, op, payload, vector } of page.changes) {
      if (payload) {
        storage.put(id, payload, op, page.version, vector ?? null);
        index?.add(id, payload);
        if (index) live.indexVector(id, vector);
      } else {
        storage.markDeleted(id, op, page.version);
        index?.remove(id);
        live.removeVector(id);
      }
    }
    if (page.others) {
      storage.writeOtherShards(page.others);
      index?.useOtherShards(decodeShare(page.others));
    }
    storage.set('seq', page.version);
  }
}
