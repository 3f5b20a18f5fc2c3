import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodType } from 'zod';
import { ApiError } from '../errors';
import { issuesToDetails, withoutReservedKeys } from '../validation';

const TARGET_NAMES: Partial<Record<keyof ValidationTargets, string>> = {
  json: 'request body',
  query: 'query parameters',
  param: 'path parameters',
  form: 'form body',
};

/**
 * `zValidator` with the service's error mapping: a failed parse throws ApiError 400
 * listing every offending field. Malformed JSON is answered 400 by Hono's own validator.
 * JSON bodies holding a reserved key (`__proto__`, `constructor`, `prototype`) at any depth are 400,
 * except bodies whose entries are checked one by one later (`entriesCheckedLater`: bulk feeding).
 */
export function validate<T extends ZodType, Target extends keyof ValidationTargets>(
  target: Target,
  schema: T,
  { entriesCheckedLater = false } = {},
) {
  const checked = target === 'json' && !entriesCheckedLater ? withoutReservedKeys(schema) : schema;
  return zValidator(target, checked as T, (result) => {
    if (!result.success) {
      throw ApiError.badRequest(`Invalid ${TARGET_NAMES[target] ?? target}`, issuesToDetails(result.error.issues));
    }
  });
}
