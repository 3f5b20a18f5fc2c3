/**
 * Validation of fed documents against a search app's schema, for both document format types:
 * `svc` = `{ header: { id, action }, payload }` envelopes; `reporting` = flat records `{ id, ...fields }`
 * (always updates). Every problem is reported with its path; nothing invalid is stored.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ErrorDetail } from '../errors';
import { issuesToDetails, reservedKeyDetails } from '../validation';
import type { DocumentPayload } from '../search/engine/types';
import type { FieldDataType, SearchAppField } from '../search/field-schema';
import { reportingEntry, svcEntry, type DocumentType } from '../contract/feeding';

export { DOCUMENT_TYPES, type DocumentType } from '../contract/feeding';

/** Largest payload accepted, as JSON bytes: a queue message (128 KB) must carry it. */
export const MAX_DOCUMENT_BYTES = 100_000;

export interface DocumentOperation {
  documentId: string;
  operation: 'update' | 'delete';
  payload?: DocumentPayload;
}

export type Validated = { ok: true; value: DocumentOperation } | { ok: false; documentId?: string; details: ErrorDetail[] };

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}/.test(s), 'expected an ISO 8601 date');
const categoryPath = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

const VALUE_SCHEMAS: Record<FieldDataType, z.ZodType> = {
  string: z.union([z.string(), z.array(z.string())]),
  long: z.union([z.number().int(), z.array(z.number().int())]),
  double: z.union([z.number(), z.array(z.number())]),
  boolean: z.boolean(),
  date: z.union([isoDate, z.array(isoDate)]),
  categories: z.union([categoryPath, z.array(categoryPath)]),
  attributes: z.record(z.string().min(1), z.union([scalar, z.array(scalar)])),
  raw: z.union([scalar, z.array(scalar)]),
};

/** Builds the payload validator of a schema: known field codes only, each value fitting its type (null = absent). */
export function payloadSchema(fields: SearchAppField[]) {
  return z.object(Object.fromEntries(fields.map((f) => [f.code, VALUE_SCHEMAS[f.dataType].nullable().optional()]))).strict();
}

export type PayloadSchema = ReturnType<typeof payloadSchema>;

/**
 * Names a field schema: queued operations carry the one they were validated against, so the consumer checks them
 * again only when the schema changed since (the same schema accepts the same payload).
 */
export function schemaFingerprint(fields: SearchAppField[]): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 32);
}

/** Validates one fed entry of either format type into a document operation. */
export function validateEntry(type: DocumentType, entry: unknown, schema: PayloadSchema, prefix = ''): Validated {
  const reserved = reservedKeyDetails(entry, prefix);
  if (reserved.length) return { ok: false, documentId: idOf(entry), details: reserved };
  let operation: DocumentOperation;
  if (type === 'svc') {
    const envelope = svcEntry.safeParse(entry);
    if (!envelope.success) return { ok: false, documentId: idOf(entry), details: issuesToDetails(envelope.error.issues, prefix) };
    const { header, payload } = envelope.data;
    if (header.action === 'update' && payload === undefined) {
      return { ok: false, documentId: header.id, details: [{ path: join(prefix, 'payload'), message: 'an update needs a payload' }] };
    }
    operation = { documentId: header.id, operation: header.action, payload: header.action === 'update' ? payload : undefined };
  } else {
    const record = reportingEntry.safeParse(entry);
    if (!record.success) return { ok: false, documentId: idOf(entry), details: issuesToDetails(record.error.issues, prefix) };
    const { id, ...payload } = record.data;
    operation = { documentId: id, operation: 'update', payload };
  }
  if (operation.payload) {
    const payloadPrefix = join(prefix, type === 'svc' ? 'payload' : '');
    const parsed = schema.safeParse(operation.payload);
    if (!parsed.success) {
      return { ok: false, documentId: operation.documentId, details: issuesToDetails(parsed.error.issues, payloadPrefix) };
    }
    const size = new TextEncoder().encode(JSON.stringify(operation.payload)).byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      return {
        ok: false,
        documentId: operation.documentId,
        details: [{ path: payloadPrefix || '(root)', message: `document is ${size} bytes; at most ${MAX_DOCUMENT_BYTES}` }],
      };
    }
    operation.payload = withoutNulls(operation.payload);
  }
  return { ok: true, value: operation };
}

function withoutNulls(payload: DocumentPayload): DocumentPayload {
  return Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== null && v !== undefined));
}

function idOf(entry: unknown): string | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const record = entry as { id?: unknown; header?: { id?: unknown } };
  const id = record.header?.id ?? record.id;
  return typeof id === 'string' ? id : undefined;
}

function join(prefix: string, path: string): string {
  return [prefix, path].filter(Boolean).join('.');
}
