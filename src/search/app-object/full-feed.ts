/**
 * Full-feed cycles of a search app's Durable Object: start, end, cancel and fail a cycle, its status, and the
 * two-phase swap that makes a cycle's (or a re-shard's) staged documents live across shards as one step.
 */
import type { Env } from '../../env';
import {
  activeReshard,
  DECIDED_MOVE_COMMIT_MS,
  type FailedCycle,
  type FullFeedCycle,
  type PreparedSwap,
  type UnsettledEnd,
  type UnsettledSwap,
  VOTED_MOVE_DECIDE_MS,
} from '../app-storage';
import type { Outcome } from '../outcome';
import { MAX_SHARDS, type ShardLayout } from '../shards';
import type { FeedingRecovery } from './feeding';
import { ok, type AppIndexConfig, type LiveIndex } from './live-index';

/** A full feed's progress: the active cycle, the last failed one, and how many documents are staged and live. */
export interface FullFeedStatus {
  active: boolean;
  cycle: FullFeedCycle | null;
  /** The last cycle, when it failed. */
  lastFailed: FailedCycle | null;
  stagedDocuments: number;
  liveDocuments: number;
}

/** What operations accepted now belong to: the active cycle (theirs while it is ACTIVE) and the last cycle id given (0: none). */
export interface Acceptance {
  cycle: FullFeedCycle | null;
  lastCycle: number;
}

/** As shard 0 answers it: the live layout, the active cycle and the last cycle swapped in (0: none). */
export interface AppLayout {
  layout: ShardLayout;
  cycle: FullFeedCycle | null;
  lastSwapped: number;
}

/**
 * Shard 0's cycles as a late follow-up reads them before dropping shards: the active cycle's id and the last id it
 * gave. A cycle another shard holds is over when its id is at most `last` and not `active`: shard 0 ended it (swapped,
 * cancelled or failed) and its end never reached that shard; one started after the read has a higher id.
 */
export interface CoordinatorCycles {
  active: number | null;
  last: number;
}

/** Whether cycle `id`, held by a shard other than 0, had ended when shard 0's cycles were read as `coordinator`. */
export function cycleEnded(id: number, coordinator: CoordinatorCycles): boolean {
  return id > 0 && id <= coordinator.last && id !== coordinator.active;
}

/** Why a full feed cannot be cancelled now. */
const DECIDED = 'No active full feed: it was ended and is being swapped in (every shard voted for it), so it can no longer be cancelled';
/** Why a full feed cannot start now. */
const RESHARDING = 'A re-index job is moving the documents to a new shard count; start the full feed when it has finished';
/** Swapped cycles remembered for recovery; the entries of an ended cycle are settled within a few checks. */
const SWAPPED_CYCLES_KEPT = 50;

/** The full-feed cycle of one shard (shard 0 coordinates) and its part in cross-shard swaps. */
export class FullFeeds {
  constructor(
    private readonly live: LiveIndex,
    private readonly recovery: FeedingRecovery,
    private readonly env: Env,
  ) {}

  /** Starts a cycle staging into `shards` shards (the others join it through `join`). */
  start(shards: number): Outcome<FullFeedCycle> {
    const storage = this.live.storage;
    const active = storage.get('cycle');
    if (active) return { ok: false, status: 409, message: `A full feed is already in progress (cycle ${active.id})` };
    if (activeReshard(storage)) return { ok: false, status: 409, message: RESHARDING };
    this.useShards(shards);
    const cycle: FullFeedCycle = {
      id: (storage.get('lastCycleId') ?? 0) + 1,
      state: 'ACTIVE',
      startedAt: new Date().toISOString(),
      ...(shards > 1 ? { shards } : {}),
    };
    storage.set('cycle', cycle);
    storage.set('lastCycleId', cycle.id);
    return ok(cycle);
  }

