/**
 * The OpenAPI 3.1 document of the service, built from the zod schemas of `src/contract` (zod's own JSON Schema
 * output, no further dependency): every route with its token, request body and answer, and the one error body.
 */
import { z, type ZodType } from 'zod';
import * as contract from '../contract';
import { FACET_LIMIT_PREFIX, FACET_PATH_PREFIX, FILTER_PREFIX } from '../contract/search-query-string';
import { TOKEN_HEADER } from '../auth/tokens';

type Token = 'root' | 'admin' | 'feeding' | 'agent' | 'emailKey' | 'none';

interface Operation {
  summary: string;
  token: Token;
  body?: ZodType;
  answer?: ZodType;
  query?: ZodType;
  /** Query parameters named `{prefix}{facetId}`, one per facet: the `query` property they fill (or none) → how they are written. */
  perFacet?: PerFacetParameter[];
}

interface PerFacetParameter {
  prefix: string;
  /** The record property of `query` the parameters are gathered into; its value schema is theirs. */
  gathers?: string;
  schema?: Record<string, unknown>;
  description: string;
}

/** The GET search's parameters named after a facet (src/contract/search-query-string.ts). */
const SEARCH_PER_FACET: PerFacetParameter[] = [
  {
    prefix: FILTER_PREFIX,
    schema: { type: 'string' },
    description:
      'A filter on the facet {facetId}: a value (repeat the parameter for any of several), or a range `min..max` with either side empty',
  },
  {
    prefix: FACET_LIMIT_PREFIX,
    gathers: 'facetLimits',
    description: 'The value limit of the facet {facetId} instead of facetLimit (0: its facetStats only); POST facetLimits',
  },
  {
    prefix: FACET_PATH_PREFIX,
    gathers: 'facetPaths',
    description: 'The path `a/b` the menu of the categories facet {facetId} is opened at (empty: its top level); POST facetPaths',
  },
];

