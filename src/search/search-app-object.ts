import { DurableObject } from 'cloudflare:workers';
import type { FeedingState } from '../db/schema';
import type { Env } from '../env';
import { AppStorage, type FullFeedCycle } from './app-storage';
import { displayFields, QueryError, SearchIndex } from './engine';
import type { DocumentPayload, IndexConfig, SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type { Outcome } from './search-app-client';

/** A document operation as the feeding consumer hands it to the search app. */
export interface FeedOperation {
  opId: number;
  documentId: string;
  operation: 'update' | 'delete';
  payload?: DocumentPayload;
  /** Set when the operation was sent during a full-feed cycle. */
  cycleId?: number | null;
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
  stagedDocuments: number;
  liveDocuments: number;
}

/** Delay between the last change and the snapshot that covers it. */
const SNAPSHOT_DELAY_MS = 2_000;

function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/**
 * One instance per search app (named `<tenant>/<code>`): holds the app's index in memory, keeps the
 * documents and index snapshots in its SQLite storage, and serializes feeding and full-feed cycles.
 * The index is loaded lazily: snapshot plus the changes made after it, or a rebuild from the documents.
 */
export class SearchAppObject extends DurableObject<Env> {
  readonly #storage: AppStorage;
  #index?: SearchIndex;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#storage = new AppStorage(ctx.storage.sql);
  }

  // ---------------------------------------------------------------- feeding

  /** Applies operations in id order; a document's older operations are IGNORED behind newer ones. */
  async apply(operations: FeedOperation[], config: IndexConfig): Promise<OperationResult[]> {
    const newest = new Map<string, number>();
    for (const op of operations) newest.set(op.documentId, Math.max(op.opId, newest.get(op.documentId) ?? 0));
    const cycle = this.#storage.get('cycle');
    const results = this.ctx.storage.transactionSync(() => {
      let seq: number | undefined;
      return [...operations]
        .sort((a, b) => a.opId - b.opId)
        .map((op): OperationResult => {
          if (newest.get(op.documentId) !== op.opId) return { opId: op.opId, state: 'IGNORED' };
          if (op.cycleId) {
            if (cycle?.id !== op.cycleId) return { opId: op.opId, state: 'CANCELED' };
            if (this.#storage.stagedOp(cycle.id, op.documentId) > op.opId) return { opId: op.opId, state: 'IGNORED' };
            this.#storage.stage(cycle.id, op.documentId, op.operation === 'update' ? op.payload : undefined, op.opId);
            return { opId: op.opId, state: 'PREPARED' };
          }
          if (this.#storage.lastOp(op.documentId) > op.opId) return { opId: op.opId, state: 'IGNORED' };
          const index = this.#loadIndex(config)!;
          seq ??= this.#storage.nextSeq();
          if (op.operation === 'update') {
            this.#storage.put(op.documentId, op.payload ?? {}, op.opId, seq);
            index.add(op.documentId, op.payload ?? {});
          } else {
            this.#storage.markDeleted(op.documentId, op.opId, seq);
            index.remove(op.documentId);
          }
          return { opId: op.opId, state: 'FINISHED' };
        });
    });
    if (results.some((r) => r.state === 'FINISHED')) await this.#scheduleSnapshot();
    return results;
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

  /** Rebuilds the index from the stored documents with a new configuration (Schedule feeding job). */
  async reindex(config: IndexConfig): Promise<{ documents: number }> {
    this.#rebuild(config);
    return { documents: this.#index!.size };
  }

  // ---------------------------------------------------------------- full feed

  async startFullFeed(): Promise<Outcome<FullFeedCycle>> {
    const active = this.#storage.get('cycle');
    if (active) return { ok: false, status: 409, message: `A full feed is already in progress (cycle ${active.id})` };
    const cycle: FullFeedCycle = { id: (this.#storage.get('lastCycleId') ?? 0) + 1, state: 'ACTIVE', startedAt: new Date().toISOString() };
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
  async finishFullFeed(cycleId: number, config: IndexConfig): Promise<boolean> {
    const cycle = this.#storage.get('cycle');
    if (cycle?.id !== cycleId || cycle.state !== 'ENDING') return false;
    this.ctx.storage.transactionSync(() => {
      this.#storage.promoteStaged(cycleId);
      this.#storage.set('cycle', undefined);
      this.#rebuild(config);
    });
    return true;
  }

  async cancelFullFeed(): Promise<Outcome<FullFeedCycle>> {
    const cycle = this.#storage.get('cycle');
    if (!cycle) return { ok: false, status: 404, message: 'No active full feed' };
    this.ctx.storage.transactionSync(() => {
      this.#storage.discardStaged(cycle.id);
      this.#storage.set('cycle', undefined);
    });
    return ok(cycle);
  }

  async fullFeedStatus(): Promise<FullFeedStatus> {
    const cycle = this.#storage.get('cycle') ?? null;
    return {
      active: cycle !== null,
      cycle,
      stagedDocuments: cycle ? this.#storage.stagedCount(cycle.id) : 0,
      liveDocuments: this.#storage.liveCount(),
    };
  }

  // ---------------------------------------------------------------- search

  async search(request: SearchRequest): Promise<Outcome<SearchResult>> {
    const index = this.#loadIndex();
    const started = Date.now();
    try {
      const found = index?.search(request) ?? { total: 0, hits: [], facets: [] };
      const payloads = this.#storage.documents(found.hits.map((hit) => hit.id));
      const fields = index?.config.fields ?? [];
      return ok({
        total: found.total,
        time: Date.now() - started,
        documents: found.hits.map((hit) => ({
          id: hit.id,
          position: hit.position,
          document: displayFields(fields, payloads.get(hit.id) ?? {}),
        })),
        facets: found.facets,
        paging: { page: request.page, rows: request.rows, total: found.total, totalPages: Math.ceil(found.total / request.rows) },
      });
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, status: 400, message: 'Invalid search request', details: error.details };
      throw error;
    }
  }

  async suggest(request: SuggestRequest): Promise<Outcome<Suggestion[]>> {
    return ok(this.#loadIndex()?.suggest(request) ?? []);
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

  override async alarm(): Promise<void> {
    const seq = this.#storage.get('seq') ?? 0;
    if (seq > (this.#storage.get('snapshotSeq') ?? 0) && this.#loadIndex()) this.#writeSnapshot();
  }

  // ---------------------------------------------------------------- index lifecycle

  /** The in-memory index, loading it on first use; `config` starts an empty app's first index. */
  #loadIndex(config?: IndexConfig): SearchIndex | undefined {
    if (this.#index) return this.#index;
    const stored = this.#storage.get('config');
    if (!stored) {
      if (!config) return undefined;
      this.#storage.set('config', config);
      return (this.#index = new SearchIndex(config));
    }
    const bytes = this.#storage.readSnapshot();
    if (bytes) {
      try {
        const index = SearchIndex.load(stored, bytes);
        for (const change of this.#storage.changesSince(this.#storage.get('snapshotSeq') ?? 0)) {
          if (change.payload) index.add(change.id, change.payload);
          else index.remove(change.id);
        }
        return (this.#index = index);
      } catch (error) {
        console.error(JSON.stringify({ level: 'warn', msg: 'snapshot unusable, rebuilding', error: String(error) }));
      }
    }
    this.#rebuild(stored);
    return this.#index;
  }

  /** A fresh index from the stored documents, snapshotted at once so the next cold start is a load. */
  #rebuild(config: IndexConfig): void {
    this.#index = undefined; // let the old index go before the new one grows
    const index = new SearchIndex(config);
    for (const doc of this.#storage.liveDocuments()) index.add(doc.id, doc.payload);
    this.#index = index;
    this.#writeSnapshot();
  }

  #writeSnapshot(): void {
    const index = this.#index!;
    this.#storage.writeSnapshot(index.serialize(), index.config, this.#storage.get('seq') ?? 0);
  }

  async #scheduleSnapshot(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + SNAPSHOT_DELAY_MS);
  }
}
