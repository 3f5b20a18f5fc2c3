/**
 * The one typed client of a search app's Durable Object: every caller (routes, feeding, agent, tests) talks
 * to the object through it, so answers are typed once and failed outcomes become the one error type once.
 */
import type { Env } from '../env';
import { ApiError, type ErrorDetail } from '../errors';
import type { VersionedAnswer } from './answers';
import { currentVersion } from './edge-cache';
import { readTarget, type ReadPlacement } from './replica-reads';
import type { ReplicaRegion } from './replica-regions';
import type { FullFeedCycle, HashedVector } from './app-storage';
import type { HighlightRequest } from './engine/highlight';
import type { DocumentPayload, SearchRequest, SearchResult, Suggestion, SuggestRequest } from './engine/types';
import type {
  AppIndexConfig,
  FeedOperation,
  FullFeedStatus,
  IndexRead,
  IndexStats,
  MissingVectors,
  OperationResult,
  SearchAppObject,
  SemanticSearch,
} from './search-app-object';

/**
 * What the Durable Object answers for a call that can fail on the caller's input. Error classes do not
 * survive RPC (they arrive as plain `Error`), so the problem travels as data and the client throws it.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; status: 400 | 404 | 409; message: string; details?: ErrorDetail[] };

/** The value of an outcome, or its problem thrown as ApiError. */
function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new ApiError(outcome.status, outcome.message, outcome.details);
}

/** A serialized answer and which copy of the index computed it. */
export interface RoutedAnswer extends VersionedAnswer {
  servedBy: ReplicaRegion | 'primary';
}

/** Typed calls to one search app's Durable Object (named `<tenant>/<code>`). */
export class SearchAppClient {
  /** The raw stub, for tests that evict the object or run its alarm. */
  readonly stub: DurableObjectStub<SearchAppObject>;
  /** The object's name, which its replicas' names extend. */
  readonly name: string;

  constructor(
    private readonly env: Env,
    tenantCode: string,
    code: string,
  ) {
    this.name = `${tenantCode}/${code}`;
    this.stub = env.SEARCH_APP.get(env.SEARCH_APP.idFromName(this.name));
  }

  /**
   * A search or suggest answered by the nearest replica when it has the index version this isolate knows (learned
   * from this primary at most `VERSION_BOUND_MS` ago, or now when `fresh`), else by the primary.
   */
  async nearestAnswer(read: IndexRead, placement: ReadPlacement, fresh = false): Promise<RoutedAnswer> {
    const target = readTarget(this.env, this.name, placement);
    if (target.region) {
      const minVersion = await currentVersion(this.name, this, fresh);
      const outcome = await target.stub.replicaAnswer({ primary: this.name, name: target.name }, read, minVersion, fresh);
      if (outcome) return { ...unwrap(outcome), servedBy: target.region };
    }
    return { ...unwrap(await this.stub.readAnswer(read, fresh)), servedBy: 'primary' };
  }

  /** Keeps the replicas of these regions, deletes the others. */
  async retainReplicas(regions: readonly ReplicaRegion[]): Promise<void> {
    await this.stub.retainReplicas([...regions]);
  }

  /** One page of results; an invalid query (unknown facet or sort, a value not fitting its facet) is ApiError 400. */
  async search(request: SearchRequest & HighlightRequest): Promise<SearchResult> {
    // RPC typing cannot express `document: Record<string, unknown>`; the object declares Outcome<SearchResult>.
    return unwrap((await this.stub.search(request)) as Outcome<SearchResult>);
  }

  async suggest(request: SuggestRequest): Promise<Suggestion[]> {
    return unwrap(await this.stub.suggest(request));
  }

  /** `search` as JSON with the index version it answers for; `fresh` skips the object's memory of repeated queries. */
  async searchAnswer(request: SearchRequest & HighlightRequest, fresh = false, semantic?: SemanticSearch): Promise<VersionedAnswer> {
    return unwrap(await this.stub.searchAnswer(request, fresh, semantic));
  }

