/**
 * Live feeding of a search app's Durable Object: applying the consumer's operations (live ones to the index,
 * a full feed's to its staging), and the recovery checks that make sure no accepted feeding entry is left behind.
 */
import type { FeedingState } from '../../db/schema';
import type { HashedVector } from '../app-storage';
import type { DocumentPayload } from '../engine/types';
import type { AppIndexConfig, LiveIndex } from './live-index';

/** A document operation as the feeding consumer hands it to the search app. */
export interface FeedOperation {
  opId: number;
  documentId: string;
  operation: 'update' | 'delete';
  payload?: DocumentPayload;
  /** Set when the operation was sent during a full-feed cycle. */
  cycleId?: number | null;
  /**
   * The last full-feed cycle started when the operation was accepted (absent: accepted by an older deploy). Outside a
   * cycle, a later cycle's swap replaced it: it is IGNORED. Sent while that cycle was ending, it is applied live and also
   * staged into the cycle (a `stageOnly` copy, on the document's shard of the cycle), so the swap keeps it.
   */
  lastCycle?: number;
  /** The copy of such an operation that only stages it into cycle `lastCycle` if this shard holds it; it has no result. */
  stageOnly?: boolean;
  /** Content hash of the document's semantic text (its vector's key); absent or null: no vector. */
  vector?: string | null;
}

/** Where a shard is asked for an operation being given up: its document's live row (`cycleId` 0) or a cycle's staged one. */
export interface HeldQuery {
  opId: number;
  documentId: string;
  cycleId: number;
}

/** What became of one applied operation. */
export interface OperationResult {
  opId: number;
  state: Extract<FeedingState, 'PREPARED' | 'FINISHED' | 'IGNORED' | 'CANCELED'>;
}

/** A shard's results of a batch, and whether enough changed there that the shards should share statistics anew. */
export interface ShardApplied {
  results: OperationResult[];
  statisticsDue: boolean;
}

/**
 * A batch the object did not apply because it must wait or be routed again (a move or swap committing): the client
 * throws it, so the queue retries the batch. An answer, not a rejection: workerd reports every rejected RPC call as an
 * uncaught exception of the object, although its caller catches it.
 */
export interface ApplyRetry {
  retry: string;
}

const MOVING: ApplyRetry = { retry: 'documents are moving to a new shard count: retry' };

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

/** Interval of feeding recovery checks while the app has open feeding entries. */
export const RECOVERY_CHECK_MS = 15_000;
/** No operation applied for this long: the app's feeding is stalled (its messages may be lost). */
const STALL_MS = 20_000;

/**
 * A shard asks for a new exchange of statistics with the other shards (`SearchAppClient.shareStatistics`) after
 * this many changes since its last share, or this share of its documents if more (as the families' prior does).
 */
const MIN_CHANGES_BEFORE_SHARE = 256;
const CHANGED_SHARE_BEFORE_SHARE = 0.01;

/** The recovery checks of an app's feeding: armed while entries are open, sent to the feeding consumer by the alarm. */
export class FeedingRecovery {
  /** Feeding progress of this instance, for recovery: when it last applied operations, and up to which id. */
  lastAppliedAt = 0;
  appliedUpTo = 0;
  /** When recovery was last armed: a check asked before then does not switch the checks off. */
  #armedAt = 0;

  constructor(private readonly live: LiveIndex) {}

  /** Makes sure a recovery check is due within RECOVERY_CHECK_MS (an armed check keeps its time). */
  async arm(): Promise<void> {
    this.#armedAt = Date.now();
    const due = this.live.storage.get('recoveryAt');
    // Armed already: its alarm is made sure of too (a process dying between the two writes left none, and every later
    // arm, the Cron Trigger's backstop included, stopped here).
    if (due !== undefined) return this.live.armAlarm(due);
    const at = Date.now() + RECOVERY_CHECK_MS;
    this.live.storage.set('recoveryAt', at);
    await this.live.armAlarm(at);
  }

  /** The recovery check of `requestedAt` found nothing to do: checks stop unless recovery was armed since. */
  idle(requestedAt: number): void {
    if (this.#armedAt <= requestedAt) this.live.storage.set('recoveryAt', undefined);
  }

  /** The alarm's part: when a check is due, asks the feeding consumer for it and arms the next. */
  async check(): Promise<void> {
    const storage = this.live.storage;
    const recoveryAt = storage.get('recoveryAt');
    const appId = storage.get('appId');
    if (recoveryAt === undefined || appId === undefined) return;
    const now = Date.now();
    if (recoveryAt > now) return this.live.armAlarm(recoveryAt);
    const request: RecoveryRequest = {
      appId,
      stalled: now - this.lastAppliedAt > STALL_MS,
      appliedUpTo: this.appliedUpTo,
      requestedAt: now,
    };
    await this.live.env.FEEDING_QUEUE.send({ kind: 'recover', ...request });
    storage.set('recoveryAt', now + RECOVERY_CHECK_MS);
    await this.live.armAlarm(now + RECOVERY_CHECK_MS);
  }

  /** Forgets this instance's progress (the storage is deleted). */
  reset(): void {
    this.lastAppliedAt = this.appliedUpTo = this.#armedAt = 0;
  }
}

/** Applies the feeding consumer's operations to the live index or to the active full feed's staging. */
export class Feeding {
  /** Changes applied since this shard last shared its statistics (in memory: an eviction only delays the next share). */
  changesSinceShare = 0;

