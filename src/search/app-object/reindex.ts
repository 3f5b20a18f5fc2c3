/**
 * A re-index job's part in a search app's Durable Object: rebuilding the index with a new configuration (with the
 * vectors it needs first), and moving the documents to a new shard count (a re-shard: staged under a negative id in
 * the new layout's shards, caught up, then swapped in as a full feed is).
 */
import {
  activeReshard,
  DECIDED_MOVE_COMMIT_MS,
  RESHARD_LEASE_MS,
  type DocumentRow,
  type HashedVector,
  type Leaving,
  type RefusedOp,
  type Reshard,
  type ReshardFate,
  VOTED_MOVE_DECIDE_MS,
} from '../app-storage';
import { contentHash, embeddingText } from '../embedding/text';
import type { DocumentPayload } from '../engine/types';
import type { Outcome } from '../outcome';
import { afterLastCommit } from '../shard-swap';
import { objectId, shardNumbers, shardOfPrimary, type ShardLayout } from '../shards';
import { cycleEnded, type CoordinatorCycles, type FullFeeds } from './full-feed';
import { ok, type AppIndexConfig, type LiveIndex } from './live-index';

/** Texts a re-index still has to embed, and where the next page of documents starts (null: all seen). */
export interface MissingVectors {
  texts: Array<{ hash: string; text: string }>;
  next: string | null;
}

/**
 * A page of a shard's document rows moving to a new shard count, the vectors they use, and the shard's sequence when
 * read; the first page of each round also carries the shard's refused operations (`Feeding.holdOperations`).
 */
export interface MovingRows {
  rows: DocumentRow[];
  vectors: Array<HashedVector & { space: string }>;
  seq: number;
  refusals: RefusedOp[];
  /** The shard's dropped tombstones' horizon (`droppedUpTo`), on the first page of a round too. */
  droppedUpTo: number;
}

/** The content hash of a document's semantic text under the config's embedder; null when it has no semantic text. */
function vectorHash(config: AppIndexConfig, payload: DocumentPayload): string | null {
  const text = config.embedder ? embeddingText(config.fields, payload) : '';
  return config.embedder && text ? contentHash(config.embedder, text) : null;
}

/** Re-index and re-shard work on one shard. */
export class Reindexing {
  constructor(
    private readonly live: LiveIndex,
    private readonly fullFeeds: FullFeeds,
  ) {}

  /**
   * Rebuilds the index from the stored documents with a new configuration. With an embedder, each document first
   * points at the vector of its current semantic text, which `missingVectors` and `storeVectors` made sure is stored.
   */
  reindex(config: AppIndexConfig): Outcome<{ documents: number }> {
    const { live } = this;
    const storage = live.storage;
    if (config.embedder) {
      const changes: Array<[string, string | null]> = [];
      for (const doc of storage.liveDocuments()) {
        const hash = vectorHash(config, doc.payload);
        if (hash !== (doc.vector ?? null)) changes.push([doc.id, hash]);
      }
      const hashes = [...new Set(changes.map(([, hash]) => hash).filter((hash): hash is string => hash !== null))];
      const known = storage.knownVectors(hashes);
      const missing = hashes.filter((hash) => !known.has(hash)).length;
      if (missing) return { ok: false, status: 409, message: `${missing} semantic texts have no vector yet` };
      live.transaction(() => {
        for (const [id, hash] of changes) storage.setVector(id, hash);
      });
    }
    const rebuilt = live.transaction(() => {
      const seq = storage.nextSeq(); // a new index version: answers cached for the old configuration are not reused
      if (live.log.active) live.log.reset(seq);
      return { documents: live.rebuild(config).size };
    });
    live.notifyReplicas();
    return ok(rebuilt);
  }

  /** Up to `limit` semantic texts of live documents (in id order after `after`) whose vector is not stored. */
  missingVectors(config: AppIndexConfig, after: string, limit: number): MissingVectors {
    const storage = this.live.storage;
    const texts = new Map<string, string>();
    let last: string | null = null;
    if (!config.embedder) return { texts: [], next: null };
    for (const doc of storage.liveDocumentsAfter(after)) {
      if (texts.size >= limit) return { texts: [...texts].map(([hash, text]) => ({ hash, text })), next: last };
      last = doc.id;
      const hash = vectorHash(config, doc.payload);
      if (hash && hash !== doc.vector && !texts.has(hash) && !storage.knownVectors([hash]).size) {
        texts.set(hash, embeddingText(config.fields, doc.payload));
      }
    }
    return { texts: [...texts].map(([hash, text]) => ({ hash, text })), next: null };
  }

