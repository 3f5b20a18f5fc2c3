/** The typed client: every call of the service, its types derived from the server's zod schemas. */
import type {
  AgentConfig,
  AgentConfigBody,
  BulkFeedingResponse,
  ChatAnswer,
  ChatBody,
  ChatStreamLine,
  EmailConfig,
  EmailConfigBody,
  EmailDelivery,
  EmailSendBody,
  DocumentType,
  FeedingState,
  FullFeedAnswer,
  FullFeedStatus,
  IssuedToken,
  Job,
  JobCreated,
  QueueEntry,
  QueueListQuery,
  QueueListResponse,
  SearchApp,
  SearchAppBody,
  SearchAppSchema,
  SearchBody,
  SearchResponse,
  SuggestResponse,
  Tenant,
  TokenBody,
  TokenInfo,
} from '../../../src/contract/index.ts';
import { feedInChunks, type FeedOptions, type FeedSummary } from './feed.ts';
import { searchQueryParameters } from './search-query.ts';
import { open, send, TOKEN_HEADER, type ClientOptions, type RequestOptions } from './http.ts';

export interface EdgeSearchOptions extends ClientOptions {
  /** Tenant code of every tenant call. */
  tenant: string;
  /** Search app code of every search app call. */
  app?: string;
}

export interface WaitOptions {
  /** Milliseconds between polls (default 1000). */
  interval?: number;
  signal?: AbortSignal;
  /** Called with each poll's answer. */
  onPoll?: (answer: QueueListResponse) => void;
}

/** States an entry leaves on its own; the others are final (FINISHED, ERROR, IGNORED, CANCELED). */
export const PENDING_STATES: readonly FeedingState[] = ['CREATED', 'STARTED', 'PREPARED'];

const segment = encodeURIComponent;

/** A client of one tenant (and optionally one search app) of an edge search service. */
export class EdgeSearchClient {
  readonly options: EdgeSearchOptions;

  constructor(options: EdgeSearchOptions) {
    this.options = options;
  }

