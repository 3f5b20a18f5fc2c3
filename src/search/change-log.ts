/**
 * The change log of a primary index object with read replicas: which documents each index version changed,
 * in version order, so a replica at version V catches up by reading the documents changed after V. A version
 * that replaces the whole index (a full-feed swap, a re-index, the first batch of a new index) empties the log
 * and raises its floor: a replica older than the floor loads the snapshot again. A shard's statistics exchange
 * (`useOtherShards`) changes no document: it is not logged, a change page carries the new share instead.
 *
 * The log is bounded: beyond `LOG_MAX_ENTRIES` rows the oldest versions go (never one newer than the snapshot,
 * from which a loading replica catches up), raising the floor. It is kept only while the object has replicas.
 */

import type { DocumentPayload } from './engine/types';

/** Rows kept (one per document and version): a replica further behind reloads the snapshot. */
const LOG_MAX_ENTRIES = 100_000;

/** Documents changed after a version, as a replica applies them: `payload` undefined = deleted. */
export interface ChangePage {
  /** The version the replica is at once it applied these changes (a document may already be in a newer state). */
  version: number;
  /** The primary's version when it answered; the replica asks again while `version` is below it. */
  primaryVersion: number;
  /**
   * `op`: the document's newest operation id (sharded searches order equal scores by it); `vector`: the content hash
   * of its vector, found in `vectors`.
   */
  changes: Array<{ id: string; op: number; payload?: DocumentPayload; vector?: string }>;
  /** The vectors of the changed documents, with the fingerprint of the embedder that made each. */
  vectors: Array<{ hash: string; space: string; vector: Float32Array }>;
  /**
   * A shard's current copy of what the other shards hold (encoded `StatisticsShare`), when an exchange changed it after
   * the replica's version: a version that changed no document, so the log has no row of it.
   */
  others?: Uint8Array;
}

export class ChangeLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS change_log (version INTEGER NOT NULL, id TEXT NOT NULL, PRIMARY KEY (version, id));
      CREATE TABLE IF NOT EXISTS change_log_floor (floor INTEGER NOT NULL);
    `);
  }

  /** Replicas at or above this version can catch up from the log; -1 when nothing is logged. */
  get floor(): number {
    return this.sql.exec<{ floor: number }>('SELECT floor FROM change_log_floor').toArray()[0]?.floor ?? -1;
  }

  /** Whether changes are being logged (the object has replicas). */
  get active(): boolean {
    return this.floor >= 0;
  }

  /** Starts (or restarts) the log at `version`: catching up is possible from there on. */
  reset(version: number): void {
    this.sql.exec('DELETE FROM change_log');
    this.sql.exec('DELETE FROM change_log_floor');
    this.sql.exec('INSERT INTO change_log_floor (floor) VALUES (?)', version);
  }

  /** Stops logging (the object has no replicas any more). */
  stop(): void {
    this.sql.exec('DELETE FROM change_log');
    this.sql.exec('DELETE FROM change_log_floor');
  }

  /** Records the documents a version changed, then trims the oldest versions not newer than `snapshotVersion`. */
  record(version: number, ids: Iterable<string>, snapshotVersion: number): void {
    for (const id of ids) this.sql.exec('INSERT OR IGNORE INTO change_log (version, id) VALUES (?, ?)', version, id);
    const excess = this.sql.exec<{ n: number }>('SELECT count(*) AS n FROM change_log').one().n - LOG_MAX_ENTRIES;
    if (excess <= 0) return;
    const cut = this.sql.exec<{ version: number }>('SELECT version FROM change_log ORDER BY version LIMIT 1 OFFSET ?', excess - 1).one();
    const upTo = Math.min(cut.version, snapshotVersion);
    if (upTo <= this.floor) return;
    this.sql.exec('DELETE FROM change_log WHERE version <= ?', upTo);
    this.sql.exec('UPDATE change_log_floor SET floor = ?', upTo);
  }

  /**
   * Ids of the documents changed after `since`, whole versions at a time up to about `limit` ids, and the version
   * they reach; undefined when `since` is below the floor (the replica must reload).
   */
  changedSince(since: number, limit: number, current: number): { ids: string[]; upTo: number } | undefined {
    if (!this.active || since < this.floor) return undefined;
    const last = this.sql
      .exec<{ version: number }>('SELECT version FROM change_log WHERE version > ? ORDER BY version LIMIT 1 OFFSET ?', since, limit - 1)
      .toArray()[0];
    const upTo = last?.version ?? current;
    const ids = this.sql
      .exec<{ id: string }>('SELECT DISTINCT id FROM change_log WHERE version > ? AND version <= ?', since, upTo)
      .toArray()
      .map((row) => row.id);
    return { ids, upTo };
  }
}
