/** Zod helpers shared by every capability: parse or throw the one error, with details naming each field. */
import { z, type ZodType } from 'zod';
import { ApiError, describeDetails, logError, type ErrorDetail } from './errors';

type Issue = { path: PropertyKey[]; message: string };

/** Tenant, search app, agent and email configuration codes. */
export const codeParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a code is 1 to 64 letters, digits, _ . - and starts with a letter or digit');

/** Turns zod issues into error details with dotted paths (`fields.2.dataType`). */
export function issuesToDetails(issues: readonly Issue[], prefix = ''): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return { path: [prefix, path].filter(Boolean).join('.') || '(root)', message: issue.message };
  });
}

/** `schema`'s parse of `input`, or ApiError 400 listing every offending field of the `where` part of the request. */
export function parseOrThrow<T extends ZodType>(schema: T, input: unknown, where = 'request body'): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw ApiError.badRequest(`Invalid ${where}`, issuesToDetails(result.error.issues));
  return result.data;
}

/**
 * A JSON body read whatever its Content-Type, then validated: for bodies checked only after another step
 * (authentication first), or sent as text/plain by browsers to avoid a CORS preflight. Malformed JSON is 400.
 */
export async function parseJsonBody<T extends ZodType>(read: () => Promise<unknown>, schema: T): Promise<z.output<T>> {
  let body: unknown;
  try {
    body = await read();
  } catch {
    throw ApiError.badRequest('Malformed JSON in request body');
  }
  return parseOrThrow(schema, body);
}

/**
 * The body of a queue message parsed by its queue's schema. A body that does not parse can never be processed,
 * so it is logged and acknowledged (retrying cannot fix it) and undefined is answered.
 */
export function messageBody<T extends ZodType>(schema: T, message: Message<unknown>): z.output<T> | undefined {
  const result = schema.safeParse(message.body);
  if (result.success) return result.data;
  logError('unreadable queue message', new Error(describeDetails(issuesToDetails(result.error.issues))), { messageId: message.id });
  message.ack();
  return undefined;
}
