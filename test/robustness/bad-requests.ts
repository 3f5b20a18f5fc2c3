/**
 * Randomized bad requests over every route of the OpenAPI document, and the check of their answers: the fuzz
 * test (test/robustness/fuzz.test.ts) sends them to the worker in the test runtime, `npm run fuzz`
 * (scripts/fuzz.mjs) to a running service. Plain TypeScript on fast-check only, so Node loads it as well.
 */
import fc from 'fast-check';

/** The OpenAPI document's `paths`: path template (`{param}`) → method → operation. */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/** A tenant the requests aim at: its codes, and its credential for each security scheme of the document. */
export interface FuzzTarget {
  tenant: string;
  /** Search app, agent configuration and email configuration codes. */
  code: string;
  agent: string;
  emailConfig: string;
  /** OpenAPI security scheme name (`rootToken`, `feedingToken`, …) → the credential this target sends for it. */
  credentials: Record<string, string>;
}

/** What the requests are made of. */
export interface FuzzWorld {
  paths: OpenApiPaths;
  /**
   * The tenant whose documents must come out unchanged: its credentials cannot change documents (READ tokens;
   * the root token is never sent with a DELETE to a target), and its WRITE feeding token only carries documents
   * broken on purpose.
   */
  guard: FuzzTarget & { documentIds: string[]; feedingToken: string };
  /** A tenant anything may happen to: valid WRITE credentials reach its routes with random bodies. */
  playground: FuzzTarget;
  /** Further credentials: revoked, of other tenants, garbage. */
  tokens: string[];
  /** The root token: never sent with a DELETE to a target tenant. */
  rootToken: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** A broken document sent to the guard app with its own feeding token: it must be refused. */
  brokenDocument?: boolean;
}

const TOKEN_HEADER = 'X-Service-Token';
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
const RESERVED = ['__proto__', 'constructor', 'prototype'];

/** Strings that broke parsers, decoders and maps elsewhere. */
const TRICKY = [
  ...RESERVED,
  '',
  ' ',
  '..',
  '%',
  '%zz',
  '%ff',
  '%c3%28',
  '%00',
  'a'.repeat(65),
  '-x',
  '😀',
  '<b>x</b>',
  'null',
  '0',
  '-1',
  '1.5',
  '1e309',
  '9007199254740993',
  '18446744073709551616',
  'NaN',
];
const HUGE_NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 0.1, -1, 0, 1e-320];

/** Bodies that are JSON-shaped trouble: numbers JSON cannot hold, reserved keys, truncation. */
const RAW_BODIES = [
  '{"rows":1e999}',
  '{"page":99999999999999999999999,"rows":-0}',
  '[1e400]',
  '{"__proto__":null}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"filters":{"__proto__":{"filterType":"term","values":["x"]}}}',
  '{"variables":{"__proto__":{"value":"x"}}}',
  '{"fields":[{"code":"__proto__","dataType":"string"}]}',
  'null',
  '""',
  '[]',
  '{}',
  '{',
  '{"a":',
  '[{"header":',
  '\u0000',
  '\ufeff{}',
];

/** Keys the routes read, so random bodies get past the first checks now and then. */
const BODY_KEYS = [
  'q',
  'rows',
  'page',
  'sort',
  'filters',
  'facets',
  'facetLimit',
  'facetPaths',
  'hybrid',
  'header',
  'payload',
  'id',
  'action',
  'fields',
  'kind',
  'permission',
  'name',
  'llm_models',
  'default_model',
  'enabled',
  'search_app',
  'text',
  'type',
  'init',
  'sessionId',
  'attachments',
  'model',
  'target',
  'variables',
  'from',
  'subject',
  'html',
  'provider',
  'security',
  'rotateKey',
  'embedder',
  'sorts',
  'synonyms',
  'stopWords',
  'customRanking',
  'rateLimit',
  'rate_limit',
  ...RESERVED,
];

const QUERY_KEYS = [
  'q',
  'rows',
  'page',
  'sort',
  'facets',
  'facetLimit',
  'facetPath.tags',
  'after',
  'limit',
  'state',
  'details',
  'semanticRatio',
  'attributesToHighlight',
  'attributesToSnippet',
  'highlightPreTag',
  'highlightPostTag',
  'requestId',
  'f.section',
  'f.installedSize',
  'f.essential',
  'f.tags',
  'f.attributes.arch',
  'f.',
  'f..',
  ...RESERVED.map((key) => `f.${key}`),
  ...RESERVED,
];