  /**
   * Joins a re-shard: its rows are staged here under `reshard.id`, anything staged under it before discarded; the
   * alarm at the end of its lease discards them should the move not have ended by then (`expire`).
   * 409 while a full feed is in progress or another job is moving the documents. A cycle held here that `coordinator`
   * (shard 0's cycles) shows ended is no full feed in progress: its end never reached this shard, which would otherwise
   * refuse every move for good; it is dropped, as is what a lapsed move of another id staged and voted here.
   */
  async beginReshard(reshard: Reshard, coordinator?: CoordinatorCycles): Promise<Outcome<null>> {
    const storage = this.live.storage;
    const cycle = storage.get('cycle');
    const ended = cycle && coordinator && cycleEnded(cycle.id, coordinator);
    if (cycle && !ended)
      return { ok: false, status: 409, message: `A full feed is in progress (cycle ${cycle.id}); re-index when it has finished` };
    const running = activeReshard(storage);
    if (running && running.job !== reshard.job) {
      return { ok: false, status: 409, message: `Re-index job ${running.job} is moving the documents to ${running.shards} shards` };
    }
    // Decided here since the job read the vote (this shard decided it itself): it is only ever committed, by this shard.
    const ready = storage.get('ready');
    if (ready?.cycleId === reshard.id && ready.decided) {
      return { ok: false, status: 409, message: `The move to ${reshard.shards} shards was decided and is being committed` };
    }
    const previous = storage.get('reshard');
    this.live.transaction(() => {
      if (cycle && ended) this.fullFeeds.dropEndedCycle(cycle.id);
      // A lapsed move to another generation (a full feed took it since) can never go live: the record replaced here was
      // all its alarm would find its staging and vote by.
      if (previous && previous.id !== reshard.id) this.fullFeeds.dropEndedCycle(previous.id);
      storage.discardStaged(reshard.id);
      storage.set('reshard', reshard);
      if (reshard.coordinator && this.#isNamed(reshard.coordinator)) this.fullFeeds.useShards(reshard.shards);
    });
    await this.live.armAlarm(reshard.startedAt + RESHARD_LEASE_MS);
    return ok(null);
  }

  /**
   * A page of this shard's document rows (tombstones too) changed after sequence `since` (-1: all), in id order after
   * `after`, with the vectors they use, and the sequence now: the next catch-up reads the changes after it.
   */
  movingRows(since: number, after: string, limit: number): MovingRows {
    const storage = this.live.storage;
    const rows = storage.documentRowsSince(since, after, limit);
    const first = after === '';
    const refusals = first ? storage.refusals() : [];
    const droppedUpTo = first ? (storage.get('droppedUpTo') ?? 0) : 0;
    return { rows, vectors: this.live.storedVectors(rows.map((row) => row.vector)), seq: storage.get('seq') ?? 0, refusals, droppedUpTo };
  }

  /**
   * Stages rows moved from other shards under the re-shard's `id` (a row staged from a newer operation stays), with their
   * vectors. 409 when this shard is not in that re-shard (the app was deleted meanwhile, or the move was aborted), so
   * the job stops and aborts instead of writing into storage that was wiped. The source's refused operations are refused
   * here at once (a given-up operation is refused wherever it arrives: the move may go live before a late delivery), and
   * its dropped tombstones' horizon raises this shard's (the bound holds for any document: `droppedUpTo`).
   */
  stageMoved(id: number, rows: DocumentRow[], vectors: MovingRows['vectors'], refusals: RefusedOp[] = [], droppedUpTo = 0): Outcome<null> {
    const storage = this.live.storage;
    if (storage.get('reshard')?.id !== id) return { ok: false, status: 409, message: 'the documents are no longer moving to this shard' };
    this.live.transaction(() => {
      for (const { space, hash, vector } of vectors) storage.putVectors(space, [{ hash, vector }]);
      storage.stageRows(id, rows);
      storage.refuseOps(refusals);
      storage.raiseDroppedUpTo(droppedUpTo);
    });
    return ok(null);
  }

  /**
   * Live feeding here fails, to be retried, for `ms` (0: from now on it applies again): a re-shard's last catch-up and
   * swap; on a shard the move drops (`leaving`), until the move's fate is known too (`Feeding.leavingSettled`).
   */
  async seal(ms: number, leaving?: Leaving): Promise<void> {
    const until = ms > 0 ? Date.now() + ms : undefined;
    this.live.storage.set('sealedUntil', until);
    if (leaving) this.live.storage.set('leaving', leaving);
    if (until) await this.live.armAlarm(until);
  }

  /**
   * As the coordinator (shard 0) of the re-shard `id` to `layout`: `committed` once this move made that layout live
   * here (shard 0 commits last), `pending` while this shard holds the re-shard within its lease (its job, or a retry, may
   * commit it), else `abandoned`: aborted, lapsed before this shard voted, wiped with its app, or its generation taken
   * or passed by another swap (a full feed started once the lease lapsed: every shard of a layout live since voted for
   * that one, so the voter is in none). One held past its lease, decided here `DECIDED_MOVE_COMMIT_MS` ago and not
   * committed, or voted for here `VOTED_MOVE_DECIDE_MS` ago and not decided, is settled here first (`#settle`).
   */
  async reshardFate(id: number, layout: ShardLayout): Promise<ReshardFate> {
    const storage = this.live.storage;
    const live = this.live.layout();
    if (live.generation >= layout.generation) {
      // A layout made live before the swap's id was recorded counts as this move's, as it did then.
      const byThisMove = (storage.get('liveCycle') ?? id) === id;
      return byThisMove && live.generation === layout.generation && live.shards === layout.shards ? 'committed' : 'abandoned';
    }
    const reshard = storage.get('reshard');
    if (reshard?.id !== id) return 'abandoned';
    if (activeReshard(storage) && this.#settleAt(reshard) > Date.now()) return 'pending';
    return this.#settle(reshard, layout);
  }

  /** As the coordinator: when it settles the move `reshard` within its lease (`#settle`), if it decided or voted for it. */
  #settleAt(reshard: Reshard): number {
    const ready = this.live.storage.get('ready');
    if (ready?.cycleId !== reshard.id) return Infinity;
    // A decision or vote stored before its time was recorded is due at once.
    if (ready.decided) return (ready.decidedAt ?? 0) + DECIDED_MOVE_COMMIT_MS;
    return ready.attempt === reshard.startedAt ? (ready.votedAt ?? 0) + VOTED_MOVE_DECIDE_MS : Infinity;
  }

  /**
   * As the coordinator of a re-shard whose lease lapsed (its job died: a queue consumer runs 15 minutes at most, and a
   * retry begins again here first), or that it decided or voted for a while ago: commits it here when it was decided, a
   * shard of the new layout already committed (the job died while committing: a decided move is only ever committed, by
   * its retry too, and a job still committing commits the same generation), or every shard holds a vote of this attempt
   * (decided here first: the job died between the votes and its decision, or is slow, and decides the same), and ends it
   * as the job would have. Within the lease it is left pending while a vote is missing (a slow job's may yet come, and
   * dropping the move would fail that job); past it, dropped, so every shard that voted drops its staging when it asks.
   */
  async #settle(reshard: Reshard, layout: ShardLayout): Promise<ReshardFate> {
    const storage = this.live.storage;
    const { generation } = layout;
    const ready = storage.get('ready');
    if (ready?.cycleId === reshard.id && reshard.coordinator) {
      const { coordinator } = reshard;
      const shard = (n: number) => this.live.object(shardOfPrimary(coordinator, n));
      const others = shardNumbers(reshard.shards).slice(1);
      const ours = !ready.decided && ready.attempt === reshard.startedAt;
      const [views, votes] = await Promise.all([
        Promise.all(others.map((n) => shard(n).shardView())),
        ours ? Promise.all(others.map((n) => shard(n).votedFor(reshard.id, reshard.startedAt))) : [],
      ]);
      // Asked across an await: a retry may have begun the move again, its job decided or dropped it, or a search
      // committed it, meanwhile.
      const current = storage.get('reshard');
      const vote = storage.get('ready');
      if (current?.id !== reshard.id || current.startedAt !== reshard.startedAt || vote?.cycleId !== reshard.id) {
        return this.reshardFate(reshard.id, layout);
      }
      const everyVote = ours && vote.attempt === reshard.startedAt && votes.every(Boolean);
      if (everyVote && !vote.decided) storage.set('ready', { ...vote, decided: true, decidedAt: Date.now() });
      if (vote.decided || everyVote || views.some((view) => view.layout.generation >= generation)) {
        // Finished as the job would have: every other shard commits, then this one, then what follows the last commit
        // (this object's own part in it through its stub too).
        const old = this.live.layout();
        await Promise.all(
          shardNumbers(reshard.shards)
            .slice(1)
            .map((n) => shard(n).commitSwap(generation)),
        );
        await this.fullFeeds.commitSwap(generation);
        await afterLastCommit(shard, old, this.live.layout());
        return 'committed';
      }
      if (activeReshard(storage)) return 'pending';
    }
    this.live.transaction(() => {
      storage.discardStaged(reshard.id);
      storage.set('reshard', undefined);
      if (storage.get('ready')?.cycleId === reshard.id) storage.set('ready', undefined);
    });
    return 'abandoned';
  }

