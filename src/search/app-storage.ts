/**
 * The SQLite storage of one search app's Durable Object: its documents (the source of truth of the
 * indexed state), documents staged by an active full feed, the index snapshot in chunks, and metadata.
 * Each applied batch of changes takes the next sequence number, stored on every document it changed; a
 * snapshot records the sequence it covers, so a cold start loads the snapshot and replays only the
 * documents of newer batches. Deleted documents stay as tombstones until a snapshot covered them an hour ago.
 * Document vectors are stored once per content hash (`vectors`), referenced by the documents whose
 * semantic text has that hash; the vector index is snapshotted beside the keyword index.
 */
import type { DocumentPayload } from './engine/types';
import type { ReplicaIdentity } from './replica-follower';
import type { AppIndexConfig } from './app-object/live-index';
import type { ShardLayout } from './shards';

/** SQLite rows are limited to 2 MB; snapshot chunks stay well below. */
const CHUNK_BYTES = 1 << 20;

export interface FullFeedCycle {
  id: number;
  state: 'ACTIVE' | 'ENDING';
  startedAt: string;
  endRequestedAt?: string;
  /** The shards the cycle stages into (the app's `shards` setting when it started); absent: 1. */
  shards?: number;
}

/** A cross-shard swap this shard voted for: the cycle whose staged documents go live, as which layout, built how. */
export interface PreparedSwap {
  cycleId: number;
  layout: ShardLayout;
  config: AppIndexConfig;
  /**
   * The live layout the swap replaces, in the coordinator's (shard 0's) vote only: committing, shard 0 records what must
   * follow its commit (`UnsettledSwap`) until that was done.
   */
  from?: ShardLayout;
  /**
   * In shard 0's vote only: every shard voted and the swap was decided (`decideSwap`), before any shard commits: from
   * then on the cycle can no longer be cancelled or failed, only committed.
   */
  decided?: boolean;
  /** When shard 0 decided it (epoch ms): a move its job left uncommitted `DECIDED_MOVE_COMMIT_MS` later, shard 0 commits. */
  decidedAt?: number;
  /**
   * In a move's swap: the attempt (its `Reshard.startedAt`) whose job asks for the vote, which a shard that began the move
   * again since refuses; in the vote, that attempt, so that a vote an attempt that died left behind never counts for its
   * retry, and when it was cast (epoch ms): shard 0 decides a move nobody decided `VOTED_MOVE_DECIDE_MS` after its own
   * vote once every shard holds a vote of that attempt.
   */
  attempt?: number;
  votedAt?: number;
  /**
   * In a move's vote request to a shard its rows came from: that shard's sequence when the last catch-up began. A row
   * changed there since (its seal lapsed before the vote: a slow job) may be missing from the staging, which the commit
   * makes live in place of the shard's rows; the shard refuses, so the move fails and the write stays.
   */
  caughtUp?: number;
}

/**
 * A cross-shard swap shard 0 committed (it commits last) whose follow-up was not done yet: the shards `from` had and
 * `layout` drops destroyed, the statistics of `layout`'s shards exchanged. Whoever committed may have stopped before
 * (a job that died, a search that committed the shards behind): the next recovery check does it (`settleSwap`).
 */
export interface UnsettledSwap {
  from: ShardLayout;
  layout: ShardLayout;
}

/**
 * A cycle over several shards that shard 0 ended without a swap (cancelled or failed), while the other shards may not
 * have heard: the next recovery check has shards 1 to `shards` − 1 drop what they hold of ended cycles
 * (`SearchAppClient.settleEndedCycles`). `shards`: the most shards of the cycles ended so since the last check.
 */
export interface UnsettledEnd {
  cycleId: number;
  shards: number;
}

/**
 * Documents moving to a new shard count (a re-index job): staged in every shard of the new layout under `id` (negative,
 * so never a full-feed cycle's), then swapped in as a full feed's are.
 */