  /**
   * A shard other than 0 joins the coordinator's cycle. A cycle it still holds is one that ended without this shard
   * hearing of it (shard 0 starts a cycle only when none is active): its staged documents and vote go.
   */
  join(cycle: FullFeedCycle): void {
    const storage = this.live.storage;
    const previous = storage.get('cycle');
    this.live.transaction(() => {
      if (previous && previous.id !== cycle.id) this.dropEndedCycle(previous.id);
      storage.set('cycle', cycle);
    });
  }

  /** Drops cycle `id`, which ended without this shard hearing of it: its staged documents, record and vote (call in a transaction). */
  dropEndedCycle(id: number): void {
    const storage = this.live.storage;
    storage.discardStaged(id);
    if (storage.get('cycle')?.id === id) storage.set('cycle', undefined);
    if (storage.get('ready')?.cycleId === id) storage.set('ready', undefined);
  }

  /**
   * As shard 0: how many shards the app may have written into, so that deleting it reaches those and no object that
   * never existed (a call creates it): the most any of its full feeds or moves staged into (the end of one may never
   * have reached every shard), never fewer than the live layout's and the active cycle's. An object stored before this
   * was counted that ran a full feed or a move answers MAX_SHARDS.
   */
  shardsUsed(): number {
    const storage = this.live.storage;
    const counted = storage.get('shardsUsed');
    const uncounted = storage.get('lastCycleId') !== undefined || storage.get('reshard') !== undefined || this.live.layout().generation > 0;
    const used = counted ?? (uncounted ? MAX_SHARDS : 1);
    return Math.max(used, this.live.layout().shards, storage.get('cycle')?.shards ?? 1);
  }

  /** As shard 0: a full feed or move of the app stages into `shards` shards. */
  useShards(shards: number): void {
    this.live.storage.set('shardsUsed', Math.max(this.shardsUsed(), shards));
  }

  /** The last cycle swapped in here (0: none); shard 0 holds every cycle, so its answer is the app's. */
  lastSwapped(): number {
    return Math.max(0, ...(this.live.storage.get('swappedCycles') ?? []));
  }

  /** As shard 0: the active cycle's id and the last cycle id given. */
  cycles(): CoordinatorCycles {
    const storage = this.live.storage;
    return { active: storage.get('cycle')?.id ?? null, last: storage.get('lastCycleId') ?? 0 };
  }

  /**
   * Marks the cycle as ending; the swap happens in `finish` once its operations are processed. Arms the recovery
   * checks, which swap an ending cycle with nothing pending: the checks stop once no entry is open, and the process
   * that would swap (End, or the consumer of the last entry) may die first.
   */
  async requestEnd(): Promise<Outcome<FullFeedCycle>> {
    const cycle = this.live.storage.get('cycle');
    if (!cycle) return { ok: false, status: 404, message: 'No active full feed' };
    const ending: FullFeedCycle = { ...cycle, state: 'ENDING', endRequestedAt: cycle.endRequestedAt ?? new Date().toISOString() };
    this.live.storage.set('cycle', ending);
    await this.recovery.arm();
    return ok(ending);
  }

  /** Swaps the staged dataset in as the live one, atomically; a no-op when the cycle is already done. */
  async finish(cycleId: number, config: AppIndexConfig): Promise<boolean> {
    const { live } = this;
    const cycle = live.storage.get('cycle');
    if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return false;
    live.transaction(() => {
      live.storage.promoteStaged(cycleId);
      live.storage.set('cycle', undefined);
      this.#rememberSwapped(cycleId);
      if (live.log.active) live.log.reset(live.version());
      live.rebuild(config);
    });
    live.notifyReplicas();
    await this.recovery.arm();
    return true;
  }