  /** `suggest` as JSON with the index version it answers for; `fresh` skips the object's memory of repeated queries. */
  async suggestAnswer(request: SuggestRequest, fresh = false): Promise<VersionedAnswer> {
    return unwrap(await this.stub.suggestAnswer(request, fresh));
  }

  /** The live index's version (changes with every feeding batch, full-feed swap and re-index). */
  async indexVersion(): Promise<number> {
    return this.stub.indexVersion();
  }

  /** The live document, or null. */
  async document(id: string): Promise<DocumentPayload | null> {
    return (await this.stub.document(id)) as DocumentPayload | null;
  }

  /** Whether a delete of this document has something to delete (live, or staged by the active cycle). */
  async hasDocument(id: string): Promise<boolean> {
    return this.stub.hasDocument(id);
  }

  /** Applies operations; `vectors` are the ones embedded for them that the object does not have yet. */
  async apply(operations: FeedOperation[], config: AppIndexConfig, vectors: HashedVector[] = []): Promise<OperationResult[]> {
    return this.stub.apply(operations, config, vectors);
  }

  /** Rebuilds the indexes with `config`; 409 while a semantic text of a document has no stored vector. */
  async reindex(config: AppIndexConfig): Promise<{ documents: number }> {
    return unwrap(await this.stub.reindex(config));
  }

  /** Semantic texts a re-index with `config` would lack vectors for, a page of documents at a time. */
  async missingVectors(config: AppIndexConfig, after: string, limit: number): Promise<MissingVectors> {
    return this.stub.missingVectors(config, after, limit);
  }

  /** Which of these content hashes have a stored vector. */
  async knownVectors(hashes: string[]): Promise<Set<string>> {
    return new Set(await this.stub.knownVectors(hashes));
  }

  async storeVectors(space: string, vectors: HashedVector[]): Promise<void> {
    await this.stub.storeVectors(space, vectors);
  }

  /** Deletes the app's documents, index and snapshots. */
  async destroy(): Promise<void> {
    await this.stub.destroy();
  }

  async stats(): Promise<IndexStats> {
    return this.stub.stats();
  }

  /** Starts a full-feed cycle; 409 while one is in progress. */
  async startFullFeed(): Promise<FullFeedCycle> {
    return unwrap(await this.stub.startFullFeed());
  }

  /** Marks the active cycle as ending; 404 without one. */
  async requestFullFeedEnd(): Promise<FullFeedCycle> {
    return unwrap(await this.stub.requestFullFeedEnd());
  }

  /** Discards the active cycle's staged documents; 404 without one. */
  async cancelFullFeed(): Promise<FullFeedCycle> {
    return unwrap(await this.stub.cancelFullFeed());
  }

  async activeCycle(): Promise<FullFeedCycle | null> {
    return this.stub.activeCycle();
  }

  /** Before recording operations of app `appId`: arms the app's feeding recovery; answers the active cycle. */
  async noteAccepted(appId: number): Promise<FullFeedCycle | null> {
    return this.stub.noteAccepted(appId);
  }

  /** The recovery check asked at `requestedAt` found nothing open. */
  async recoveryIdle(requestedAt: number): Promise<void> {
    return this.stub.recoveryIdle(requestedAt);
  }

  /** Fails the cycle with a reason shown by the status; false when it is no longer the active one. */
  async failFullFeed(cycleId: number, reason: string): Promise<boolean> {
    return this.stub.failFullFeed(cycleId, reason);
  }

  /** How an ended cycle ended (`FINISHED`: swapped in, `CANCELED`: cancelled or failed); null while it is active. */
  async cycleOutcome(cycleId: number): Promise<'FINISHED' | 'CANCELED' | null> {
    return this.stub.cycleOutcome(cycleId);
  }

  async finishFullFeed(cycleId: number, config: AppIndexConfig): Promise<boolean> {
    return this.stub.finishFullFeed(cycleId, config);
  }

  async fullFeedStatus(): Promise<FullFeedStatus> {
    return this.stub.fullFeedStatus();
  }
}
