/**
 * The one typed client of a search app's Durable Objects: every caller (routes, feeding, agent, tests) talks
 * to the app through it, so answers are typed once and failed outcomes become the one error type once.
 *
 * An app's documents live in one or more shard objects (`shards.ts`). With one shard every call goes to the
 * app's one object as it always did. With more, searches and suggestions fan out to every shard in parallel and
 * merge (`shard-reads.ts`, with the read replicas), feeding routes each operation to its document's shard, and a full
 * feed stages in every shard and swaps them as one step (`finishFullFeed`, two-phase: `shard-swap.ts`).
 */
import type { Env } from '../env';
import type { VersionedAnswer } from './answers';
import type { ReadPlacement } from './replica-reads';
import type { ReplicaRegion } from './replica-regions';
import type { FullFeedCycle, HashedVector } from './app-storage';
import type { HighlightRequest } from './engine/highlight';
import type { DocumentPayload, SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type { IndexRead } from './app-object/answering';
import type { ApplyRetry, FeedOperation, HeldQuery, OperationResult } from './app-object/feeding';
import type { Acceptance, AppLayout, FullFeedStatus } from './app-object/full-feed';
import type { AppIndexConfig, SemanticSearch } from './app-object/live-index';
import type { MissingVectors } from './app-object/reindex';
import type { IndexStats, SearchAppObject } from './search-app-object';
import { unwrap } from './outcome';
import { afterLastCommit, commitSwap, exchangeStatistics, prepareSwap, reshardApp, type SwappingShards } from './shard-swap';
import { AppReads, knownShards, type RoutedAnswer } from './shard-reads';
import { objectId, shardName, shardNumbers, shardOf } from './shards';

type ShardStub = DurableObjectStub<SearchAppObject>;

/**
 * What the app's objects hold of an operation whose message failed (`SearchAppClient.heldOperations`); `moving`: a shard
 * it would be in was moving its documents or at another layout than the one read, so it was not asked.
 */
export type HeldOperation = 'live' | 'staged' | 'partial' | 'moving' | 'newer' | null;

/** How a full feed's swap ended. */
export type SwapOutcome = 'swapped' | 'refused' | 'not-ending';

/** Typed calls to one search app's Durable Objects (shard 0 named `<tenant>/<code>`). */
export class SearchAppClient {
  /** Shard 0's object name, which its replicas' names extend. */
  readonly name: string;
  readonly #env: Env;
  readonly #tenantCode: string;
  readonly #code: string;
  readonly #reads: AppReads;
  #stub?: ShardStub;
  /** Shards this client made a stub of (1 + the highest shard number), which its `destroy` reaches too. */
  #reached = 1;

  constructor(env: Env, tenantCode: string, code: string) {
    this.#env = env;
    this.#tenantCode = tenantCode;
    this.#code = code;
    this.name = shardName(tenantCode, code, 0);
    this.#reads = new AppReads(env, tenantCode, code, this);
  }

  /** Shard 0's raw stub (also for tests that evict the object or run its alarm), made on first use: a search answered from memory needs none. */
  get stub(): ShardStub {
    return (this.#stub ??= this.shard(0));
  }

  /** Keeps the replicas of these regions in every shard, deletes the others. */
  async retainReplicas(regions: readonly ReplicaRegion[]): Promise<void> {
    const { layout, cycle } = await this.layout();
    const shards = shardNumbers(Math.max(layout.shards, cycle?.shards ?? 1));
    await Promise.all(shards.map((shard) => this.shard(shard).retainReplicas([...regions])));
  }

  /** The stub of one shard's object (the coordinator is shard 0). */
  shard(shard: number): ShardStub {
    this.#reached = Math.max(this.#reached, shard + 1);
    const name = shardName(this.#tenantCode, this.#code, shard);
    return this.#env.SEARCH_APP.get(objectId(this.#env.SEARCH_APP, name));
  }

  get #app(): string {
    return `${this.#tenantCode}/${this.#code}`;
  }

  /** The live layout, the active cycle and the last cycle swapped in, from the coordinator. */
  async layout(): Promise<AppLayout> {
    const answer = await this.stub.layout();
    knownShards.set(this.#app, answer.layout.shards);
    return answer;
  }

  /** Every shard of the live layout. */
  async #liveShards(): Promise<number[]> {
    return shardNumbers((await this.layout()).layout.shards);
  }

  // ---------------------------------------------------------------- search

  /**
   * A search or suggest answered by the nearest replica when it has the index version this isolate knows, else by the
   * primary; per shard for an app of several (`AppReads.nearestAnswer`).
   */
  async nearestAnswer(read: IndexRead, placement: ReadPlacement, fresh = false): Promise<RoutedAnswer> {
    return this.#reads.nearestAnswer(read, placement, fresh);
  }

  /** One page of results; an invalid query (unknown facet or sort, a value not fitting its facet) is ApiError 400. */
  async search(request: SearchRequest & HighlightRequest, semantic?: SemanticSearch): Promise<SearchResult> {
    return this.#reads.search(request, semantic);
  }

  async suggest(request: SuggestRequest): Promise<Suggestion[]> {
    return this.#reads.suggest(request);
  }

  /**
   * `search` as JSON with the index version it answers for; `fresh` skips the object's memory of repeated queries;
   * `key`: the answer's `searchKey`, when made already.
   */
  async searchAnswer(
    request: SearchRequest & HighlightRequest,
    fresh = false,
    semantic?: SemanticSearch,
    key?: string,
  ): Promise<VersionedAnswer> {
    return this.#reads.searchAnswer(request, fresh, semantic, undefined, key);
  }

  /** `suggest` as JSON with the index version it answers for; `fresh` as for `searchAnswer`. */
  async suggestAnswer(request: SuggestRequest, fresh = false): Promise<VersionedAnswer> {
    return this.#reads.suggestAnswer(request, fresh);
  }

  /** The live index's version (changes with every feeding batch, full-feed swap and re-index of any shard). */
  async indexVersion(): Promise<number> {
    return this.#reads.indexVersion();
  }

  // ---------------------------------------------------------------- documents

  /** The live document, or null. */
  async document(id: string): Promise<DocumentPayload | null> {
    const { layout } = await this.layout();
    return (await this.shard(shardOf(id, layout.shards)).document(id)) as DocumentPayload | null;
  }

  /** Whether a delete of this document has something to delete (live, or staged by the active cycle). */
  async hasDocument(id: string): Promise<boolean> {
    const { layout, cycle } = await this.layout();
    const holders = new Set([shardOf(id, layout.shards), shardOf(id, cycle?.shards ?? 1)]);
    const answers = await Promise.all([...holders].map((shard) => this.shard(shard).hasDocument(id)));
    return answers.some(Boolean);
  }

  /**
   * Applies operations, each on its document's shard (operations of a full-feed cycle on the cycle's shards);
   * `vectors` are the ones embedded for them that the objects do not have yet. An operation accepted while the active
   * cycle was ending is applied live and staged into that cycle too (`stageOnly`), so its swap keeps it.
   */
  async apply(operations: FeedOperation[], config: AppIndexConfig, vectors: HashedVector[] = []): Promise<OperationResult[]> {
    const { layout, cycle, lastSwapped } = await this.layout();
    const copies = operations
      .filter((op) => !op.cycleId && cycle !== null && op.lastCycle === cycle.id)
      .map((op): FeedOperation => ({ ...op, stageOnly: true }));
    const all = [...operations, ...copies];
    if (layout.shards === 1 && (cycle?.shards ?? 1) === 1) return retried(await this.stub.apply(all, config, vectors, layout.generation));
    const byShard = new Map<number, FeedOperation[]>();
    for (const op of all) {
      const shard = shardOf(op.documentId, op.cycleId || op.stageOnly ? (cycle?.shards ?? 1) : layout.shards);
      const ops = byShard.get(shard);
      if (ops) ops.push(op);
      else byShard.set(shard, [op]);
    }
    const applied = await Promise.all(
      [...byShard].map(async ([shard, ops]) => {
        const referenced = new Set(ops.map((op) => op.vector));
        const vectorsUsed = vectors.filter((vector) => referenced.has(vector.hash));
        return retried(await this.shard(shard).applyToShard(ops, config, vectorsUsed, layout.generation, lastSwapped));
      }),
    );
    if (applied.some((part) => part.statisticsDue)) await this.shareStatistics();
    return applied.flatMap((part) => part.results);
  }

  /**
   * What the app's objects hold of operations whose message failed (a delivery may have applied one on some shards only):
   * a cycle's operation is looked for in its cycle's staging while that cycle is active (`staged`), else live (swapped
   * in); a live one live (`live`), and, while the cycle it was sent during the end of is active, staged into it too
   * (`partial` when it is in one place only: the cycle's swap would drop it, or make it live although it failed).
   * `newer`: a newer operation of the document took its place; null: nothing holds it. Each shard refuses from then on an
   * operation it did not hold where asked (`holdOperations`), so a delivery already past the consumer's state check
   * cannot apply it after this answer decided its entry; a `partial` or `moving` one stays open (a later give-up asks
   * again), so its refusals are taken back.
   */
  async heldOperations(operations: FeedOperation[]): Promise<Map<number, HeldOperation>> {
    const { layout, cycle } = await this.layout();
    const inCycle = (op: FeedOperation) => cycle !== null && cycle.id === (op.cycleId || op.lastCycle);
    const asked = new Map<number, Array<HeldQuery & { live: boolean }>>();
    const ask = (shard: number, query: HeldQuery & { live: boolean }) => asked.set(shard, [...(asked.get(shard) ?? []), query]);
    for (const op of operations) {
      const { opId, documentId } = op;
      if (!op.cycleId || !inCycle(op)) ask(shardOf(documentId, layout.shards), { opId, documentId, cycleId: 0, live: true });
      if (inCycle(op)) ask(shardOf(documentId, cycle?.shards ?? 1), { opId, documentId, cycleId: cycle?.id ?? 0, live: false });
    }
    const found = { live: new Map<number, number>(), staged: new Map<number, number>() };
    const unasked = new Set<number>();
    await Promise.all(
      [...asked].map(async ([shard, queries]) => {
        const ids = await this.shard(shard).holdOperations(
          queries.map(({ opId, documentId, cycleId }) => ({ opId, documentId, cycleId })),
          layout.generation,
        );
        for (const [i, query] of queries.entries()) {
          if (ids) found[query.live ? 'live' : 'staged'].set(query.opId, ids[i]);
          else unasked.add(query.opId);
        }
      }),
    );
    const held = (op: FeedOperation): HeldOperation => {
      if (unasked.has(op.opId)) return 'moving';
      const place = (id: number) => (id === op.opId ? 'here' : id > op.opId ? 'newer' : 'absent');
      const liveAt = place(found.live.get(op.opId) ?? 0);
      if (!inCycle(op)) return liveAt === 'here' ? 'live' : liveAt === 'newer' ? 'newer' : null;
      const stagedAt = place(found.staged.get(op.opId) ?? 0);
      if (op.cycleId) return stagedAt === 'here' ? 'staged' : stagedAt === 'newer' ? 'newer' : null;
      if (liveAt === 'newer' || stagedAt === 'newer') return 'newer';
      if (liveAt === 'here' && stagedAt === 'here') return 'live';
      return liveAt === 'here' || stagedAt === 'here' ? 'partial' : null;
    };
    const answers = new Map(operations.map((op) => [op.opId, held(op)]));
    const open = new Set(operations.filter((op) => ['partial', 'moving'].includes(answers.get(op.opId) ?? '')).map((op) => op.opId));
    if (open.size) {
      await Promise.all(
        [...asked]
          .filter(([, queries]) => queries.some((query) => open.has(query.opId)))
          .map(([shard, queries]) => this.shard(shard).releaseOperations(queries.filter((q) => open.has(q.opId)).map((q) => q.opId))),
      );
    }
    return answers;
  }

  /**
   * Hands every shard of the live layout what the other shards hold of its terms and titles (BM25 document
   * frequencies, documents, field lengths, name families: `engine/corpus.ts`), so each scores as one index of every
   * document without asking the others per query. Run at a swap, a re-index, and when a feeding batch left a shard
   * changed enough since its last share.
   */
  async shareStatistics(): Promise<void> {
    const { layout } = await this.layout();
    await exchangeStatistics(
      shardNumbers(layout.shards).map((shard) => this.shard(shard)),
      layout.generation,
    );
  }

  /**
   * Does what follows a cross-shard swap's last commit when whoever committed stopped before (a job that died after
   * shard 0 committed, a search that committed the shards behind): the shards the new layout drops go and the shards
   * exchange statistics (`afterLastCommit`). Shard 0 records the swap at its commit and arms a recovery check, which
   * calls this. False while a dropped shard is held by a cycle, move or vote that never made it live (the record stays).
   */
  async settleSwap(): Promise<boolean> {
    const unsettled = await this.stub.unsettledSwap();
    return !unsettled || afterLastCommit((shard) => this.shard(shard), unsettled.from, unsettled.layout);
  }

  /**
   * Has the shards other than 0 drop a cycle shard 0 ended without a swap (cancelled, failed or refused) when whoever
   * ended it stopped before telling them (their staging stayed for good on shards no live layout names). Shard 0 records
   * such an end and arms a recovery check, which calls this.
   */
  async settleEndedCycles(): Promise<void> {
    const ended = await this.stub.unsettledEnd();
    if (!ended) return;
    const cycles = await this.stub.cycles();
    await Promise.all(
      shardNumbers(ended.shards)
        .slice(1)
        .map((shard) => this.shard(shard).dropEndedCycles(cycles)),
    );
    await this.stub.endSettled(ended.cycleId);
  }

  /** Rebuilds every shard's indexes with `config`; 409 while a semantic text of a document has no stored vector. */
  async reindex(config: AppIndexConfig): Promise<{ documents: number }> {
    const shards = await this.#liveShards();
    const results = await Promise.all(shards.map(async (shard) => unwrap(await this.shard(shard).reindex(config))));
    await this.shareStatistics();
    return { documents: results.reduce((sum, result) => sum + result.documents, 0) };
  }

  /**
   * Semantic texts a re-index with `config` would lack vectors for, a page of documents at a time, shard after
   * shard; the cursor is `<shard>/<document id>`.
   */
  async missingVectors(config: AppIndexConfig, after: string, limit: number): Promise<MissingVectors> {
    const shards = (await this.layout()).layout.shards;
    const slash = after.indexOf('/');
    const shard = slash < 0 ? 0 : Number(after.slice(0, slash));
    const page = await this.shard(shard).missingVectors(config, slash < 0 ? after : after.slice(slash + 1), limit);
    const next = page.next !== null ? `${shard}/${page.next}` : shard + 1 < shards ? `${shard + 1}/` : null;
    return { texts: page.texts, next };
  }

  /** Which of these content hashes have a stored vector in every shard (a document may go to any of them). */
  async knownVectors(hashes: string[]): Promise<Set<string>> {
    const shards = await this.#liveShards();
    const known = await Promise.all(shards.map((shard) => this.shard(shard).knownVectors(hashes)));
    return new Set(hashes.filter((hash) => known.every((list) => list.includes(hash))));
  }

  /** Stores vectors ahead of a re-index, in every shard (each keeps the ones its documents use at its next snapshot). */
  async storeVectors(space: string, vectors: HashedVector[]): Promise<void> {
    const shards = await this.#liveShards();
    await Promise.all(shards.map((shard) => this.shard(shard).storeVectors(space, vectors)));
  }

  /**
   * Deletes the app's documents, index and snapshots (each shard its replicas') in every shard object it may have
   * written: the shards shard 0 says the app's full feeds and moves staged into, and any other shard this client reached,
   * then shard 0 (then any shard a cycle or move begun meanwhile added): shard 0 goes last, so a process dying before the
   * end leaves it naming the shards for the retry to reach. Objects that never existed are not called (a call would
   * create one). A job racing the deletion may write into shards after their wipe: the deletion calls this again once
   * the row is gone (the same client, so the same shards, though shard 0 no longer names them), and a job whose app is
   * gone calls it at its end with the client that reached them.
   */
  async destroy(): Promise<void> {
    const others = (shards: number, from = 1) =>
      Promise.all(
        shardNumbers(shards)
          .slice(from)
          .map((shard) => this.shard(shard).destroy()),
      );
    const used = Math.max(await this.stub.shardsUsed(), this.#reached);
    await others(used);
    await others(await this.stub.destroy(), used);
    knownShards.delete(this.#app);
  }

  /** Live size and versions, summed over the shards. */
  async stats(): Promise<IndexStats> {
    const shards = await this.#liveShards();
    const all = await Promise.all(shards.map((shard) => this.shard(shard).stats()));
    return {
      documents: sum(all.map((s) => s.documents)),
      indexed: sum(all.map((s) => s.indexed)),
      seq: sum(all.map((s) => s.seq)),
      snapshotSeq: sum(all.map((s) => s.snapshotSeq)),
    };
  }

  // ---------------------------------------------------------------- full feed

  /** Starts a full-feed cycle staging into `shards` shards (the app's setting); 409 while one is in progress. */
  async startFullFeed(shards = 1): Promise<FullFeedCycle> {
    const cycle = unwrap(await this.stub.startFullFeed(shards));
    await Promise.all(
      shardNumbers(shards)
        .slice(1)
        .map((shard) => this.shard(shard).joinCycle(cycle)),
    );
    return cycle;
  }

  /** Marks the active cycle as ending; 404 without one. */
  async requestFullFeedEnd(): Promise<FullFeedCycle> {
    return unwrap(await this.stub.requestFullFeedEnd());
  }

  /** Discards the active cycle's staged documents in every shard; 404 without one. */
  async cancelFullFeed(): Promise<FullFeedCycle> {
    const cycle = unwrap(await this.stub.cancelFullFeed());
    await this.#abortOthers(cycle);
    return cycle;
  }

  async activeCycle(): Promise<FullFeedCycle | null> {
    return this.stub.activeCycle();
  }

  /** Before recording operations of app `appId`: arms the app's feeding recovery; answers the active cycle and the last cycle id. */
  async noteAccepted(appId: number): Promise<Acceptance> {
    return this.stub.noteAccepted(appId);
  }

  /** The Cron Trigger's backstop for entries staged for minutes in `cycles`: arms recovery when their cycle is ending or ended. */
  async rearmForStaged(appId: number, cycles: number[]): Promise<boolean> {
    return this.stub.rearmForStaged(appId, cycles);
  }

  /** The recovery check asked at `requestedAt` found nothing open. */
  async recoveryIdle(requestedAt: number): Promise<void> {
    return this.stub.recoveryIdle(requestedAt);
  }

  /** Fails the cycle with a reason shown by the status (every shard's staged documents go); false when it is no longer the active one. */
  async failFullFeed(cycleId: number, reason: string): Promise<boolean> {
    const cycle = await this.stub.activeCycle();
    if (!(await this.stub.failFullFeed(cycleId, reason))) return false;
    if (cycle) await this.#abortOthers(cycle);
    return true;
  }

  /** How an ended cycle ended (`FINISHED`: swapped in, `CANCELED`: cancelled or failed); null while it is active. */
  async cycleOutcome(cycleId: number): Promise<'FINISHED' | 'CANCELED' | null> {
    return this.stub.cycleOutcome(cycleId);
  }

  /**
   * Makes an ending cycle's staged documents the live index; `not-ending` when the cycle is not (or no longer)
   * ending, `refused` when a shard refused and the cycle failed.
   * One shard in the cycle and the layout: the object swaps alone. Otherwise a two-phase commit: every shard of
   * the cycle prepares (a refusal fails the cycle and every shard discards its staged documents, the live index
   * untouched), then every shard commits the new generation, shard 0 last. Searches that meet shards of two
   * generations meanwhile ask the ones behind for the newer, which they make live first, so no answer mixes them.
   * A shard failing to commit throws; the consumer's retry commits again (idempotent).
   */
  async finishFullFeed(cycleId: number, config: AppIndexConfig): Promise<SwapOutcome> {
    const { layout, cycle } = await this.layout();
    if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return 'not-ending';
    const shards = cycle.shards ?? 1;
    if (shards === 1 && layout.shards === 1) return (await this.stub.finishFullFeed(cycleId, config)) ? 'swapped' : 'not-ending';
    const swap = { cycleId, layout: { shards, generation: layout.generation + 1 }, config };
    const refusal = await prepareSwap(this.#swapping, swap, layout);
    if (refusal) {
      await this.failFullFeed(cycleId, `the swap was refused: ${refusal}`);
      return 'refused';
    }
    // Cancelled or failed since the votes: nothing committed.
    return (await commitSwap(this.#swapping, swap, layout)) ? 'swapped' : 'not-ending';
  }

  // ---------------------------------------------------------------- re-shard

  /**
   * Moves the documents to `shards` shards (a re-index job, when the app's setting differs from the live layout),
   * atomically like a full feed's swap (`shard-swap.ts`); 409 while a full feed is in progress.
   */
  async reshard(shards: number, config: AppIndexConfig, job: string): Promise<void> {
    const { layout } = await this.layout();
    if (layout.shards !== shards) await reshardApp(this.#swapping, layout, shards, config, job);
  }

  /** This app's shards as a swap reaches them; a committed layout is what searches in this isolate ask first. */
  get #swapping(): SwappingShards {
    return {
      coordinator: this.name,
      shard: (shard) => this.shard(shard),
      shardName: (shard) => shardName(this.#tenantCode, this.#code, shard),
      committed: (layout) => knownShards.set(this.#app, layout.shards),
    };
  }

  /** Full-feed progress; staged and live documents summed over the shards. */
  async fullFeedStatus(): Promise<FullFeedStatus> {
    const status = await this.stub.fullFeedStatus();
    const { layout, cycle } = await this.layout();
    const shards = shardNumbers(Math.max(layout.shards, cycle?.shards ?? 1)).slice(1);
    if (!shards.length) return status;
    const others = await Promise.all(shards.map((shard) => this.shard(shard).fullFeedStatus()));
    return {
      ...status,
      stagedDocuments: status.stagedDocuments + sum(others.map((s) => s.stagedDocuments)),
      liveDocuments: status.liveDocuments + sum(others.slice(0, layout.shards - 1).map((s) => s.liveDocuments)),
    };
  }

  /** Shards other than 0 drop a cycle that will not swap. */
  async #abortOthers(cycle: FullFeedCycle): Promise<void> {
    await Promise.all(
      shardNumbers(cycle.shards ?? 1)
        .slice(1)
        .map((shard) => this.shard(shard).abortSwap(cycle.id)),
    );
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** An object's answer to a batch, or its retry thrown: the queue retries the batch. */
function retried<T extends object>(answer: T): Exclude<T, ApplyRetry> {
  if ('retry' in answer) throw new Error((answer as ApplyRetry).retry);
  return answer as Exclude<T, ApplyRetry>;
}
