import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodType } from 'zod';
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