  /**
   * Ends a cycle that cannot finish (its operations were lost): staged documents are discarded, the reason kept for the
   * status. False when it is no longer the active cycle, or its swap was decided (`decideSwap`): it can only be committed.
   */
  async fail(cycleId: number, reason: string): Promise<boolean> {
    const storage = this.live.storage;
    const cycle = storage.get('cycle');
    if (cycle?.id !== cycleId || this.#decided(cycleId)) return false;
    this.live.transaction(() => {
      this.#endedWithoutSwap(cycle);
      storage.discardStaged(cycleId);
      storage.set('cycle', undefined);
      if (storage.get('ready')?.cycleId === cycleId) storage.set('ready', undefined);
      storage.set('failedCycle', { id: cycleId, reason, failedAt: new Date().toISOString() });
    });
    await this.recovery.arm();
    return true;
  }

  /**
   * Cancels the active cycle: its staged documents go, the live index stays. Once its swap was decided (`decideSwap`) the
   * feed is no longer active (404, as the contract answers Cancel after End): other shards may have made it live already,
   * so only committing it leaves no mixed index.
   */
  async cancel(): Promise<Outcome<FullFeedCycle>> {
    const storage = this.live.storage;
    const cycle = storage.get('cycle');
    if (!cycle) return { ok: false, status: 404, message: 'No active full feed' };
    if (this.#decided(cycle.id)) return { ok: false, status: 404, message: DECIDED };
    this.live.transaction(() => {
      this.#endedWithoutSwap(cycle);
      storage.discardStaged(cycle.id);
      storage.set('cycle', undefined);
      if (storage.get('ready')?.cycleId === cycle.id) storage.set('ready', undefined);
    });
    await this.recovery.arm();
    return ok(cycle);
  }

  /**
   * How a cycle ended, for entries D1 still shows in it: `null` while it is the active one, `FINISHED` when it was
   * swapped in, else `CANCELED` (cancelled or failed).
   */
  outcome(cycleId: number): 'FINISHED' | 'CANCELED' | null {
    const storage = this.live.storage;
    if (storage.get('cycle')?.id === cycleId) return null;
    return storage.get('swappedCycles')?.includes(cycleId) ? 'FINISHED' : 'CANCELED';
  }

  /** The cycle's progress. */
  status(): FullFeedStatus {
    const storage = this.live.storage;
    const cycle = storage.get('cycle') ?? null;
    const failed = storage.get('failedCycle');
    return {
      active: cycle !== null,
      cycle,
      lastFailed: failed && failed.id === storage.get('lastCycleId') ? failed : null,
      stagedDocuments: cycle ? storage.stagedCount(cycle.id) : 0,
      liveDocuments: storage.liveCount(),
    };
  }

  /**
   * Phase 1 of a cross-shard swap: this shard holds the cycle's staged documents and promises to make them live
   * as `swap.layout` when told (or when a search asks for that generation: the decision was then taken). Yes as
   * well when that generation is live here already (a retried swap). `shardName` is for `TEST_REFUSE_SWAP`.
   */
  async prepareSwap(swap: PreparedSwap, shardName: string): Promise<Outcome<null>> {
    const storage = this.live.storage;
    if (this.live.layout().generation >= swap.layout.generation) return ok(null);
    if (this.env.TEST_REFUSE_SWAP?.split(',').includes(shardName))
      return { ok: false, status: 409, message: `${shardName} refuses swaps (TEST_REFUSE_SWAP)` };
    if (storage.get('cycle')?.id !== swap.cycleId && storage.get('reshard')?.id !== swap.cycleId)
      return { ok: false, status: 409, message: `cycle ${swap.cycleId} is not staged here` };
    // A vote again (a retried swap) keeps the decision taken on the first.
    const previous = storage.get('ready');
    if (this.#decided(swap.cycleId) && previous?.layout.generation === swap.layout.generation) {
      storage.set('ready', { ...previous, ...swap, decided: true });
      return ok(null);
    }
    const reshard = storage.get('reshard');
    if (reshard?.id !== swap.cycleId) {
      storage.set('ready', swap);
      return ok(null);
    }
    // A move begun again here since (a retry, or a job taking over): its staging is not what this job caught up.
    if (swap.attempt !== undefined && swap.attempt !== reshard.startedAt)
      return { ok: false, status: 409, message: `the move to generation ${swap.layout.generation} was begun again here` };
    if (swap.caughtUp !== undefined && storage.documentsChangedAfter(swap.caughtUp))
      return { ok: false, status: 409, message: `${shardName} took writes after the move's last catch-up (its seal lapsed first)` };
    const votedAt = Date.now();
    storage.set('ready', { ...swap, attempt: reshard.startedAt, votedAt });
    // The coordinator decides the move itself should nobody have (`Reindexing.expire`).
    if (reshard.coordinator === shardName) await this.live.armAlarm(votedAt + VOTED_MOVE_DECIDE_MS);
    return ok(null);
  }

  /** Whether this shard holds a vote for the move `id` cast in its attempt begun at `attempt`. */
  votedFor(id: number, attempt: number): boolean {
    const ready = this.live.storage.get('ready');
    return ready?.cycleId === id && ready.attempt === attempt;
  }

  /**
   * As shard 0, between a cross-shard swap's votes and its first commit: records that every shard voted, after which
   * the cycle can no longer be cancelled or failed, only committed. False when shard 0 no longer holds its vote for
   * `generation` (the cycle was cancelled or failed, or the move dropped, meanwhile): nothing may commit. True as well
   * when that generation is live here (a retried swap). A move's decision arms the alarm that commits it should its job
   * not have done so `DECIDED_MOVE_COMMIT_MS` later (`Reindexing.expire`).
   */
  async decideSwap(generation: number): Promise<boolean> {
    const storage = this.live.storage;
    if (this.live.layout().generation >= generation) return true;
    const ready = storage.get('ready');
    if (ready?.layout.generation !== generation) return false;
    if (ready.decided) return true;
    const decidedAt = Date.now();
    storage.set('ready', { ...ready, decided: true, decidedAt });
    if (ready.cycleId < 0) await this.live.armAlarm(decidedAt + DECIDED_MOVE_COMMIT_MS);
    return true;
  }

  /** As shard 0: its vote for a cross-shard swap, if it holds one. */
  vote(): PreparedSwap | null {
    return this.live.storage.get('ready') ?? null;
  }

  /** Whether shard 0 decided the swap of cycle `id`. */
  #decided(id: number): boolean {
    const ready = this.live.storage.get('ready');
    return ready?.cycleId === id && ready.decided === true;
  }

  /** Phase 2: the prepared cycle's documents go live as the new generation; true when that generation is live. */
  async commitSwap(generation: number): Promise<boolean> {
    const { live } = this;
    if (live.layout().generation >= generation) return true;
    const ready = live.storage.get('ready');
    if (ready?.layout.generation !== generation) return false;
    live.transaction(() => {
      const storage = live.storage;
      storage.promoteStaged(ready.cycleId);
      if (storage.get('cycle')?.id === ready.cycleId) {
        storage.set('cycle', undefined);
        this.#rememberSwapped(ready.cycleId);
      }
      if (storage.get('reshard')?.id === ready.cycleId) storage.set('reshard', undefined);
      storage.set('sealedUntil', undefined);
      storage.set('layout', ready.layout);
      storage.set('liveCycle', ready.cycleId);
      storage.set('ready', undefined);
      // A follow-up still to do of an earlier swap is carried over: the shards it drops are dropped with this one's.
      const earlier = storage.get('unsettledSwap')?.from;
      const from = ready.from && earlier && earlier.shards > ready.from.shards ? { ...ready.from, shards: earlier.shards } : ready.from;
      if (from) storage.set('unsettledSwap', { from, layout: ready.layout });
      // The other shards' statistics are of the old generation: the shard scores alone until the next exchange.
      storage.writeOtherShards(undefined);
      if (live.log.active) live.log.reset(live.version());
      live.rebuild(ready.config);
    });
    live.notifyReplicas();
    await this.recovery.arm();
    return true;
  }

  /** As shard 0: the last cross-shard swap it committed, while what follows its commit is not done; else null. */
  unsettledSwap(): UnsettledSwap | null {
    return this.live.storage.get('unsettledSwap') ?? null;
  }

  /** As shard 0: what follows the commit of the swap to `generation` is done (a later swap's record stays). */
  swapSettled(generation: number): void {
    if (this.live.storage.get('unsettledSwap')?.layout.generation === generation) this.live.storage.set('unsettledSwap', undefined);
  }

  /**
   * Whether this shard may go as one the layout of `generation` dropped: not when it holds that generation or a newer
   * one, nor while it is in a full feed, a move or a swap (it was taken up again since, and a late follow-up must not
   * wipe what it stages). A cycle (and a vote for it) that shard 0 had ended when the follow-up read `coordinator` does
   * not keep it: its end never reached this shard, and nothing else would ever remove it. Nor does a move whose lease
   * lapsed: its job died, and its alarm would drop only the move, keeping the shard's old live documents for good; nor
   * one within its lease to `generation` or an older one (the job, retried, made that generation live with fewer
   * shards, or a full feed took it). A vote keeps it only for a generation newer than `generation` (the alarm asks the
   * coordinator what became of the move): one for `generation` or older lost it to the swap that dropped this shard, and
   * can never be made live here.
   */
  droppable(generation: number, coordinator: CoordinatorCycles): boolean {
    const storage = this.live.storage;
    const cycle = storage.get('cycle');
    const ready = storage.get('ready');
    const moving = activeReshard(storage);
    return (
      this.live.layout().generation < generation &&
      (!cycle || cycleEnded(cycle.id, coordinator)) &&
      // A move's id is minus the generation it makes live.
      (!moving || -moving.id <= generation) &&
      (!ready || ready.layout.generation <= generation || cycleEnded(ready.cycleId, coordinator))
    );
  }

  /**
   * A swap that did not happen (a shard refused, or the cycle was cancelled or failed): the staged documents go. False,
   * and nothing goes, when this shard (shard 0) decided it or made it live: it can only be committed.
   */
  abortSwap(cycleId: number): boolean {
    const storage = this.live.storage;
    if (this.#decided(cycleId) || storage.get('liveCycle') === cycleId) return false;
    this.live.transaction(() => {
      storage.discardStaged(cycleId);
      if (storage.get('cycle')?.id === cycleId) storage.set('cycle', undefined);
      if (storage.get('ready')?.cycleId === cycleId) storage.set('ready', undefined);
      if (storage.get('reshard')?.id === cycleId) storage.set('reshard', undefined);
      if (storage.get('leaving')?.id === cycleId) storage.set('leaving', undefined);
      storage.set('sealedUntil', undefined);
    });
    return true;
  }

  /** As shard 0: the other shards of a cycle ended here without a swap are told by the next recovery check too. */
  #endedWithoutSwap(cycle: FullFeedCycle): void {
    const storage = this.live.storage;
    const shards = Math.max(cycle.shards ?? 1, storage.get('unsettledEnd')?.shards ?? 1);
    if (shards > 1) storage.set('unsettledEnd', { cycleId: cycle.id, shards });
  }

  /** As shard 0: the last cycle over several shards it ended without a swap, while the other shards may hold it; else null. */
  unsettledEnd(): UnsettledEnd | null {
    return this.live.storage.get('unsettledEnd') ?? null;
  }

  /** As shard 0: the other shards dropped what they held of the cycles ended up to `cycleId` (a later end's record stays). */
  endSettled(cycleId: number): void {
    if (this.live.storage.get('unsettledEnd')?.cycleId === cycleId) this.live.storage.set('unsettledEnd', undefined);
  }

  /** A cycle, or a vote for one, that shard 0 had ended when `coordinator` was read goes with its staging. */
  dropEnded(coordinator: CoordinatorCycles): void {
    const storage = this.live.storage;
    const held = [storage.get('cycle')?.id, storage.get('ready')?.cycleId];
    const ended = new Set(held.filter((id): id is number => id !== undefined && cycleEnded(id, coordinator)));
    if (ended.size) this.live.transaction(() => ended.forEach((id) => this.dropEndedCycle(id)));
  }

  #rememberSwapped(cycleId: number): void {
    const storage = this.live.storage;
    storage.set('swappedCycles', [...(storage.get('swappedCycles') ?? []), cycleId].slice(-SWAPPED_CYCLES_KEPT));
  }
}