export interface Reshard {
  id: number;
  shards: number;
  /** The re-index job moving them, and when it began (epoch ms): another job may take over only after RESHARD_LEASE_MS. */
  job: string;
  startedAt: number;
  /**
   * Shard 0's object name: a shard that voted for the swap asks it, once the lease lapsed, whether the swap can still
   * happen (`Reindexing.expire`). Absent in a move begun before it was recorded: such a shard keeps what it staged.
   */
  coordinator?: string;
}

/** What became of a re-shard's swap, as its coordinator knows: made live, still undecided, or never to happen. */
export type ReshardFate = 'committed' | 'pending' | 'abandoned';

/** A re-shard not finished after this long was abandoned (a queue consumer runs 15 minutes at most). */
export const RESHARD_LEASE_MS = 15 * 60_000;

/**
 * A move shard 0 decided this long ago and has not committed, it commits itself (its alarm, or a shard asking it):
 * its job died while committing, or is slow, and committing twice is harmless, while live feeding waits on the voters.
 */
export const DECIDED_MOVE_COMMIT_MS = 30_000;

/**
 * A move shard 0 voted for this long ago and nobody decided, shard 0 decides itself when every shard of the new layout
 * holds a vote of the same attempt (its job died between the votes and the decision, or is slow: deciding is the job's
 * next step, and a decided move is only ever committed); while a vote is missing it looks again as long after, until the
 * lease lapses.
 */
export const VOTED_MOVE_DECIDE_MS = 30_000;

/** The re-shard in progress in this storage, if any: one begun less than RESHARD_LEASE_MS ago. */
export function activeReshard(storage: AppStorage): Reshard | undefined {
  const reshard = storage.get('reshard');
  return reshard && Date.now() - reshard.startedAt < RESHARD_LEASE_MS ? reshard : undefined;
}

/** A full feed that could not end: its staged documents were discarded, the live index kept. */
export interface FailedCycle {
  id: number;
  reason: string;
  failedAt: string;
}

/**
 * A tombstone stays this long after a snapshot covered it: an older operation of its document arriving late (a recovery
 * re-send, a retried message) finds it and is IGNORED instead of bringing the document back. Longer than an entry stays
 * open (it is re-sent for about 21 minutes, then given up).
 */
const TOMBSTONE_MS = 60 * 60_000;

interface Meta {
  config: AppIndexConfig;
  seq: number;
  snapshotSeq: number;
  /** The version of each snapshot written within the last `TOMBSTONE_MS`, and of the newest before, with when (epoch ms). */
  snapshotsAt: Array<{ seq: number; at: number }>;
  /** The version at which the other shards' statistics share was last stored: change pages after it carry the share. */
  othersSeq: number;
  cycle: FullFeedCycle;
  lastCycleId: number;
  failedCycle: FailedCycle;
  /** The D1 id of the search app, learnt from the first accepted operation (recovery names the app by it). */
  appId: number;
  /** When the next feeding recovery check is due (epoch ms); absent while the app has no open entries. */
  recoveryAt: number;
  /** The shards of the app's live index and its generation; absent: one shard, generation 0. */
  layout: ShardLayout;
  /** The cycle, or move (negative id), whose swap made `layout` live: a voter of a lapsed move asks whether it was this one. */
  liveCycle: number;
  /** The swap this shard is prepared for (phase 1 of a cross-shard full-feed swap). */
  ready: PreparedSwap;
  /** As shard 0: the last cross-shard swap, while what follows its commit is not done. */
  unsettledSwap: UnsettledSwap;
  /** As shard 0: a cycle over several shards it ended without a swap, while the other shards may hold it still. */
  unsettledEnd: UnsettledEnd;
  /** A primary's read replicas (their object names), told of every new index version. */
  replicas: string[];
  /** A replica's primary and its own name. */
  replicaOf: ReplicaIdentity;
  /** A replica is copying its primary's snapshot and documents: its storage is incomplete until this is cleared. */
  replicaLoading: boolean;
  /** A deleted replica follows no primary again until this time (epoch ms), when its alarm wipes this mark too. */
  retiredUntil: number;
  /** A re-index job moving the documents to a new shard count: what this shard stages them under, and the count. */
  reshard: Reshard;
  /** Live feeding waits (its batches fail and are retried) until this time (epoch ms): a re-shard's last catch-up. */
  sealedUntil: number;
  /**
   * A move that drops this shard (it never votes), from its last catch-up until the move's fate is known: its seal may
   * lapse while the swap is decided but not committed, and a live write here would go with the shard.
   */
  leaving: Leaving;
  /** Ids of the last cycles that were swapped in (the others ended cancelled or failed), newest last. */
  swappedCycles: number[];
  /** As shard 0: the most shards a full feed or move of the app staged into (`FullFeeds.shardsUsed`). */
  shardsUsed: number;
  /**
   * The newest operation id of a tombstone a snapshot here dropped, or a move brought from the shard it moved from: a
   * live operation not newer, of a document without a row, was accepted over `TOMBSTONE_MS` ago and may be older than its
   * document's dropped delete (`Feeding.apply` refuses it).
   */
  droppedUpTo: number;
}