  constructor(
    private readonly live: LiveIndex,
    private readonly recovery: FeedingRecovery,
  ) {}

  /**
   * For operations being given up (`SearchAppClient.heldOperations`): the operation id this shard holds of each one's
   * document in the place asked (`cycleId` 0: live, tombstones too; else that cycle's staging), 0 for none; an operation
   * older than what is held there is refused from then on (`apply` drops it), in the same step, so a delivery already
   * under way cannot apply it after the give-up decided its entry by this answer. Live places are asked of the layout of
   * `generation`: another (a swap committed since the caller read it), a seal or a vote for a move (a move's last catch-up
   * copied the refusals to the new layout's shards: one made after it would be left behind) answers null, nothing refused.
   */
  async holdOperations(queries: HeldQuery[], generation: number): Promise<number[] | null> {
    const live = queries.some((query) => !query.cycleId);
    if (live && !(await this.leavingSettled())) return null;
    const storage = this.live.storage;
    if (live && (this.#moving() || this.live.layout().generation !== generation)) return null;
    const held = queries.map(({ documentId, cycleId }) => (cycleId ? storage.stagedOp(cycleId, documentId) : storage.lastOp(documentId)));
    const now = Date.now();
    storage.refuseOps(queries.filter((query, i) => held[i] < query.opId).map((query) => ({ op: query.opId, at: now })));
    return held;
  }

  /** Takes back refusals of operations a give-up left open (held in one of their two places: a re-send completes them). */
  releaseOperations(opIds: number[]): void {
    this.live.storage.releaseOps(opIds);
  }

  /**
   * Applies operations in id order; a document's older operations are IGNORED behind newer ones, and so are live ones
   * accepted before the start of cycle `lastSwapped`, the last one swapped in (its swap replaced them). `vectors` are
   * the ones the consumer embedded for these operations (the others' hashes are stored already). An operation given up
   * while this shard did not hold it (`holdOperations`) is dropped and has no result: its entry keeps the state the
   * give-up wrote, or stays open to be given up again; so is a live one of a document without a row that is not newer
   * than a tombstone dropped here (`droppedUpTo`: ids grow in acceptance order, a tombstone is dropped an hour after a
   * snapshot covered it, so such an operation was accepted over an hour ago, and its document's delete may be the one).
   */
  async apply(
    given: FeedOperation[],
    config: AppIndexConfig,
    vectors: HashedVector[] = [],
    lastSwapped = 0,
  ): Promise<OperationResult[] | ApplyRetry> {
    if (given.some((op) => !op.cycleId) && !(await this.leavingSettled())) return MOVING;
    const live = this.live;
    const storage = live.storage;
    const refused = storage.refusedAmong(given.map((op) => op.opId));
    const operations = refused.size ? given.filter((op) => !refused.has(op.opId)) : given;
    if (this.#moving() && operations.some((op) => !op.cycleId)) return MOVING;
    this.recovery.lastAppliedAt = Date.now();
    for (const op of operations) this.recovery.appliedUpTo = Math.max(this.recovery.appliedUpTo, op.opId);
    // Per document and place: a cycle's operation overtakes older ones of that cycle's staging, never a live one (the
    // cycle may be cancelled), and a live one never overtakes a staged one.
    const place = (op: FeedOperation) => `${op.cycleId || 0}:${op.documentId}`;
    const newest = new Map<string, number>();
    for (const op of operations) {
      if (!op.stageOnly) newest.set(place(op), Math.max(op.opId, newest.get(place(op)) ?? 0));
    }
    const cycle = storage.get('cycle');
    const droppedUpTo = storage.get('droppedUpTo') ?? 0;
    const firstIndex = !storage.get('config');
    const results = live.transaction(() => {
      if (config.embedder) storage.putVectors(config.embedder, vectors);
      const referenced = [...new Set(operations.map((op) => op.vector).filter((hash): hash is string => !!hash))];
      // A vector dropped since the consumer asked (an unused-vector sweep) fails the batch, which the queue retries.
      if (referenced.length && storage.knownVectors(referenced).size < referenced.length)
        throw new Error('document vectors are not stored');
      let seq: number | undefined;

      const stage = (cycleId: number, op: FeedOperation): boolean => {
        const update = op.operation === 'update';
        return storage.stage(cycleId, op.documentId, update ? op.payload : undefined, op.opId, update ? (op.vector ?? null) : null);
      };
      const applied = [...operations]
        .sort((a, b) => a.opId - b.opId)
        .flatMap((op): OperationResult[] => {
          // No longer held here (cancelled, failed, or swapped in a call that applies the live part after it): nothing to stage.
          if (op.stageOnly) {
            if (cycle && cycle.id === op.lastCycle) stage(cycle.id, op);
            return [];
          }
          if (newest.get(place(op)) !== op.opId) return [{ opId: op.opId, state: 'IGNORED' }];
          if (op.cycleId) {
            if (cycle?.id !== op.cycleId) return [{ opId: op.opId, state: 'CANCELED' }];
            return [{ opId: op.opId, state: stage(cycle.id, op) ? 'PREPARED' : 'IGNORED' }];
          }
          if ((op.lastCycle ?? Infinity) < lastSwapped) return [{ opId: op.opId, state: 'IGNORED' }];
          const last = storage.lastOp(op.documentId);
          if (last > op.opId) return [{ opId: op.opId, state: 'IGNORED' }];
          // Older than a dropped tombstone, and no row: its document's delete may have been that one (and it is over an hour late).
          if (last === 0 && op.opId <= droppedUpTo) return [];
          const index = live.indexFor(config);
          seq ??= storage.nextSeq();
          if (op.operation === 'update') {
            storage.put(op.documentId, op.payload ?? {}, op.opId, seq, op.vector ?? null);
            index.add(op.documentId, op.payload ?? {});
            live.indexVector(op.documentId, op.vector);
          } else {
            storage.markDeleted(op.documentId, op.opId, seq);
            index.remove(op.documentId);
            live.removeVector(op.documentId);
          }
          return [{ opId: op.opId, state: 'FINISHED' }];
        });
      if (seq !== undefined) this.#logChanges(seq, firstIndex, applied, operations);
      return applied;
    });
    if (results.some((r) => r.state === 'FINISHED')) {
      this.changesSinceShare += results.filter((r) => r.state === 'FINISHED').length;
      live.notifyReplicas();
      await live.scheduleSnapshot();
    }
    return results;
  }

  /**
   * `apply` on one shard (of several, or the only one), routed by the layout of `generation`; `statisticsDue`: enough
   * changed here that the shards should share statistics anew. Routed by another layout than this shard's (a swap or a
   * move is committing), it answers a retry (`ApplyRetry`: the client fails the batch, to be retried and routed again):
   * a cycle's swap or a move, which makes a new generation live, cannot come between the routing and a live operation or
   * `stageOnly` copy, which would then miss it (or land on a shard the new layout does not route its document to). A
   * copy this shard's cycle takes needs no such check (the shard has not committed that swap): a shard of the cycle
   * outside the live layout takes its copies.
   */
  async applyToShard(
    operations: FeedOperation[],
    config: AppIndexConfig,
    vectors: HashedVector[] = [],
    generation?: number,
    lastSwapped = 0,
  ): Promise<ShardApplied | ApplyRetry> {
    const cycleId = this.live.storage.get('cycle')?.id;
    const live = operations.some((op) => !op.cycleId && !(op.stageOnly && op.lastCycle === cycleId));
    if (live && generation !== undefined && generation !== this.live.layout().generation) {
      return {
        retry: `operations routed by the layout of generation ${generation}, this shard is at ${this.live.layout().generation}: retry`,
      };
    }
    const results = await this.apply(operations, config, vectors, lastSwapped);
    if ('retry' in results) return results;
    const due = Math.max(MIN_CHANGES_BEFORE_SHARE, (this.live.loaded?.size ?? 0) * CHANGED_SHARE_BEFORE_SHARE);
    return { results, statisticsDue: this.changesSinceShare >= due };
  }

  /**
   * Whether no move that drops this shard may still commit (`leaving`): asked of its coordinator once the seal lapsed;
   * an abandoned one is forgotten. Until then live feeding here waits: a write would go with the shard.
   */
  async leavingSettled(): Promise<boolean> {
    const storage = this.live.storage;
    const leaving = storage.get('leaving');
    if (!leaving) return true;
    if ((storage.get('sealedUntil') ?? 0) > Date.now()) return false;
    const fate = await this.live.object(leaving.coordinator).reshardFate(leaving.id, leaving.layout);
    if (fate !== 'abandoned') return false;
    if (storage.get('leaving')?.id === leaving.id) storage.set('leaving', undefined);
    return true;
  }

  /**
   * Whether live feeding waits here: sealed for a move's last catch-up, or holding a vote for a move until it commits or
   * is dropped (a job that died once the swap was decided leaves it to be committed later, by its retry or the
   * coordinator, which makes the staged rows live without what was applied here meanwhile).
   */
  #moving(): boolean {
    const storage = this.live.storage;
    return (storage.get('sealedUntil') ?? 0) > Date.now() || (storage.get('ready')?.cycleId ?? 0) < 0;
  }

  /** Logs the documents a batch changed, when the object has replicas; the first batch of a new index restarts the log. */
  #logChanges(seq: number, firstIndex: boolean, results: OperationResult[], operations: FeedOperation[]): void {
    const log = this.live.log;
    if (!log.active) return;
    if (firstIndex) return log.reset(seq);
    const finished = new Set(results.filter((r) => r.state === 'FINISHED').map((r) => r.opId));
    const ids = operations.filter((op) => !op.stageOnly && finished.has(op.opId)).map((op) => op.documentId);
    log.record(seq, ids, this.live.storage.get('snapshotSeq') ?? 0);
  }
}