const QUERY_VALUES = [
  '',
  '1',
  '10',
  'vim',
  'libs',
  'name_asc',
  'name',
  '0',
  '-1',
  '1.5',
  '101',
  '1001',
  '1e309',
  '..',
  '1..',
  '..x',
  'a..b',
  '2024-01-01..',
  'ERROR',
  'errors',
  '*',
  'name:-5',
];

const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const tricky = (...known: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 1, arbitrary: anyText },
  );

/** A path segment: known codes, tricky strings (raw: `%zz` stays an invalid escape) or any text, encoded. */
function segment(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...TRICKY.filter((text) => text !== '')) },
    { weight: 1, arbitrary: anyText.filter((text) => text.length > 0).map(encodeURIComponent) },
  );
}

function queryString(): fc.Arbitrary<string> {
  const pair = fc.tuple(tricky(...QUERY_KEYS), tricky(...QUERY_VALUES));
  return fc.tuple(fc.array(pair, { maxLength: 4 }), fc.constantFrom('', '', '', '', '', '&%zz=%ff&&=&f.=', '&q')).map(([pairs, raw]) => {
    const query = new URLSearchParams(pairs).toString() + raw;
    return query ? `?${query}` : '';
  });
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const bodyValue = fc.oneof(
  jsonValue,
  fc.constantFrom<unknown>(...HUGE_NUMBERS, '', [], {}, null, true, 'a'.repeat(2000)),
  fc.array(fc.dictionary(tricky(...BODY_KEYS), jsonValue, { maxKeys: 4 }), { maxLength: 3 }),
);

/** Puts a reserved key first in a JSON object's text, as a client sending raw JSON would (JSON.stringify cannot). */
const withReservedKey = (text: string, key: string) =>
  text.startsWith('{') ? `{"${key}":{"x":1}${text === '{}' ? '' : ','}${text.slice(1)}` : text;

const jsonObjectText = fc
  .tuple(fc.dictionary(tricky(...BODY_KEYS), bodyValue, { maxKeys: 6 }), fc.option(fc.constantFrom(...RESERVED)))
  .map(([value, reserved]) => {
    const text = JSON.stringify(value);
    return reserved ? withReservedKey(text, reserved) : text;
  });

const ndjsonText = fc
  .array(
    fc.oneof(
      jsonObjectText,
      jsonValue.map((v) => JSON.stringify(v)),
      anyText,
    ),
    { maxLength: 8 },
  )
  .map((lines) => lines.join('\n'));

/** Bytes that are not UTF-8, after an optional JSON start. */
const invalidUtf8 = fc
  .tuple(fc.constantFrom('', '{"q":"', '[{"header":{"id":"', '{"text":"'), fc.uint8Array({ minLength: 1, maxLength: 16 }))
  .map(([start, bytes]) => new Uint8Array([...new TextEncoder().encode(start), 0xff, 0xc3, 0x28, ...bytes, 0x80]));

/** A multipart body with one part `name` holding `text`, delimited by `b0undary`. */
const multipartBody = (name: string, text: string) =>
  `--b0undary\r\nContent-Disposition: form-data; name="${name}"; filename="docs.ndjson"\r\n\r\n${text}\r\n--b0undary--\r\n`;

function multipart(content: fc.Arbitrary<string>): fc.Arbitrary<{ body: string; contentType: string }> {
  return fc
    .tuple(fc.constantFrom('file', 'other', ''), content, fc.constantFrom('b0undary', 'other', ''))
    .map(([name, text, declared]) => ({
      body: multipartBody(name, text),
      contentType: declared ? `multipart/form-data; boundary=${declared}` : 'multipart/form-data',
    }));
}

const CONTENT_TYPES = [
  'application/json',
  'application/x-ndjson',
  'text/plain',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'garbage/////',
  '',
];

type Body = { body?: string | Uint8Array; contentType?: string };

const anyBody: fc.Arbitrary<Body> = fc.oneof(
  fc.constant({}),
  jsonValue.map((value) => ({ body: JSON.stringify(value), contentType: 'application/json' })),
  { weight: 3, arbitrary: jsonObjectText.map((body) => ({ body, contentType: 'application/json' })) },
  fc.constantFrom(...RAW_BODIES).map((body) => ({ body, contentType: 'application/json' })),
  anyText.map((body) => ({ body })),
  invalidUtf8.map((body) => ({ body, contentType: 'application/json' })),
  ndjsonText.map((body) => ({ body, contentType: 'application/x-ndjson' })),
  multipart(fc.oneof(ndjsonText, jsonObjectText, anyText)),
);

/** A valid body for each route that takes one (by `METHOD template`), mutated at one place into a near miss. */
const EXAMPLES: Record<string, unknown> = {
  'POST /api/v1/search/{tenant}/{code}': {
    q: 'vim editor',
    rows: 5,
    page: 1,
    sort: 'name_asc',
    facets: ['section', 'installedSize'],
    facetLimit: 5,
    filters: {
      section: { filterType: 'term', filterOperator: 'or', values: ['editors'] },
      installedSize: { filterType: 'range', minValue: 1, maxValue: 100000 },
      tags: { filterType: 'tree', values: ['role'] },
      'attributes.arch': { filterType: 'term', values: ['any'] },
    },
    attributesToHighlight: ['name'],
    attributesToSnippet: ['description:5'],
    highlightPreTag: '<em>',
    hybrid: { semanticRatio: 0.5 },
  },
  'POST /api/v1/search/suggest/{tenant}/{code}': { q: 'vi', rows: 5 },
  'PUT /api/v1/searchapp/schema/{tenant}/{code}': {
    fields: [
      { code: 'name', dataType: 'string', searchMode: 'fuzzy', weight: 10, display: true, suggest: true, sort: true },
      { code: 'section', dataType: 'string', searchMode: 'exact', facet: true, navigation: true },
      { code: 'installedSize', dataType: 'long', facet: true, sort: true },
      { code: 'tags', dataType: 'categories', facet: true },
      { code: 'attributes', dataType: 'attributes', facet: true },
    ],
  },
  'POST /api/v1/data/{type}/{tenant}/{code}/{documentId}': {
    header: { id: 'new-document', action: 'update' },
    payload: { name: 'x', installedSize: 1, tags: ['a/b'], attributes: { arch: 'any' }, essential: true },
  },
  'POST /api/v1/data/bulk/{type}/{tenant}/{code}': [
    { header: { id: 'new-document', action: 'update' }, payload: { name: 'x', installedSize: 1, tags: [['a', 'b']] } },
    { header: { id: 'other-document', action: 'delete' } },
  ],
  'POST /api/v1/admin/tokens/{tenant}': { kind: 'feeding', permission: 'READ', name: 'x' },
  'PUT /api/v1/admin/tenants/{tenant}': { name: 'x' },
  'PUT /api/v1/admin/searchapps/{tenant}/{code}': {
    name: 'x',
    sorts: [{ id: 'newest', field: 'installedSize', direction: 'desc' }],
    synonyms: [{ input: 'vi', synonyms: ['vim'] }, { synonyms: ['editor', 'ide'] }],
    stopWords: ['the'],
    customRanking: [{ field: 'installedSize', direction: 'desc' }],
    defaultSemanticRatio: 0,
  },
  'PUT /api/v1/admin/agents/{tenant}/{code}': {
    llm_models: [{ model: 'openai:gpt-4o-mini', label: 'x' }],
    default_model: 'openai:gpt-4o-mini',
    welcome_message: 'hi',
    system_prompt: 'be brief',
    search_app: 'catalog',
    enabled: true,
  },
  'PUT /api/v1/admin/email/{tenant}/{code}': {
    from: 'shop@example.com',
    subject: 'Hi {{name}}',
    html: '<p>{{name}}</p>',
    text: '{{name}}',
    variables: { name: { value: 'friend' }, code: { value: 'x', type: 'masked' } },
  },
  'POST /api/v1/email/send/{tenantCode}/{emailConfigCode}': { target: 'ann@example.org', variables: { name: { value: 'Ann' } } },
  'POST /api/v1/agent/chat/{tenant}/{code}': {
    text: 'hello',
    sessionId: 'fuzz-session',
    model: 'openai:gpt-4o-mini',
    attachments: [{ data: 'aGVsbG8=', mimeType: 'text/plain', name: 'a.txt' }],
  },
  'POST /api/v1/agent/chat/streaming/{tenant}/{code}': { text: 'hello', sessionId: 'fuzz-session' },
};

/** Every path to a value inside a JSON value (`[]` is the value itself). */
function pathsIn(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [at];
  return [at, ...Object.entries(value).flatMap(([key, child]) => pathsIn(child, [...at, Array.isArray(value) ? Number(key) : key]))];
}

/** Stands for a reserved key until the text is written (an object literal cannot own `__proto__`). */
const RESERVED_MARK = 'reserved-key-mark';

/** `example` with the value at one of its paths replaced, removed, or turned into an object with a reserved key. */
function mutated(example: unknown): fc.Arbitrary<Body> {
  const paths = pathsIn(example);
  const how = fc.constantFrom('replace', 'remove', ...RESERVED);
  return fc.tuple(fc.nat({ max: paths.length - 1 }), how, bodyValue).map(([i, change, value]) => {
    const path = paths[i];
    let copy = structuredClone(example);
    const replacement = change === 'replace' ? value : { [RESERVED_MARK]: { x: 1 } };
    if (!path.length) copy = change === 'remove' ? undefined : replacement;
    else {
      const parent = path.slice(0, -1).reduce((node: any, key) => node[key], copy);
      if (change === 'remove') delete parent[path[path.length - 1]];
      else parent[path[path.length - 1]] = replacement;
    }
    const text = copy === undefined ? '' : JSON.stringify(copy).replace(RESERVED_MARK, change);
    return { body: text, contentType: 'application/json' };
  });
}

/** A body for the route: a near miss of its example more often than not, else any body. */
function bodyFor(route: Route): fc.Arbitrary<Body> {
  const example = EXAMPLES[`${route.method} ${route.template}`];
  return example === undefined ? anyBody : fc.oneof({ weight: 2, arbitrary: anyBody }, { weight: 3, arbitrary: mutated(example) });
}

/** A header set: the token, a content type (the body's or another), sometimes compression and cache bypass. */
function headers(token: fc.Arbitrary<string | undefined>, contentType: string | undefined): fc.Arbitrary<Record<string, string>> {
  const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });
  return fc
    .record({
      token,
      contentType: fc.oneof({ weight: 4, arbitrary: fc.constant(contentType) }, fc.constantFrom(...CONTENT_TYPES), printable),
      encoding: fc.option(fc.constantFrom('gzip, deflate, br', 'identity', 'br;q=1, identity;q=0.5')),
      noCache: fc.boolean(),
    })
    .map(({ token, contentType, encoding, noCache }) => {
      const set: Record<string, string> = {};
      if (token !== undefined) set[TOKEN_HEADER] = token;
      if (contentType) set['Content-Type'] = contentType;
      if (encoding) set['Accept-Encoding'] = encoding;
      if (noCache) set['Cache-Control'] = 'no-cache';
      return set;
    });
}

