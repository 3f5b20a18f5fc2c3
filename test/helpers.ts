import { env, exports } from 'cloudflare:workers';
import type { Env } from '../src/env';

export const ADMIN_TOKEN = 'test-admin-token';
export const AGENT_TOKEN = 'test-agent-token';
export const BASE = 'http://service.test';

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

/** Calls the worker's fetch handler like an HTTP client would. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set('X-Service-Token', options.token);
  let body = options.rawBody;
  if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.body);
  }
  return exports.default.fetch(new Request(BASE + path, { method, headers, body }));
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

let counter = 0;
/** A code unique within the test run, so tests never share tenants. */
export function uniqueCode(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** Creates a tenant and a search app through the admin API. */
export async function createTenantWithApp(prefix = 't', appCode = 'catalog', sorts?: unknown[]) {
  const tenant = uniqueCode(prefix);
  await expectOk(call('PUT', `/api/v1/admin/tenants/${tenant}`, { token: ADMIN_TOKEN, body: { name: tenant } }));
  await expectOk(call('PUT', `/api/v1/admin/searchapps/${tenant}/${appCode}`, { token: ADMIN_TOKEN, body: sorts ? { sorts } : {} }));
  return { tenant, code: appCode };
}

/** Issues a tenant token through the admin API and answers its plaintext. */
export async function createToken(tenant: string, kind: 'admin' | 'feeding', permission: 'READ' | 'WRITE' = 'WRITE') {
  const res = await expectOk(call('POST', `/api/v1/admin/tokens/${tenant}`, { token: ADMIN_TOKEN, body: { kind, permission } }));
  return await res.json<{ id: string; token: string }>();
}

export async function expectOk(responsePromise: Promise<Response>): Promise<Response> {
  const res = await responsePromise;
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return res;
}

/** Polls `read` until `done` holds, for at most `timeoutMs` (queues deliver asynchronously): bounded, never a blind sleep. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached; last value: ${JSON.stringify(value)}`);
    await scheduler.wait(25);
  }
}

/**
 * The test environment with every call to a search-app object going through `around` (which sends it with `send`, or
 * not): a process that dies, or is held, between its object calls.
 */
export function objectCallsThrough(around: (send: () => Promise<unknown>, method: string) => Promise<unknown>): Env {
  const namespace = env.SEARCH_APP;
  const through = (stub: DurableObjectStub): DurableObjectStub =>
    new Proxy(stub, {
      get(target, prop) {
        if (prop === 'then') return undefined;
        const member: unknown = Reflect.get(target, prop);
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) =>
          around(
            () => Promise.resolve((target as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>)[prop](...args)),
            String(prop),
          );
      },
    });
  const SEARCH_APP = { idFromName: (name: string) => namespace.idFromName(name), get: (id: DurableObjectId) => through(namespace.get(id)) };
  // Defined, not assigned: an assignment would reach the runtime's env through the prototype and replace its binding.
  return Object.create(env, { SEARCH_APP: { value: SEARCH_APP } }) as Env;
}
