import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { z, ZodType } from 'zod';
import { ApiError, type ErrorDetail } from './errors';

type Issue = { path: PropertyKey[]; message: string };

/** Turns zod issues into error details with dotted paths (`fields.2.dataType`). */
export function issuesToDetails(issues: readonly Issue[], prefix = ''): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return { path: [prefix, path].filter(Boolean).join('.') || '(root)', message: issue.message };
  });
}

const TARGET_NAMES: Partial<Record<keyof ValidationTargets, string>> = {
  json: 'request body',
  query: 'query parameters',
  param: 'path parameters',
  form: 'form body',
};

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
 * `zValidator` with the service's error mapping: a failed parse throws ApiError 400
 * listing every offending field. Malformed JSON is answered 400 by Hono's own validator.
 */
export function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      throw ApiError.badRequest(`Invalid ${TARGET_NAMES[target] ?? target}`, issuesToDetails(result.error.issues));
    }
  });
}