const any = z.record(z.string(), z.unknown());
const error = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** Every route: `METHOD path` (Hono's `:param` syntax) → what it takes and answers. */
const ROUTES: Record<string, Operation> = {
  'GET /health': { summary: 'Liveness', token: 'none' },
  'GET /openapi.json': { summary: 'This document', token: 'none' },
  'GET /docs': { summary: 'API reference page over this document (HTML)', token: 'none' },
  'GET /ui/:tenant/:code': { summary: 'Search page of a search app (HTML)', token: 'none' },
  'GET /api/v1/admin/tenants': { summary: 'List tenants', token: 'root' },
  'GET /api/v1/admin/tenants/:tenant': { summary: 'Read a tenant', token: 'root', answer: contract.tenant },
  'PUT /api/v1/admin/tenants/:tenant': {
    summary: 'Create or update a tenant',
    token: 'root',
    body: contract.tenantBody,
    answer: contract.tenant,
  },
  'DELETE /api/v1/admin/tenants/:tenant': { summary: 'Delete a tenant with everything it owns', token: 'root' },
  'GET /api/v1/admin/searchapps/:tenant': { summary: 'List search apps', token: 'root' },
  'GET /api/v1/admin/searchapps/:tenant/:code': { summary: 'Read a search app', token: 'root', answer: contract.searchApp },
  'PUT /api/v1/admin/searchapps/:tenant/:code': {
    summary: 'Create or update a search app',
    token: 'root',
    body: contract.searchAppInput,
    answer: contract.searchApp,
  },
  'DELETE /api/v1/admin/searchapps/:tenant/:code': { summary: 'Delete a search app with its documents', token: 'root' },
  'GET /api/v1/admin/tokens/:tenant': { summary: 'List tokens', token: 'root' },
  'POST /api/v1/admin/tokens/:tenant': { summary: 'Issue a token', token: 'root', body: contract.tokenBody, answer: contract.issuedToken },
  'DELETE /api/v1/admin/tokens/:tenant/:id': { summary: 'Revoke a token', token: 'root' },
  'GET /api/v1/admin/agents/:tenant': { summary: 'List agent configurations', token: 'root' },
  'GET /api/v1/admin/agents/:tenant/:code': { summary: 'Read an agent configuration', token: 'root' },
  'PUT /api/v1/admin/agents/:tenant/:code': { summary: 'Replace an agent configuration', token: 'root', body: any },
  'DELETE /api/v1/admin/agents/:tenant/:code': { summary: 'Delete an agent configuration', token: 'root' },
  'GET /api/v1/admin/email/:tenant': { summary: 'List email configurations', token: 'root' },
  'GET /api/v1/admin/email/:tenant/:code': { summary: 'Read an email configuration', token: 'root' },
  'PUT /api/v1/admin/email/:tenant/:code': { summary: 'Create or update an email configuration', token: 'root', body: any },
  'DELETE /api/v1/admin/email/:tenant/:code': { summary: 'Delete an email configuration', token: 'root' },
  'GET /api/v1/admin/email/:tenant/:code/deliveries': { summary: 'Delivery log', token: 'root' },
  'GET /api/v1/searchapp/schema/:tenant/:code': { summary: 'Read the field schema', token: 'admin' },
  'PUT /api/v1/searchapp/schema/:tenant/:code': {
    summary: 'Replace the field schema',
    token: 'admin',
    body: contract.searchAppSchemaInput,
  },
  'POST /api/v1/data/bulk/:type/:tenant/:code': {
    summary: 'Bulk feed (JSON array or NDJSON)',
    token: 'feeding',
    body: z.array(any),
    query: contract.feedAnswerQuery,
    answer: contract.bulkFeedingResponse,
  },
  'POST /api/v1/data/upload/:type/:tenant/:code': {
    summary: 'Upload a file (streamed)',
    token: 'feeding',
    query: contract.feedAnswerQuery,
    answer: contract.bulkFeedingResponse,
  },
  'POST /api/v1/data/fullfeed/start/:tenant/:code': {
    summary: 'Start a full feed',
    token: 'feeding',
    body: any,
    answer: contract.fullFeedAnswer,
  },
  'POST /api/v1/data/fullfeed/end/:tenant/:code': {
    summary: 'End a full feed',
    token: 'feeding',
    body: any,
    answer: contract.fullFeedAnswer,
  },
  'POST /api/v1/data/fullfeed/cancel/:tenant/:code': { summary: 'Cancel a full feed', token: 'feeding', answer: contract.fullFeedAnswer },
  'GET /api/v1/data/fullfeed/status/:tenant/:code': { summary: 'Full-feed progress', token: 'feeding', answer: contract.fullFeedStatus },
  'GET /api/v1/data/queue/:tenant/:code': {
    summary: 'List queue entries with counts by state',
    token: 'feeding',
    query: contract.queueListQuery,
    answer: contract.queueListResponse,
  },
  'GET /api/v1/data/queue/:tenant/:code/:id': { summary: 'Read a queue entry', token: 'feeding', answer: contract.queueEntry },
  'POST /api/v1/data/:type/:tenant/:code/:documentId': {
    summary: 'Update a document',
    token: 'feeding',
    body: any,
    answer: contract.queueEntry,
  },
  'DELETE /api/v1/data/:type/:tenant/:code/:documentId': { summary: 'Delete a document', token: 'feeding', answer: contract.queueEntry },
  'GET /api/v1/data/:tenant/:code/:documentId': { summary: 'Get a document', token: 'feeding', answer: z.array(any) },
  'PUT /api/v1/job/:tenant/:code/feeding/_schedule': {
    summary: 'Schedule a re-index',
    token: 'feeding',
    body: any,
    answer: contract.jobCreated,
  },
  'GET /api/v1/job/:tenant/:code/:jobId': { summary: 'Job progress', token: 'feeding', answer: contract.job },
  'POST /api/v1/email/send/:tenantCode/:emailConfigCode': { summary: 'Send an email', token: 'emailKey', body: any },
  'POST /api/v1/agent/chat/:tenant/:code': { summary: 'Chat with an agent', token: 'agent', body: any },
  'POST /api/v1/agent/chat/streaming/:tenant/:code': { summary: 'Chat with an agent, streamed as NDJSON', token: 'agent', body: any },
  'GET /api/v1/search/suggest/:tenant/:code': {
    summary: 'Suggest',
    token: 'none',
    query: contract.suggestInput,
    answer: contract.suggestResponse,
  },
  'POST /api/v1/search/suggest/:tenant/:code': {
    summary: 'Suggest',
    token: 'none',
    body: contract.suggestInput,
    answer: contract.suggestResponse,
  },
  'GET /api/v1/search/:tenant/:code': {
    summary: 'Search (f.{facetId} filters)',
    token: 'none',
    query: contract.searchQuery,
    perFacet: SEARCH_PER_FACET,
    answer: contract.searchResponse,
  },
  'POST /api/v1/search/:tenant/:code': { summary: 'Search', token: 'none', body: contract.searchBody, answer: contract.searchResponse },
};

const SECURITY: Record<Token, string | undefined> = {
  root: 'rootToken',
  admin: 'adminToken',
  feeding: 'feedingToken',
  agent: 'agentToken',
  emailKey: 'emailApiKey',
  none: undefined,
};

const schemaOf = (schema: ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' });
const header = (description: string) => ({ type: 'apiKey', in: 'header', name: TOKEN_HEADER, description });

type JsonSchema = Record<string, unknown> & { additionalProperties?: JsonSchema };

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

function operation(path: string, op: Operation) {
  const parameters: Parameter[] = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (op.query) {
    const query = schemaOf(op.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    const gathered = new Set(op.perFacet?.map((p) => p.gathers));
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      if (!gathered.has(name)) parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
    for (const { prefix, gathers, schema, description } of op.perFacet ?? []) {
      const valueSchema = schema ?? (gathers ? query.properties?.[gathers]?.additionalProperties : undefined) ?? {};
      parameters.push({ name: `${prefix}{facetId}`, in: 'query', required: false, schema: valueSchema, description });
    }
  }
  const security = SECURITY[op.token];
  return {
    summary: op.summary,
    ...(security ? { security: [{ [security]: [] }] } : {}),
    parameters,
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(op.body, 'input') } } } } : {}),
    responses: {
      '2XX': {
        description: 'Success',
        ...(op.answer ? { content: { 'application/json': { schema: schemaOf(op.answer, 'output') } } } : {}),
      },
      default: { description: 'The one error body', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
}

/** The OpenAPI document (built once per isolate). */
export const openApiDocument = (() => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [route, op] of Object.entries(ROUTES)) {
    const [method, path] = route.split(' ');
    (paths[path.replace(/:(\w+)/g, '{$1}')] ??= {})[method.toLowerCase()] = operation(path, op);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Edge search', version: '1' },
    paths,
    components: {
      schemas: { Error: schemaOf(error, 'output') },
      securitySchemes: {
        rootToken: header('The ADMIN_TOKEN secret: tenants, search apps, tokens, agent and email configurations'),
        adminToken: header('A tenant admin token (sst_…): schema'),
        feedingToken: header('A tenant feeding token (sst_…): documents, bulk, upload, full feeds, queue, jobs'),
        agentToken: header('The AUTH_TOKEN secret: agent chat'),
        emailApiKey: header('The API key of the email configuration, in its configured header'),
      },
    },
  };
})();
