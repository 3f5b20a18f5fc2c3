/**
 * The replica side of read replication: a search app object that follows a primary. It copies the primary's
 * snapshot and documents once (and again after the primary replaced its whole index, or when it fell behind the
 * primary's change log), then applies the documents each new version changed. Until a copy is complete and caught
 * up the replica answers nothing itself (`ready` is false), so it never serves a half-copied or half-swapped index.
 *
 * Syncing is started by the primary's notice of a new version and by a read that found the replica behind; one
 * sync runs at a time and goes on until the replica reached every version it heard of.
 */
import type { AppStorage, DocumentRow } from './app-storage';
import type { ChangePage } from './change-log';
import type { AppIndexConfig } from './app-object/live-index';
import type { SearchAppObject } from './search-app-object';
import type { ShardLayout } from './shards';

/**
 * Documents per copied page and changed documents per catch-up page: well below RPC's 32 MiB, and small enough that
 * the primary's part of a page (a read of its rows) and the replica's (their writes) hold either thread for tens of
 * milliseconds, so a search waits at most that long behind one page.
 */
export const REPLICA_PAGE = 500;

/** Who a replica is: its primary's object name and its own (under which the primary notifies it). */
export interface ReplicaIdentity {
  primary: string;
  name: string;
}

/**
 * What a primary hands a replica that starts a copy: the version, its shard layout, configuration and snapshot
 * (none while never fed): the keyword index's bytes and the vector index's, when the app has vectors.
 */
export interface ReplicaSource {
  version: number;
  /** A shard's replica answers for the shard's layout (a cross-shard swap changes it, and makes replicas copy again). */
  layout: ShardLayout;
  config?: AppIndexConfig;
  snapshot?: ReadableStream<Uint8Array>;
  /** A shard's copy of what the other shards hold (`useOtherShards`), so the replica scores as its primary. */
  others?: Uint8Array;
  vectors?: ReadableStream<Uint8Array>;
}

/** What the follower needs from its object. */
export interface ReplicaHost {
  /** The object's storage (a function: `destroy` replaces it). */
  storage(): AppStorage;
  transaction<T>(run: () => T): T;
  primary(name: string): DurableObjectStub<SearchAppObject>;
  /** Forgets the in-memory index: the storage under it is being replaced. */
  dropIndex(): void;
  /** Stores a page of changes at its version and applies it to the in-memory index (inside a transaction). */
  applyChanges(page: ChangePage): void;
  /** Arms the snapshot of the changes just applied. */
  changed(): Promise<void>;
  /** Loads the index in the background (a copy was just made and caught up). */
  warm(): void;
  waitUntil(promise: Promise<unknown>): void;
}

export class ReplicaFollower {
  #sync?: Promise<void>;
  /** The newest primary version this replica heard of. */
  #target = 0;

  constructor(private readonly host: ReplicaHost) {}

  /** The primary followed, once the object was asked to be a replica. */
  get identity(): ReplicaIdentity | undefined {
    return this.host.storage().get('replicaOf');
  }

  /** The primary version this replica has applied. */
  get version(): number {
    return this.host.storage().get('seq') ?? 0;
  }

  /** Whether the replica may answer a read that must see at least `minVersion`. */
  ready(minVersion: number): boolean {
    return this.identity !== undefined && !this.host.storage().get('replicaLoading') && this.version >= minVersion;
  }

  /** Makes the object a replica of `identity` (a first read names it): it starts as a copy still to be made. */
  follow(identity: ReplicaIdentity): void {
    if (this.identity) return;
    this.host.storage().set('replicaOf', identity);
    this.host.storage().set('replicaLoading', true);
  }

  /** The primary is at `version` (its notice, or a read that needs it): sync unless a sync is running. */
  heard(version: number): void {
    this.#target = Math.max(this.#target, version);
    if (this.#sync) return;
    this.#sync = this.#run()
      .catch((error: unknown) => {
        console.error(JSON.stringify({ level: 'warn', msg: 'replica sync failed', replica: this.identity?.name, error: String(error) }));
      })
      .finally(() => (this.#sync = undefined));
    this.host.waitUntil(this.#sync);
  }

  /** The object is being deleted: stop following. */
  forget(): void {
    this.#target = 0;
  }

  async #run(): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    const primary = this.host.primary(identity.primary);
    let copied = false;
    // Each round checks the object is still a replica: `destroy` may have wiped it meanwhile.
    while (this.identity) {
      if (this.host.storage().get('replicaLoading')) {
        await this.#copy(primary, identity);
        copied = true;
      }
      // RPC typing cannot express document payloads (`Record<string, unknown>`).
      const page = (await primary.replicaChanges(this.version, REPLICA_PAGE)) as ChangePage | null;
      if (!page) {
        // Behind the change log's floor (a swap, a re-index or a long absence): copy again.
        this.#write(() => this.host.storage().set('replicaLoading', true));
        continue;
      }
      const applied = this.#write(() => {
        this.host.applyChanges(page);
        this.host.storage().set('replicaLoading', undefined);
      });
      if (!applied) return;
      await this.host.changed();
      if (page.version >= page.primaryVersion && page.version >= this.#target) {
        if (copied) this.host.warm();
        return;
      }
    }
  }

  /** Writes to the copy in one transaction, unless the object stopped being a replica (`destroy`) while the sync awaited. */
  #write(run: () => void): boolean {
    if (!this.identity) return false;
    this.host.transaction(run);
    return true;
  }

  /** Copies the primary's snapshot and every document row; the change log then brings the copy to one version. */
  async #copy(primary: DurableObjectStub<SearchAppObject>, identity: ReplicaIdentity): Promise<void> {
    this.host.transaction(() => this.host.storage().clearIndexedState());
    this.host.dropIndex();
    const source = (await primary.replicaSnapshot(identity.name)) as ReplicaSource;
    const snapshot = source.snapshot && (await bytesOf(source.snapshot));
    const vectors = source.vectors && (await bytesOf(source.vectors));
    for (let after = ''; ;) {
      const asked = Date.now();
      const rows: DocumentRow[] = await primary.replicaDocuments(after, REPLICA_PAGE);
      if (!this.#write(() => this.host.storage().putRows(rows))) return;
      if (rows.length < REPLICA_PAGE) break;
      after = rows[rows.length - 1].id;
      // Paced: as long as the page took (its round trip, queueing included) before the next, so copies take at most
      // about half of a busy primary's time and back off the more its searches queue.
      await new Promise((resolve) => setTimeout(resolve, Date.now() - asked));
    }
    this.#write(() => {
      if (source.config && snapshot) this.host.storage().writeSnapshot({ index: snapshot, vectors }, source.config, source.version);
      this.host.storage().set('seq', source.version);
      this.host.storage().set('layout', source.layout);
      this.host.storage().writeOtherShards(source.others);
    });
    // A stats call or an alarm may have loaded the index from the half-copied storage meanwhile.
    this.host.dropIndex();
  }
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