interface Route {
  method: string;
  template: string;
  /** The security scheme of the route, if it takes a credential. */
  scheme?: string;
}

/** The routes of the document. */
function routesOf(paths: OpenApiPaths): Route[] {
  return Object.entries(paths).flatMap(([template, operations]) =>
    Object.entries(operations).map(([method, operation]) => {
      const security = (operation as { security?: Array<Record<string, unknown>> }).security;
      return { method: method.toUpperCase(), template, scheme: security && Object.keys(security[0])[0] };
    }),
  );
}

/** The route's path with the target's codes (mostly) or tricky and random segments. */
function fillTemplate(target: FuzzTarget, documentIds: string[], template: string): fc.Arbitrary<string> {
  // Agent configurations are written under another code than the one chatted with: a mutated configuration may name a
  // provider that is not there, which chat answers 500 by design (see docs/decisions.md, Agent chat).
  const agentCode = template.startsWith('/api/v1/admin/agents') ? 'scratch' : target.agent;
  const code = template.includes('/agent') ? agentCode : template.includes('/email') ? target.emailConfig : target.code;
  const known: Record<string, string[]> = {
    tenant: [target.tenant],
    tenantCode: [target.tenant],
    code: [code],
    emailConfigCode: [target.emailConfig],
    type: ['svc', 'reporting'],
    documentId: [...documentIds, 'new-document'],
  };
  const names = [...template.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  return fc
    .tuple(...names.map((name) => segment(known[name] ?? ['1', '0', '-1', '18446744073709551616', 'job-1'])))
    .map((values) => values.reduce((path, value, i) => path.replace(`{${names[i]}}`, value), template));
}

/** Any route of the document, filled with known and random parameters, query, credentials, headers and body. */
function anyRouteRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const otherTokens = fc.oneof(
    fc.constantFrom(...world.tokens),
    fc.constantFrom(...Object.values(world.guard.credentials), ...Object.values(world.playground.credentials)),
    fc.constantFrom('sst_garbage.garbage', 'sst_.', 'x'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
  );
  return fc
    .tuple(
      fc.constantFrom(world.guard, world.playground),
      fc.constantFrom(...routesOf(world.paths)),
      fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, fc.constantFrom(...METHODS)),
      queryString(),
    )
    .chain(([target, route, otherMethod, query]) => {
      const own = route.scheme ? target.credentials[route.scheme] : undefined;
      const token = fc.oneof(
        { weight: own ? 6 : 0, arbitrary: fc.constant(own) },
        { weight: 3, arbitrary: otherTokens },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
      const parts = fc.tuple(fillTemplate(target, world.guard.documentIds, route.template), bodyFor(route));
      return parts.chain(([path, body]) =>
        headers(token, body.contentType).map((headerSet): FuzzRequest => {
          const method = otherMethod ?? route.method;
          // The root token deletes the targets for good reason (and later requests would only meet 404s): it deletes other names.
          if (method === 'DELETE' && headerSet[TOKEN_HEADER] === world.rootToken && path.split('/').includes(target.tenant))
            delete headerSet[TOKEN_HEADER];
          return { method, path: path + query, headers: headerSet, body: body.body };
        }),
      );
    });
}

/** A value no field of the Debian schema takes, for the field it is given to. */
const BROKEN_FIELDS: Array<[string, unknown]> = [
  ['installedSize', 'not a number'],
  ['installedSize', 1.5],
  ['size', { nested: true }],
  ['essential', 'yes'],
  ['tags', 5],
  ['attributes', [1, 2]],
  ['name', { text: 'x' }],
  ['no-such-field', 'x'],
];

/** A document's text in a feeding format: `svc` envelope or flat `reporting` record. */
function documentText(type: string, id: string, payload: string): string {
  const quotedId = JSON.stringify(id);
  return type === 'svc' ? `{"header":{"id":${quotedId},"action":"update"},"payload":${payload}}` : `{"id":${quotedId},${payload.slice(1)}`;
}

/** Documents for the guard app with its own feeding token, each broken, alone or in bulk, JSON, NDJSON or upload. */
function brokenDocumentRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const { tenant, code, documentIds, feedingToken } = world.guard;
  const type = fc.constantFrom('svc', 'reporting');
  const brokenPayload = fc.oneof(
    fc.constantFrom(...BROKEN_FIELDS).map(([field, value]) => JSON.stringify({ name: 'changed', [field]: value })),
    // A reserved key alone is broken enough: the rest of the payload is valid.
    fc.constantFrom(...RESERVED).map((key) => withReservedKey('{"name":"changed"}', key)),
  );
  const auth = { [TOKEN_HEADER]: feedingToken };
  const single = fc
    .tuple(type, fc.constantFrom(...documentIds), brokenPayload, fc.boolean())
    .map(([format, id, payload, mismatch]): FuzzRequest => {
      // Or a valid payload under another id than the path's.
      const body = mismatch ? documentText(format, `${id}-other`, '{"name":"changed"}') : documentText(format, id, payload);
      return {
        method: 'POST',
        path: `/api/v1/data/${format}/${tenant}/${code}/${id}`,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body,
      };
    });
  const entries = fc.array(fc.tuple(fc.constantFrom(...documentIds), brokenPayload), { minLength: 1, maxLength: 5 });
  const how = fc.constantFrom('bulk-json', 'bulk-ndjson', 'upload-file', 'upload-body');
  const several = fc.tuple(type, entries, how, fc.boolean()).map(([format, docs, as, errorsOnly]): FuzzRequest => {
    const lines = docs.map(([id, payload]) => documentText(format, id, payload));
    const path = `/api/v1/data/${as.startsWith('bulk') ? 'bulk' : 'upload'}/${format}/${tenant}/${code}${errorsOnly ? '?details=errors' : ''}`;
    if (as === 'bulk-json')
      return { method: 'POST', path, headers: { ...auth, 'Content-Type': 'application/json' }, body: `[${lines.join(',')}]` };
    if (as === 'upload-file') {
      return {
        method: 'POST',
        path,
        headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=b0undary' },
        body: multipartBody('file', lines.join('\n')),
      };
    }
    return { method: 'POST', path, headers: { ...auth, 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') };
  });
  return fc.oneof(single, several).map((request) => ({ ...request, brokenDocument: true }));
}

/** A bad request: mostly any route at random, now and then a broken document for the guard app. */
export function badRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 5, arbitrary: anyRouteRequest(world) }, { weight: 1, arbitrary: brokenDocumentRequest(world) });
}

