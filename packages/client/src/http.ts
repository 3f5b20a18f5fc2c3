/** The one HTTP call of the client: JSON in and out, the service's token header, errors as EdgeSearchError. */
import type { ErrorBody, ErrorDetail } from '../../../src/contract/index.ts';

/** The header every token travels in. */
export const TOKEN_HEADER = 'X-Service-Token';

/** Which token a call presents: a tenant's feeding or admin token, the root (admin API) token, the agent token (chat) or none (search). */
export type TokenKind = 'feeding' | 'admin' | 'root' | 'agent' | 'none';

export interface ClientOptions {
  /** Base address, e.g. `https://search.example.com` or `http://127.0.0.1:8787`. */
  url: string;
  /** Feeding token (`EDGE_SEARCH_TOKEN`): documents, bulk, upload, full feeds, queue, jobs. */
  token?: string;
  /** Tenant admin token (`EDGE_SEARCH_ADMIN_TOKEN`): the search app's schema. */
  adminToken?: string;
  /** Root token of the admin API (`ADMIN_TOKEN` secret): tenants, search apps, tokens. */
  rootToken?: string;
  /** Agent token (`AUTH_TOKEN` secret): agent chat. */
  agentToken?: string;
  /** A `fetch` to use instead of the global one (a service binding's, a test's). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  token?: TokenKind;
  /** Query parameters in order: a record (arrays repeat a name, undefined is left out) or name/value pairs. */
  query?: Record<string, string | number | boolean | undefined | Array<string | number>> | Array<[string, string]>;
  /** A JSON value, or a raw body sent with `contentType`. */
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  /** Further headers (an email configuration's API key header). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A non-2xx answer: the service's error body, with the status. */
export class EdgeSearchError extends Error {
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly body: ErrorBody | undefined;

  constructor(status: number, body: ErrorBody | undefined, fallback: string) {
    super(body?.message ?? fallback);
    this.name = 'EdgeSearchError';
    this.status = status;
    this.body = body;
    this.details = body?.details ?? [];
  }

  /** The message with each offending field on its own line. */
  describe(): string {
    return [`${this.status} ${this.message}`, ...this.details.map((d) => `  ${d.path}: ${d.message}`)].join('\n');
  }
}

/** Sends one request; answers the parsed JSON (or text for non-JSON answers, undefined for 204). */
export async function send<T>(options: ClientOptions, method: string, path: string, request: RequestOptions = {}): Promise<T> {
  const response = await open(options, method, path, request);
  if (response.status === 204) return undefined as T;
  return (response.headers.get('Content-Type')?.includes('json') ? await response.json() : await response.text()) as T;
}

/** Sends one request and answers the response with its body unread (a stream); a non-2xx answer throws. */
export async function open(options: ClientOptions, method: string, path: string, request: RequestOptions = {}): Promise<Response> {
  const url = new URL(path.replace(/^\//, ''), options.url.endsWith('/') ? options.url : `${options.url}/`);
  const query = Array.isArray(request.query) ? request.query : Object.entries(request.query ?? {});
  for (const [name, value] of query) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(one));
  }
  const headers = new Headers(request.headers);
  const token = tokenFor(options, request.token ?? 'none');
  if (token) headers.set(TOKEN_HEADER, token);
  let body = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers.set('Content-Type', 'application/json');
  } else if (request.contentType) headers.set('Content-Type', request.contentType);
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal: request.signal };
  // Node's fetch streams a ReadableStream body only in half-duplex mode.
  if (body instanceof ReadableStream) init.duplex = 'half';
  const response = await (options.fetch ?? fetch)(url, init);
  if (!response.ok) {
    const isJson = response.headers.get('Content-Type')?.includes('json') ?? false;
    const errorBody = isJson ? ((await response.json().catch(() => undefined)) as ErrorBody | undefined) : undefined;
    throw new EdgeSearchError(response.status, errorBody, `${method} ${url.pathname} answered ${response.status}`);
  }
  return response;
}

function tokenFor(options: ClientOptions, kind: TokenKind): string | undefined {
  if (kind === 'none') return undefined;
  const [token, option] = {
    feeding: [options.token, 'token (EDGE_SEARCH_TOKEN)'],
    admin: [options.adminToken, 'adminToken (EDGE_SEARCH_ADMIN_TOKEN)'],
    root: [options.rootToken, 'rootToken'],
    agent: [options.agentToken, 'agentToken'],
  }[kind];
  if (!token) throw new Error(`This call needs the ${kind} token: set ${option}`);
  return token;
}
