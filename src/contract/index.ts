/**
 * The HTTP contract as zod schemas, free of any framework: the routes validate requests with them, the OpenAPI
 * document is generated from them, and `packages/client` derives its types from them (one source of truth).
 * Schemas that belong to a capability (the field schema, the search app body) stay beside it and are re-exported.
 */
export * from './admin';
export * from './feeding';
export * from './search';
export { searchAppSchemaInput, type SearchAppSchema } from '../search/field-schema';
export type { ErrorBody, ErrorDetail } from '../errors';