/** A JSON call to the service: answers the parsed body of a 2xx answer, throws on any other. */
export type ServiceCall = (method: string, path: string, token: string | undefined, body?: unknown) => Promise<any>;

/** What building a world takes from the caller (the test runtime, or a script against a running service). */
export interface WorldSetup {
  call: ServiceCall;
  rootToken: string;
  agentToken: string;
  /** The search apps' schema (the Debian one: BROKEN_FIELDS are broken for it) and the guard app's documents (envelopes). */
  schema: unknown;
  documents: Array<{ header: { id: string } }>;
  /** An OpenAI-compatible stand-in's base URL, for the agents. */
  openAiBaseUrl: string;
  /** An SMTP port for the playground's email configuration. */
  smtpPort: number;
  /** A fresh code for each call. */
  unique: (prefix: string) => string;
  /** Polls `read` until `done` holds. */
  waitFor: <T>(read: () => Promise<T>, done: (value: T) => boolean) => Promise<T>;
}

/** A tenant with the search app `catalog` (schema set), the agent `helper` and the email configuration `mail`. */
async function createTarget(setup: WorldSetup, prefix: string, email: Record<string, unknown>, write: boolean) {
  const { call, rootToken: root } = setup;
  const tenant = setup.unique(prefix);
  const token = async (kind: string, permission: string) =>
    (await call('POST', `/api/v1/admin/tokens/${tenant}`, root, { kind, permission })).token as string;
  await call('PUT', `/api/v1/admin/tenants/${tenant}`, root, {});
  await call('PUT', `/api/v1/admin/searchapps/${tenant}/catalog`, root, {});
  const writer = { admin: await token('admin', 'WRITE'), feeding: await token('feeding', 'WRITE') };
  await call('PUT', `/api/v1/searchapp/schema/${tenant}/catalog`, writer.admin, setup.schema);
  // Chat reads documents, never changes them: both tenants have an agent on the stand-in model.
  const agent = {
    llm_models: [{ model: 'openai:gpt-4o-mini' }],
    search_app: 'catalog',
    openai: { baseUrl: setup.openAiBaseUrl, apiKey: 'sk-fuzz' },
  };
  await call('PUT', `/api/v1/admin/agents/${tenant}/helper`, root, agent);
  const { apiKey } = await call('PUT', `/api/v1/admin/email/${tenant}/mail`, root, { ...email, security: { type: 'apiKey' } });
  const credentials = {
    rootToken: root,
    adminToken: write ? writer.admin : await token('admin', 'READ'),
    feedingToken: write ? writer.feeding : await token('feeding', 'READ'),
    agentToken: setup.agentToken,
    emailApiKey: apiKey,
  };
  return { target: { tenant, code: 'catalog', agent: 'helper', emailConfig: 'mail', credentials }, writer };
}