  /** Any call of the service, typed by the caller: the escape hatch for routes without a method here. */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return send<T>(this.options, method, path, options);
  }

  /** `tenant/app` of the path, URL-encoded; throws when no search app is configured. */
  private appPath(): string {
    const { tenant, app } = this.options;
    if (!app) throw new Error('This call needs a search app: set app (EDGE_SEARCH_APP)');
    return `${segment(tenant)}/${segment(app)}`;
  }

  // ------------------------------------------------------------ search (public)

  /**
   * A search: by GET when its query string says exactly the same (answers cached at the edge and by browsers,
   * one canonical URL per question), otherwise by POST (`and`/`not`/`tree` filters and the like).
   */
  search(request: SearchBody = {}, options?: { signal?: AbortSignal }): Promise<SearchResponse> {
    const path = `/api/v1/search/${this.appPath()}`;
    const parameters = searchQueryParameters(request);
    return parameters
      ? this.request('GET', path, { query: parameters, signal: options?.signal })
      : this.request('POST', path, { json: request, signal: options?.signal });
  }

  /** Completions of the last word of `q` (by GET, cached like searches). */
  suggest(q: string, options: { rows?: number; signal?: AbortSignal } = {}): Promise<SuggestResponse> {
    return this.request('GET', `/api/v1/search/suggest/${this.appPath()}`, { query: { q, rows: options.rows }, signal: options.signal });
  }

  // ------------------------------------------------------------ documents (feeding token)

  /** The stored document as `[{ id, ...payload }]`. */
  getDocument(id: string): Promise<Array<Record<string, unknown>>> {
    return this.request('GET', `/api/v1/data/${this.appPath()}/${segment(id)}`, { token: 'feeding' });
  }

  putDocument(id: string, entry: unknown, type: DocumentType = 'svc'): Promise<QueueEntry> {
    return this.request('POST', `/api/v1/data/${type}/${this.appPath()}/${segment(id)}`, { token: 'feeding', json: entry });
  }

  deleteDocument(id: string, type: DocumentType = 'svc'): Promise<QueueEntry> {
    return this.request('DELETE', `/api/v1/data/${type}/${this.appPath()}/${segment(id)}`, { token: 'feeding' });
  }

  /** One bulk request (at most 10,000 entries): a JSON array of entries, or NDJSON text. */
  bulk(entries: unknown[] | string, options: { type?: DocumentType; details?: 'all' | 'errors' } = {}): Promise<BulkFeedingResponse> {
    const path = `/api/v1/data/bulk/${options.type ?? 'svc'}/${this.appPath()}`;
    const query = { details: options.details };
    return typeof entries === 'string'
      ? this.request('POST', path, { token: 'feeding', query, body: entries, contentType: 'application/x-ndjson' })
      : this.request('POST', path, { token: 'feeding', query, json: entries });
  }

  /** Feeds any number of entries as bulk requests of `chunkSize`, `concurrency` at a time; answers the totals. */
  feed(entries: Iterable<unknown> | AsyncIterable<unknown>, options: FeedOptions = {}): Promise<FeedSummary> {
    return feedInChunks((chunk) => this.bulk(chunk, { type: options.type, details: 'errors' }), entries, options);
  }

  /** Streams a whole file (JSON array or NDJSON) in one request; the service parses it as it arrives. */
  upload(
    file: ReadableStream<Uint8Array> | Blob | string,
    options: { type?: DocumentType; details?: 'all' | 'errors'; contentType?: string } = {},
  ): Promise<BulkFeedingResponse> {
    return this.request('POST', `/api/v1/data/upload/${options.type ?? 'svc'}/${this.appPath()}`, {
      token: 'feeding',
      query: { details: options.details },
      body: file,
      contentType: options.contentType ?? 'application/x-ndjson',
    });
  }

  queueEntry(id: number): Promise<QueueEntry> {
    return this.request('GET', `/api/v1/data/queue/${this.appPath()}/${id}`, { token: 'feeding' });
  }

  /** Queue entries in id order (filtered by state, paged by `after`) and the counts by state. */
  queueEntries(query: QueueListQuery = {}): Promise<QueueListResponse> {
    return this.request('GET', `/api/v1/data/queue/${this.appPath()}`, { token: 'feeding', query });
  }

  /** Polls until no entry above `after` is pending; answers the last counts. */
  async waitForQueue(after?: number, options: WaitOptions = {}): Promise<QueueListResponse> {
    for (;;) {
      const answer = await this.queueEntries({ after, limit: 1 });
      options.onPoll?.(answer);
      if (PENDING_STATES.every((state) => !answer.counts[state])) return answer;
      await pause(options.interval ?? 1000, options.signal);
    }
  }

  // ------------------------------------------------------------ full feed (feeding token)

  startFullFeed(): Promise<FullFeedAnswer> {
    return this.request('POST', `/api/v1/data/fullfeed/start/${this.appPath()}`, { token: 'feeding', json: {} });
  }

  endFullFeed(): Promise<FullFeedAnswer> {
    return this.request('POST', `/api/v1/data/fullfeed/end/${this.appPath()}`, { token: 'feeding', json: {} });
  }

  cancelFullFeed(): Promise<FullFeedAnswer> {
    return this.request('POST', `/api/v1/data/fullfeed/cancel/${this.appPath()}`, { token: 'feeding' });
  }

  fullFeedStatus(): Promise<FullFeedStatus> {
    return this.request('GET', `/api/v1/data/fullfeed/status/${this.appPath()}`, { token: 'feeding' });
  }

  /**
   * A full-feed cycle: start, `feed` (everything sent in it replaces the index), end. When `feed` throws,
   * the cycle is cancelled (the live index stays) unless `keepGoing`, and the error is rethrown.
   */
  async fullFeed<T>(feed: () => Promise<T>, options: { keepGoing?: boolean } = {}): Promise<{ result: T; end: FullFeedAnswer }> {
    await this.startFullFeed();
    let result: T;
    try {
      result = await feed();
    } catch (error) {
      if (!options.keepGoing) await this.cancelFullFeed();
      throw error;
    }
    return { result, end: await this.endFullFeed() };
  }

  /** Polls until no full feed is active or ending (the swap is done or the cycle was cancelled). */
  async waitForFullFeed(
    options: Omit<WaitOptions, 'onPoll'> & { onPoll?: (status: FullFeedStatus) => void } = {},
  ): Promise<FullFeedStatus> {
    for (;;) {
      const status = await this.fullFeedStatus();
      options.onPoll?.(status);
      if (status.state !== 'ACTIVE' && status.state !== 'ENDING') return status;
      await pause(options.interval ?? 1000, options.signal);
    }
  }

  // ------------------------------------------------------------ jobs (feeding token)

  /** Schedules a re-index of the stored documents with the current schema. */
  reindex(): Promise<JobCreated> {
    return this.request('PUT', `/api/v1/job/${this.appPath()}/feeding/_schedule`, { token: 'feeding', json: {} });
  }

  job(jobId: string): Promise<Job> {
    return this.request('GET', `/api/v1/job/${this.appPath()}/${segment(jobId)}`, { token: 'feeding' });
  }

  async waitForJob(jobId: string, options: Omit<WaitOptions, 'onPoll'> & { onPoll?: (job: Job) => void } = {}): Promise<Job> {
    for (;;) {
      const job = await this.job(jobId);
      options.onPoll?.(job);
      if (job.state === 'FINISHED' || job.state === 'ERROR') return job;
      await pause(options.interval ?? 1000, options.signal);
    }
  }

  // ------------------------------------------------------------ schema (tenant admin token)

  getSchema(): Promise<SearchAppSchema> {
    return this.request('GET', `/api/v1/searchapp/schema/${this.appPath()}`, { token: 'admin' });
  }

  putSchema(schema: unknown): Promise<SearchAppSchema> {
    return this.request('PUT', `/api/v1/searchapp/schema/${this.appPath()}`, { token: 'admin', json: schema });
  }

  // ------------------------------------------------------------ administration (root token)

  tenants(): Promise<{ tenants: Tenant[] }> {
    return this.request('GET', '/api/v1/admin/tenants', { token: 'root' });
  }

  putTenant(body: { name?: string } = {}): Promise<Tenant> {
    return this.request('PUT', `/api/v1/admin/tenants/${segment(this.options.tenant)}`, { token: 'root', json: body });
  }

  deleteTenant(): Promise<void> {
    return this.request('DELETE', `/api/v1/admin/tenants/${segment(this.options.tenant)}`, { token: 'root' });
  }

  searchApps(): Promise<{ searchApps: SearchApp[] }> {
    return this.request('GET', `/api/v1/admin/searchapps/${segment(this.options.tenant)}`, { token: 'root' });
  }

  putSearchApp(body: SearchAppBody = {}): Promise<SearchApp> {
    return this.request('PUT', `/api/v1/admin/searchapps/${this.appPath()}`, { token: 'root', json: body });
  }

  /** Deletes the search app with its documents, index, snapshots and queue entries. */
  deleteSearchApp(): Promise<void> {
    return this.request('DELETE', `/api/v1/admin/searchapps/${this.appPath()}`, { token: 'root' });
  }

  tokens(): Promise<{ tokens: TokenInfo[] }> {
    return this.request('GET', `/api/v1/admin/tokens/${segment(this.options.tenant)}`, { token: 'root' });
  }

  createToken(body: TokenBody): Promise<IssuedToken> {
    return this.request('POST', `/api/v1/admin/tokens/${segment(this.options.tenant)}`, { token: 'root', json: body });
  }

  revokeToken(id: string): Promise<void> {
    return this.request('DELETE', `/api/v1/admin/tokens/${segment(this.options.tenant)}/${segment(id)}`, { token: 'root' });
  }

  // ------------------------------------------------------------ agents (root token; chat with the agent token)

  agents(): Promise<{ agents: AgentConfig[] }> {
    return this.request('GET', `/api/v1/admin/agents/${segment(this.options.tenant)}`, { token: 'root' });
  }

  getAgent(code: string): Promise<AgentConfig> {
    return this.request('GET', this.tenantPath('agents', code), { token: 'root' });
  }

  /** Replaces the agent configuration; an omitted `openai.apiKey` keeps the stored one. */
  putAgent(code: string, body: AgentConfigBody): Promise<AgentConfig> {
    return this.request('PUT', this.tenantPath('agents', code), { token: 'root', json: body });
  }

  /** Deletes the agent configuration with its chat sessions; safe to retry. */
  deleteAgent(code: string): Promise<void> {
    return this.request('DELETE', this.tenantPath('agents', code), { token: 'root' });
  }

  /** One chat turn, answered whole. */
  chat(agent: string, body: ChatBody, options?: { signal?: AbortSignal }): Promise<ChatAnswer> {
    const path = `/api/v1/agent/chat/${segment(this.options.tenant)}/${segment(agent)}`;
    return this.request('POST', path, { token: 'agent', json: body, signal: options?.signal });
  }

  /**
   * One chat turn, streamed: yields each delta as the model produces it, then the final answer.
   *
   * ```ts
   * for await (const line of client.chatStream('assistant', { text: 'Which editor for Rust?' })) {
   *   if (line.streaming) process.stdout.write(line.data);
   * }
   * ```
   */
  async *chatStream(agent: string, body: ChatBody, options?: { signal?: AbortSignal }): AsyncGenerator<ChatStreamLine> {
    const path = `/api/v1/agent/chat/streaming/${segment(this.options.tenant)}/${segment(agent)}`;
    const response = await open(this.options, 'POST', path, { token: 'agent', json: body, signal: options?.signal });
    if (!response.body) return;
    let pending = '';
    for await (const text of response.body.pipeThrough(new TextDecoderStream())) {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) yield JSON.parse(line) as ChatStreamLine;
    }
    if (pending.trim()) yield JSON.parse(pending) as ChatStreamLine;
  }

  // ------------------------------------------------------------ email (root token; send with the configuration's key)

  emailConfigs(): Promise<{ emailConfigs: EmailConfig[] }> {
    return this.request('GET', `/api/v1/admin/email/${segment(this.options.tenant)}`, { token: 'root' });
  }

  getEmailConfig(code: string): Promise<EmailConfig> {
    return this.request('GET', this.tenantPath('email', code), { token: 'root' });
  }

  /** Creates or updates the configuration (present fields replace, `null` clears); a new API key is answered once. */
  putEmailConfig(code: string, body: EmailConfigBody): Promise<EmailConfig & { apiKey?: string }> {
    return this.request('PUT', this.tenantPath('email', code), { token: 'root', json: body });
  }

  /** Deletes the configuration with its delivery log; safe to retry. */
  deleteEmailConfig(code: string): Promise<void> {
    return this.request('DELETE', this.tenantPath('email', code), { token: 'root' });
  }

  /** The newest deliveries of the configuration, newest first. */
  emailDeliveries(code: string, options: { limit?: number } = {}): Promise<{ deliveries: EmailDelivery[] }> {
    return this.request('GET', `${this.tenantPath('email', code)}/deliveries`, { token: 'root', query: { limit: options.limit } });
  }

  /** Queues one email; `apiKey` is the configuration's key, sent in its header (default `X-Service-Token`). */
  sendEmail(code: string, body: EmailSendBody, key: { apiKey: string; header?: string }): Promise<void> {
    const path = `/api/v1/email/send/${segment(this.options.tenant)}/${segment(code)}`;
    return this.request('POST', path, { json: body, headers: { [key.header ?? TOKEN_HEADER]: key.apiKey } }).then(() => undefined);
  }

  /** `/api/v1/admin/{kind}/{tenant}/{code}`, URL-encoded. */
  private tenantPath(kind: 'agents' | 'email', code: string): string {
    return `/api/v1/admin/${kind}/${segment(this.options.tenant)}/${segment(code)}`;
  }
}

/** A client of one tenant and search app. */
export function createClient(options: EdgeSearchOptions): EdgeSearchClient {
  return new EdgeSearchClient(options);
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
