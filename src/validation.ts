/** Zod helpers shared by every capability: parse or throw the one error, with details naming each field. */
import { z, type ZodType } from 'zod';
import { ApiError, describeDetails, logError, type ErrorDetail } from './errors';

type Issue = { path: PropertyKey[]; message: string };

/** How a received value is named in messages: `null`, `array`, or its typeof. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * The expected types of a union whose every option failed on the value's type (`string or array`), or undefined when
 * an option got further (then that option's own issue says more than a list of types).
 */
function unionExpectation(errors: ReadonlyArray<ReadonlyArray<{ code: string; path: PropertyKey[]; expected?: unknown }>>) {
  const expected: string[] = [];
  for (const issues of errors) {
    const typeIssue = issues.length === 1 && issues[0].code === 'invalid_type' && issues[0].path.length === 0 ? issues[0] : undefined;
    if (!typeIssue) return undefined;
    expected.push(String(typeIssue.expected));
  }
  return [...new Set(expected)].join(' or ');
}

// Messages that say what to send: a type error names the expected type and what came, a union lists its types.
z.config({
  customError: (issue) => {
    if (issue.code === 'invalid_type') return `expected ${issue.expected}, received ${typeName(issue.input)}`;
    if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length) {
      const expected = unionExpectation(issue.errors);
      if (expected) return `expected ${expected}, received ${typeName(issue.input)}`;
    }
    return undefined;
  },
});

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
  return parseOrThrow(withoutReservedKeys(schema), body);
}

/**
 * Object keys that reach JavaScript's prototype machinery. Wherever user input names a key (JSON bodies,
 * filter ids, payload and attribute keys, variable names, field codes) these are refused with 400, so no
 * map keyed by user input ever holds one (zod would otherwise drop `__proto__` silently).
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const reservedMessage = (key: string) => `'${key}' is a reserved name`;

/** Paths of every reserved key in a parsed JSON value, at any depth (each path ends with the key). */
export function reservedKeyPaths(value: unknown, path: PropertyKey[] = [], found: PropertyKey[][] = []): PropertyKey[][] {
  if (Array.isArray(value)) value.forEach((item, i) => reservedKeyPaths(item, [...path, i], found));
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (RESERVED_KEYS.has(key)) found.push([...path, key]);
      else reservedKeyPaths((value as Record<string, unknown>)[key], [...path, key], found);
    }
  }
  return found;
}

/** The reserved keys of a parsed JSON value as error details under `prefix`. */
export function reservedKeyDetails(value: unknown, prefix = ''): ErrorDetail[] {
  return issuesToDetails(
    reservedKeyPaths(value).map((path) => ({ path, message: reservedMessage(String(path.at(-1))) })),
    prefix,
  );
}

/** The schemas `withoutReservedKeys` built, per schema: building one costs more than a search body's parse (~13 µs). */
const checkedSchemas = new WeakMap<ZodType, ZodType>();

/** `schema` preceded by the reserved-key check: input with such a key fails with one issue per key. */
export function withoutReservedKeys<T extends ZodType>(schema: T) {
  const known = checkedSchemas.get(schema) as ReturnType<typeof checkedBy<T>> | undefined;
  if (known) return known;
  const checked = checkedBy(schema);
  checkedSchemas.set(schema, checked);
  return checked;
}

function checkedBy<T extends ZodType>(schema: T) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      for (const path of reservedKeyPaths(value)) ctx.addIssue({ code: 'custom', path, message: reservedMessage(String(path.at(-1))) });
    })
    .pipe(schema);
}

/** A user-chosen name (field code, variable name) that is not one of the reserved keys. */
export function notReserved<T extends z.ZodString>(name: T) {
  return name.refine((value) => !RESERVED_KEYS.has(value), { error: (issue) => reservedMessage(String(issue.input)) });
}

/** ApiError 400 when `name` (a query parameter naming a key, such as `f.__proto__`) holds a reserved key. */
export function assertNotReserved(key: string, path: string, where = 'query parameters'): void {
  if (RESERVED_KEYS.has(key)) throw ApiError.badRequest(`Invalid ${where}`, [{ path, message: reservedMessage(key) }]);
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