/** A move dropping this shard: its id, its coordinator (shard 0's object name) and the layout it makes live. */
export interface Leaving {
  id: number;
  coordinator: string;
  layout: ShardLayout;
}

/** An operation a shard refuses (given up while it did not hold it), and when it was refused (epoch ms). */
export type RefusedOp = {
  op: number;
  at: number;
};

/** A row of the documents table as a replica copies it: a tombstone has no payload; `vector`: its vector's content hash. */
export type DocumentRow = {
  id: string;
  payload: string | null;
  seq: number;
  op: number;
  vector: string | null;
};

export interface StoredDocument {
  id: string;
  payload: DocumentPayload;
  /** Content hash of the document's vector, when it has one. */
  vector?: string;
}

/** A document vector under its content hash, as the feeding consumer computed it. */
export interface HashedVector {
  hash: string;
  vector: Float32Array;
}

/** The index snapshot: the keyword index's bytes and, when the app has vectors, the vector index's. */
export interface Snapshot {
  index: Uint8Array;
  vectors?: Uint8Array;
}

/** Vectors as SQLite blobs: float32, little-endian as in memory. */
function toBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

type ChunkTable = 'snapshot_chunks' | 'vector_chunks' | 'others_chunks';

/** Meta values every search reads (the version, the layout): kept in memory once read or written. */
const REMEMBERED_META: ReadonlySet<keyof Meta> = new Set(['seq', 'layout']);
/** Live payloads kept in memory, the most recently read (a few MB): the hits of recurring searches are not read from SQLite again. */
const REMEMBERED_PAYLOADS = 1_000;
/**
 * Live and staged document counts kept by triggers, so that a full feed's status reads a row instead of scanning
 * every document. Writes to `documents` replace rows (`INSERT OR REPLACE`, whose implicit delete fires no trigger),
 * so the count first takes out the row being replaced; deleting live documents wholesale resets the count in code.
 * Staging upserts (insert or update); a cycle's count goes with its staged rows (`discardStaged`).
 */
const DOCUMENT_COUNTS = `
  CREATE TABLE IF NOT EXISTS live_count (n INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS staged_counts (cycle INTEGER PRIMARY KEY, n INTEGER NOT NULL);
  CREATE TRIGGER IF NOT EXISTS documents_count_replaced BEFORE INSERT ON documents BEGIN
    UPDATE live_count SET n = n - (SELECT count(*) FROM documents WHERE id = NEW.id AND payload IS NOT NULL);
  END;
  CREATE TRIGGER IF NOT EXISTS documents_count_inserted AFTER INSERT ON documents WHEN NEW.payload IS NOT NULL BEGIN
    UPDATE live_count SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS staged_count_inserted AFTER INSERT ON staged WHEN NEW.payload IS NOT NULL BEGIN
    INSERT INTO staged_counts (cycle, n) VALUES (NEW.cycle, 1) ON CONFLICT (cycle) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS staged_count_updated AFTER UPDATE OF payload ON staged
    WHEN (OLD.payload IS NULL) != (NEW.payload IS NULL) BEGIN
    INSERT INTO staged_counts (cycle, n) VALUES (NEW.cycle, CASE WHEN NEW.payload IS NULL THEN -1 ELSE 1 END)
      ON CONFLICT (cycle) DO UPDATE SET n = n + excluded.n;
  END;`;