  /**
   * The alarm's part: what a move leaves when its job died without ending it (and the app may have been deleted
   * meanwhile, so no retry can name this shard) goes once it lapsed: the seal, and the rows staged for a re-shard
   * whose lease ended. A shard that voted for the swap asks the coordinator, which settles a lapsed move
   * (`reshardFate`): one that may still commit keeps them, asked again a lease later; one committed elsewhere commits
   * here too; one that never will (aborted, lapsed, or its app deleted) drops them.
   * Arms the alarm again for what has not lapsed yet.
   */
  async expire(): Promise<void> {
    const storage = this.live.storage;
    const now = Date.now();
    const sealedUntil = storage.get('sealedUntil');
    if (sealedUntil !== undefined && sealedUntil <= now) storage.set('sealedUntil', undefined);
    else if (sealedUntil !== undefined) await this.live.armAlarm(sealedUntil);
    const reshard = storage.get('reshard');
    if (!reshard) return;
    // The coordinator settles a move it decided or voted for a while ago itself, before the lease lapses.
    const coordinating = !!reshard.coordinator && this.#isNamed(reshard.coordinator);
    const leaseEnd = reshard.startedAt + RESHARD_LEASE_MS;
    const due = Math.min(leaseEnd, coordinating ? this.#settleAt(reshard) : Infinity);
    if (due > now) return this.live.armAlarm(due);
    const voted = storage.get('ready');
    if (voted?.cycleId === reshard.id) {
      const { layout } = voted;
      const fate = reshard.coordinator ? await this.#coordinatorFate(reshard.coordinator, reshard.id, layout) : 'pending';
      // Within the lease the coordinator looks for the missing votes again; a voter asks again a lease later.
      if (fate === 'pending')
        return this.live.armAlarm(coordinating && leaseEnd > now ? Math.min(leaseEnd, now + VOTED_MOVE_DECIDE_MS) : now + RESHARD_LEASE_MS);
      if (fate === 'committed') {
        await this.fullFeeds.commitSwap(layout.generation);
        return;
      }
      // Asked across an await: the job may have aborted or committed meanwhile.
      if (storage.get('ready')?.cycleId !== reshard.id) return;
      storage.set('ready', undefined);
    }
    this.live.transaction(() => {
      storage.discardStaged(reshard.id);
      storage.set('reshard', undefined);
    });
  }

  async #coordinatorFate(coordinator: string, id: number, layout: ShardLayout): Promise<ReshardFate> {
    if (this.#isNamed(coordinator)) return this.reshardFate(id, layout);
    return this.live.object(coordinator).reshardFate(id, layout);
  }

  /** Whether this object is the one named `name`. */
  #isNamed(name: string): boolean {
    return objectId(this.live.env.SEARCH_APP, name).equals(this.live.ctx.id);
  }
}