/**
 * The guard tenant (its documents fed and indexed, READ credentials only), the playground (WRITE credentials,
 * a complete email configuration) and a revoked token and another tenant's tokens.
 */
export async function createWorld(setup: WorldSetup, paths: OpenApiPaths): Promise<FuzzWorld> {
  const { call, rootToken } = setup;
  const guard = await createTarget(setup, 'guard', { subject: 'incomplete' }, false);
  const { tenant, code } = guard.target;
  const fed = await call('POST', `/api/v1/data/bulk/svc/${tenant}/${code}?details=errors`, guard.writer.feeding, setup.documents);
  await guardDocuments(setup, { tenant, code, credentials: { feedingToken: guard.writer.feeding } });
  const smtp = { type: 'smtp', host: '127.0.0.1', port: setup.smtpPort, security: 'none' };
  const playground = await createTarget(
    setup,
    'playground',
    { from: 'shop@example.com', subject: 'Hi {{name}}', text: 'Hello {{name}}', provider: smtp },
    true,
  );
  const other = await createTarget(setup, 'other', {}, true);
  const revoked = await call('POST', `/api/v1/admin/tokens/${tenant}`, rootToken, { kind: 'feeding', permission: 'WRITE' });
  await call('DELETE', `/api/v1/admin/tokens/${tenant}/${revoked.id}`, rootToken);
  if (fed.accepted !== setup.documents.length) throw new Error(`the guard documents were not all accepted: ${JSON.stringify(fed)}`);
  return {
    paths,
    guard: { ...guard.target, documentIds: setup.documents.map((doc) => doc.header.id), feedingToken: guard.writer.feeding },
    playground: playground.target,
    tokens: [revoked.token, other.writer.admin, other.writer.feeding, other.target.credentials.emailApiKey],
    rootToken,
  };
}