export class AppStorage {
  /** `REMEMBERED_META` values as stored (JSON text; null: absent). */
  readonly #meta = new Map<keyof Meta, string | null>();
  /** Parsed live payloads read lately, least recently used first; a write of a document forgets it. */
  readonly #payloads = new Map<string, DocumentPayload>();

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`
      CREATE TABLE IF NOT EXISTS documents (id TEXT PRIMARY KEY, payload TEXT, seq INTEGER NOT NULL, op INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX IF NOT EXISTS documents_seq ON documents (seq);
      CREATE TABLE IF NOT EXISTS staged (cycle INTEGER NOT NULL, id TEXT NOT NULL, payload TEXT, op INTEGER NOT NULL, PRIMARY KEY (cycle, id));
      CREATE TABLE IF NOT EXISTS snapshot_chunks (n INTEGER PRIMARY KEY, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, space TEXT NOT NULL, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS vector_chunks (n INTEGER PRIMARY KEY, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS others_chunks (n INTEGER PRIMARY KEY, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS refused_ops (op INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    `);
    // Objects created before vectors existed gain the column that references them.
    for (const table of ['documents', 'staged']) {
      const columns = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).toArray();
      if (!columns.some((c) => c.name === 'vector')) sql.exec(`ALTER TABLE ${table} ADD COLUMN vector TEXT`);
    }
    const counted = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'live_count'").toArray().length > 0;
    if (!counted) {
      // A new object, or one stored before the counts: count once what it holds.
      sql.exec(DOCUMENT_COUNTS);
      sql.exec('INSERT INTO live_count (n) SELECT count(*) FROM documents WHERE payload IS NOT NULL');
      sql.exec('INSERT INTO staged_counts (cycle, n) SELECT cycle, count(*) FROM staged WHERE payload IS NOT NULL GROUP BY cycle');
    }
  }

  get<K extends keyof Meta>(key: K): Meta[K] | undefined {
    let text = this.#meta.get(key);
    if (text === undefined) {
      text = this.sql.exec<{ value: string }>('SELECT value FROM meta WHERE key = ?', key).toArray()[0]?.value ?? null;
      if (REMEMBERED_META.has(key)) this.#meta.set(key, text);
    }
    // Parsed on every read: a caller may change the value it gets.
    return text === null ? undefined : (JSON.parse(text) as Meta[K]);
  }

  set<K extends keyof Meta>(key: K, value: Meta[K] | undefined): void {
    const text = value === undefined ? null : JSON.stringify(value);
    if (text === null) this.sql.exec('DELETE FROM meta WHERE key = ?', key);
    else this.sql.exec('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', key, text);
    if (REMEMBERED_META.has(key)) this.#meta.set(key, text);
  }

  /**
   * Forgets what this storage keeps in memory of its tables: after a transaction rolled back, its writes are gone
   * from SQLite but not from memory.
   */
  forgetRemembered(): void {
    this.#meta.clear();
    this.#payloads.clear();
  }

  nextSeq(): number {
    const seq = (this.get('seq') ?? 0) + 1;
    this.set('seq', seq);
    return seq;
  }

  // ---------------------------------------------------------------- live documents

  document(id: string): DocumentPayload | undefined {
    const row = this.sql.exec<{ payload: string | null }>('SELECT payload FROM documents WHERE id = ?', id).toArray()[0];
    return row?.payload ? (JSON.parse(row.payload) as DocumentPayload) : undefined;
  }

  /**
   * Payloads of the live documents among `ids`, by id (not in the order asked), from memory when read lately. They
   * are shared with later reads: callers must not change them.
   */
  documents(ids: string[]): Map<string, DocumentPayload> {
    const found = new Map<string, DocumentPayload>();
    const missing: string[] = [];
    for (const id of ids) {
      const payload = this.#payloads.get(id);
      if (payload === undefined) missing.push(id);
      else {
        found.set(id, payload);
        // Map order is insertion order: re-inserting makes this the most recently used.
        this.#payloads.delete(id);
        this.#payloads.set(id, payload);
      }
    }
    if (!missing.length) return found;
    const rows = this.sql.exec<{ id: string; payload: string }>(
      'SELECT id, payload FROM documents WHERE id IN (SELECT value FROM json_each(?)) AND payload IS NOT NULL',
      JSON.stringify(missing),
    );
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as DocumentPayload;
      found.set(row.id, payload);
      this.#payloads.set(row.id, payload);
    }
    for (const oldest of this.#payloads.keys()) {
      if (this.#payloads.size <= REMEMBERED_PAYLOADS) break;
      this.#payloads.delete(oldest);
    }
    return found;
  }

  /** The newest operation id applied to a document (live or deleted), 0 when none. */
  lastOp(id: string): number {
    return this.sql.exec<{ op: number }>('SELECT op FROM documents WHERE id = ?', id).toArray()[0]?.op ?? 0;
  }

  /** The operation id a full-feed cycle staged for a document, 0 when none. */
  stagedOp(cycle: number, id: string): number {
    return this.sql.exec<{ op: number }>('SELECT op FROM staged WHERE cycle = ? AND id = ?', cycle, id).toArray()[0]?.op ?? 0;
  }

  /**
   * Operations given up while this shard held none of them (`Feeding.holdOperations`): refused from now on, so a delivery
   * already under way cannot apply one after its entry was decided. Kept `TOMBSTONE_MS` (with the tombstones).
   */
  refuseOps(refusals: RefusedOp[]): void {
    for (const { op, at } of refusals) this.sql.exec('INSERT OR IGNORE INTO refused_ops (op, at) VALUES (?, ?)', op, at);
  }

  /** Takes back refusals (an entry given up that stays open: a re-send may still complete it). */
  releaseOps(ops: number[]): void {
    this.sql.exec('DELETE FROM refused_ops WHERE op IN (SELECT value FROM json_each(?))', JSON.stringify(ops));
  }

  /** Raises the dropped tombstones' horizon (`droppedUpTo`) to `op`. */
  raiseDroppedUpTo(op: number): void {
    if (op > (this.get('droppedUpTo') ?? 0)) this.set('droppedUpTo', op);
  }

  /** Which of these operations are refused. */
  refusedAmong(ops: number[]): Set<number> {
    const rows = this.sql.exec<{ op: number }>(
      'SELECT op FROM refused_ops WHERE op IN (SELECT value FROM json_each(?))',
      JSON.stringify(ops),
    );
    return new Set(rows.toArray().map((row) => row.op));
  }

  /** Every refusal, with when it was made (a move hands them to the new layout's shards). */
  refusals(): RefusedOp[] {
    return this.sql.exec<RefusedOp>('SELECT op, at FROM refused_ops').toArray();
  }

  /** Stores a document as changed at `seq` (one sequence number serves a whole applied batch), with its vector's hash. */
  put(id: string, payload: DocumentPayload, op: number, seq: number, vector: string | null = null): void {
    this.#payloads.delete(id);
    this.sql.exec(
      'INSERT OR REPLACE INTO documents (id, payload, seq, op, vector) VALUES (?, ?, ?, ?, ?)',
      id,
      JSON.stringify(payload),
      seq,
      op,
      vector,
    );
  }

  markDeleted(id: string, op: number, seq: number): void {
    this.#payloads.delete(id);
    this.sql.exec('INSERT OR REPLACE INTO documents (id, payload, seq, op) VALUES (?, NULL, ?, ?)', id, seq, op);
  }

  /**
   * Whether no metadata (but the count of shards used, which only describes others, and the dropped tombstones' horizon,
   * which only bounds operations), document (tombstones too) or staged row is stored.
   */
  holdsNothing(): boolean {
    return [`meta WHERE key NOT IN ('shardsUsed', 'droppedUpTo')`, 'documents', 'staged'].every(
      (rows) => !this.sql.exec(`SELECT 1 FROM ${rows} LIMIT 1`).toArray().length,
    );
  }

  /** Live documents (tombstones not counted), kept by triggers: no scan. */
  liveCount(): number {
    return this.sql.exec<{ n: number }>('SELECT n FROM live_count').one().n;
  }

  /** Deletes every document row, tombstones too. */
  private deleteDocuments(): void {
    this.#payloads.clear();
    this.sql.exec('DELETE FROM documents');
    this.sql.exec('UPDATE live_count SET n = 0');
  }

  /** Live documents in feeding order, one row at a time (a cursor: never all payloads in memory). */
  *liveDocuments(): Generator<StoredDocument> {
    yield* this.documentRows('SELECT id, payload, vector FROM documents WHERE payload IS NOT NULL');
  }

  /** Live documents in id order after `after`, a cursor that pages can resume. */
  *liveDocumentsAfter(after: string): Generator<StoredDocument> {
    yield* this.documentRows('SELECT id, payload, vector FROM documents WHERE payload IS NOT NULL AND id > ? ORDER BY id', after);
  }

  private *documentRows(query: string, ...bindings: string[]): Generator<StoredDocument> {
    for (const row of this.sql.exec<{ id: string; payload: string; vector: string | null }>(query, ...bindings)) {
      yield { id: row.id, payload: JSON.parse(row.payload) as DocumentPayload, vector: row.vector ?? undefined };
    }
  }

  /** Points a live document at another vector (a re-index with a new embedder or semantic fields). */
  setVector(id: string, vector: string | null): void {
    this.sql.exec('UPDATE documents SET vector = ? WHERE id = ?', vector, id);
  }

  /** Whether a batch after sequence `seq` changed a document (a version may change only the other shards' share). */
  documentsChangedAfter(seq: number): boolean {
    return this.sql.exec('SELECT 1 FROM documents WHERE seq > ? LIMIT 1', seq).toArray().length > 0;
  }

  /** Documents changed by batches after sequence `seq`, batch by batch (within a batch in SQLite's order); `payload` undefined = deleted. */
  *changesSince(seq: number): Generator<{ id: string; payload?: DocumentPayload; vector?: string }> {
    for (const row of this.sql.exec<{ id: string; payload: string | null; vector: string | null }>(
      'SELECT id, payload, vector FROM documents WHERE seq > ? ORDER BY seq',
      seq,
    )) {
      yield {
        id: row.id,
        payload: row.payload ? (JSON.parse(row.payload) as DocumentPayload) : undefined,
        vector: row.vector ?? undefined,
      };
    }
  }

  // ---------------------------------------------------------------- vectors

  /** Which of these content hashes have a stored vector. */
  knownVectors(hashes: string[]): Set<string> {
    const rows = this.sql.exec<{ hash: string }>(
      'SELECT hash FROM vectors WHERE hash IN (SELECT value FROM json_each(?))',
      JSON.stringify(hashes),
    );
    return new Set([...rows].map((row) => row.hash));
  }

  /** Stores vectors of the embedder whose fingerprint is `space`. */
  putVectors(space: string, vectors: HashedVector[]): void {
    for (const { hash, vector } of vectors) {
      this.sql.exec('INSERT OR IGNORE INTO vectors (hash, space, data) VALUES (?, ?, ?)', hash, space, toBlob(vector));
    }
  }

  /** A stored vector and the fingerprint of the embedder that made it. */
  vector(hash: string): { space: string; vector: Float32Array } | undefined {
    const row = this.sql.exec<{ space: string; data: ArrayBuffer }>('SELECT space, data FROM vectors WHERE hash = ?', hash).toArray()[0];
    return row ? { space: row.space, vector: new Float32Array(row.data) } : undefined;
  }

  /** Drops vectors no live or staged document references any more. */
  dropUnusedVectors(): void {
    this.sql.exec(`
      DELETE FROM vectors WHERE hash NOT IN (
        SELECT vector FROM documents WHERE vector IS NOT NULL UNION SELECT vector FROM staged WHERE vector IS NOT NULL)`);
  }

  // ---------------------------------------------------------------- full feed staging

  /**
   * Stages a document's operation unless the cycle holds a newer one of it (one statement: staging is most of a full
   * feed's work in the object); answers whether it was staged.
   */
  stage(cycle: number, id: string, payload: DocumentPayload | undefined, op: number, vector: string | null = null): boolean {
    return this.upsertStaged(cycle, id, payload ? JSON.stringify(payload) : null, op, vector);
  }

  /** Stages rows moved from another shard under `cycle` (a re-shard), keeping a row staged by a newer operation. */
  stageRows(cycle: number, rows: DocumentRow[]): void {
    for (const row of rows) this.upsertStaged(cycle, row.id, row.payload, row.op, row.vector);
  }

  private upsertStaged(cycle: number, id: string, payload: string | null, op: number, vector: string | null): boolean {
    const staged = this.sql.exec(
      `INSERT INTO staged (cycle, id, payload, op, vector) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (cycle, id) DO UPDATE SET payload = excluded.payload, op = excluded.op, vector = excluded.vector
       WHERE excluded.op >= staged.op
       RETURNING op`,
      cycle,
      id,
      payload,
      op,
      vector,
    );
    return staged.toArray().length > 0;
  }

  /** Documents staged by a cycle (deletions not counted), kept by triggers: no scan. */
  stagedCount(cycle: number): number {
    return this.sql.exec<{ n: number }>('SELECT n FROM staged_counts WHERE cycle = ?', cycle).toArray()[0]?.n ?? 0;
  }

  hasStaged(cycle: number, id: string): boolean {
    return this.sql.exec('SELECT 1 FROM staged WHERE cycle = ? AND id = ? AND payload IS NOT NULL', cycle, id).toArray().length > 0;
  }

  discardStaged(cycle: number): void {
    this.sql.exec('DELETE FROM staged WHERE cycle = ?', cycle);
    this.sql.exec('DELETE FROM staged_counts WHERE cycle = ?', cycle);
  }

  /**
   * Replaces the live documents with the staged dataset of a cycle, its tombstones too: a move stages the rows it moves
   * with their tombstones, which must keep an older operation arriving late from bringing a deleted document back.
   */
  promoteStaged(cycle: number): void {
    const seq = this.nextSeq();
    this.deleteDocuments();
    this.sql.exec(
      // In feeding order, as a rebuild reads them: without a query or sort, documents come in feeding order.
      'INSERT INTO documents (id, payload, seq, op, vector) SELECT id, payload, ?, op, vector FROM staged WHERE cycle = ? ORDER BY op',
      seq,
      cycle,
    );
    this.discardStaged(cycle);
  }

  // ---------------------------------------------------------------- snapshot

  /**
   * Stores an index snapshot covering every change up to `seq`, and drops the vectors it no longer needs, the
   * tombstones a snapshot covered at least `TOMBSTONE_MS` ago and the refusals older than that.
   */
  writeSnapshot(snapshot: Snapshot, config: AppIndexConfig, seq: number): void {
    this.writeChunks('snapshot_chunks', snapshot.index);
    this.writeChunks('vector_chunks', snapshot.vectors);
    const now = Date.now();
    const marks = [...(this.get('snapshotsAt') ?? []), { seq, at: now }];
    const covered = marks.filter((mark) => mark.at <= now - TOMBSTONE_MS).at(-1);
    if (covered) {
      const upTo = Math.min(covered.seq, seq);
      const newest = this.sql
        .exec<{ op: number | null }>('SELECT max(op) AS op FROM documents WHERE payload IS NULL AND seq <= ?', upTo)
        .one().op;
      if (newest !== null) this.raiseDroppedUpTo(newest);
      this.sql.exec('DELETE FROM documents WHERE payload IS NULL AND seq <= ?', upTo);
    }
    this.sql.exec('DELETE FROM refused_ops WHERE at <= ?', now - TOMBSTONE_MS);
    this.set(
      'snapshotsAt',
      marks.filter((mark) => mark.at > now - TOMBSTONE_MS || mark === covered),
    );
    this.dropUnusedVectors();
    this.set('config', config);
    this.set('snapshotSeq', seq);
  }

  hasSnapshot(): boolean {
    return this.sql.exec('SELECT 1 FROM snapshot_chunks LIMIT 1').toArray().length > 0;
  }

  readSnapshot(): Snapshot | undefined {
    const index = this.readChunks('snapshot_chunks');
    return index && { index, vectors: this.readChunks('vector_chunks') };
  }

  /** A shard's copy of what the other shards of its app hold (encoded `StatisticsShare`); undefined clears it. */
  writeOtherShards(bytes: Uint8Array | undefined): void {
    this.writeChunks('others_chunks', bytes);
  }

  readOtherShards(): Uint8Array | undefined {
    return this.readChunks('others_chunks');
  }

  private writeChunks(table: ChunkTable, bytes: Uint8Array | undefined): void {
    this.sql.exec(`DELETE FROM ${table}`);
    if (!bytes) return;
    for (let n = 0, offset = 0; offset < bytes.length; n++, offset += CHUNK_BYTES) {
      this.sql.exec(`INSERT INTO ${table} (n, data) VALUES (?, ?)`, n, bytes.subarray(offset, offset + CHUNK_BYTES));
    }
  }

  private readChunks(table: ChunkTable): Uint8Array | undefined {
    const chunks = this.sql.exec<{ data: ArrayBuffer }>(`SELECT data FROM ${table} ORDER BY n`).toArray();
    if (!chunks.length) return undefined;
    const bytes = new Uint8Array(chunks.reduce((size, c) => size + c.data.byteLength, 0));
    let offset = 0;
    for (const { data } of chunks) {
      bytes.set(new Uint8Array(data), offset);
      offset += data.byteLength;
    }
    return bytes;
  }

  // ---------------------------------------------------------------- replica copies

  /** Rows of the documents table (tombstones too) in id order after `after`: a replica copies them page by page. */
  documentRowsAfter(after: string, limit: number): DocumentRow[] {
    return this.sql
      .exec<DocumentRow>('SELECT id, payload, seq, op, vector FROM documents WHERE id > ? ORDER BY id LIMIT ?', after, limit)
      .toArray();
  }

  /** Rows (tombstones too) changed by batches after sequence `seq`, in id order after `after`: a re-shard moves them page by page. */
  documentRowsSince(seq: number, after: string, limit: number): DocumentRow[] {
    return this.sql
      .exec<DocumentRow>(
        'SELECT id, payload, seq, op, vector FROM documents WHERE seq > ? AND id > ? ORDER BY id LIMIT ?',
        seq,
        after,
        limit,
      )
      .toArray();
  }

  /** The rows of these documents (tombstones too), in SQLite's order. */
  documentRowsOf(ids: string[]): DocumentRow[] {
    return this.sql
      .exec<DocumentRow>(
        'SELECT id, payload, seq, op, vector FROM documents WHERE id IN (SELECT value FROM json_each(?))',
        JSON.stringify(ids),
      )
      .toArray();
  }

  /** Stores rows copied from the primary as they are. */
  putRows(rows: DocumentRow[]): void {
    for (const row of rows) {
      this.#payloads.delete(row.id);
      this.sql.exec(
        'INSERT OR REPLACE INTO documents (id, payload, seq, op, vector) VALUES (?, ?, ?, ?, ?)',
        row.id,
        row.payload,
        row.seq,
        row.op,
        row.vector,
      );
    }
  }

  /** Forgets the documents, vectors and snapshots (a replica about to copy its primary again). */
  clearIndexedState(): void {
    this.deleteDocuments();
    this.sql.exec('DELETE FROM vectors');
    this.writeChunks('snapshot_chunks', undefined);
    this.writeChunks('vector_chunks', undefined);
    this.writeChunks('others_chunks', undefined);
    for (const key of ['config', 'seq', 'snapshotSeq', 'snapshotsAt'] as const) this.set(key, undefined);
  }
}