/** Once none of the app's feeding entries is open: its indexed ids and stored documents, to compare before and after. */
export async function guardDocuments(
  { call, waitFor }: Pick<WorldSetup, 'call' | 'waitFor'>,
  guard: Pick<FuzzTarget, 'tenant' | 'code' | 'credentials'>,
) {
  const app = `${guard.tenant}/${guard.code}`;
  const token = guard.credentials.feedingToken;
  await waitFor(
    () => call('GET', `/api/v1/data/queue/${app}?limit=1`, token),
    ({ counts }) => counts.CREATED + counts.STARTED + counts.PREPARED === 0,
  );
  const found = await call('GET', `/api/v1/search/${app}?rows=100`, undefined);
  const ids: string[] = found.result.documents.map((doc: { id: string }) => doc.id).sort();
  return { ids, documents: await Promise.all(ids.map((id) => call('GET', `/api/v1/data/${app}/${encodeURIComponent(id)}`, token))) };
}

/** `fetch` arguments of a request (GET and HEAD carry no body). */
export function requestInit(request: FuzzRequest): RequestInit {
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  return { method: request.method, headers: request.headers, body: bodyless ? undefined : request.body };
}

/** What is wrong with the answer to a bad request, or undefined: no 5xx, the one error body on 4xx, broken documents refused. */
export async function problemWith(request: FuzzRequest, response: Response): Promise<string | undefined> {
  const text = await response.text();
  const answer = `${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 300)}`;
  if (response.status >= 500) return answer;
  if (request.brokenDocument && response.status < 400) return `a broken document was accepted: ${answer}`;
  if (response.status < 400 || request.method === 'HEAD') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${answer}`;
  }
  return errorBodyProblem(body, response.status) && `${errorBodyProblem(body, response.status)}: ${answer}`;
}

/** How `body` differs from the one error body `{ statusCode, error, message, details? }` of `status`. */
function errorBodyProblem(body: unknown, status: number): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not an object';
  const { statusCode, error, message, details, ...rest } = body as Record<string, unknown>;
  if (statusCode !== status) return 'statusCode differs from the status';
  if (typeof error !== 'string' || typeof message !== 'string' || !message) return 'error or message missing';
  if (Object.keys(rest).length) return `unexpected keys ${Object.keys(rest).join(', ')}`;
  if (details === undefined) return undefined;
  const valid = (d: unknown) =>
    typeof d === 'object' &&
    d !== null &&
    Object.keys(d).length === 2 &&
    typeof (d as Record<string, unknown>).path === 'string' &&
    typeof (d as Record<string, unknown>).message === 'string';
  if (!Array.isArray(details) || !details.length || !details.every(valid)) return 'details are not [{ path, message }]';
  return undefined;
}
