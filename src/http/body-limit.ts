import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors';

/** Request body limits in bytes (README, Limits): counted on the stream, so a body without Content-Length is held to them too. */
export const BODY_LIMITS = {
  /** Every body not named below (single documents, schemas, configurations, search, email send). */
  default: 1 << 20,
  bulk: 32 << 20,
  /** Chat with base64 attachments. */
  chat: 32 << 20,
};

/** Path prefixes with their own limit; `null` = the route streams its body and bounds each entry itself (upload). */
const BY_PREFIX: Array<[prefix: string, limit: number | null]> = [
  ['/api/v1/data/upload/', null],
  ['/api/v1/data/bulk/', BODY_LIMITS.bulk],
  ['/api/v1/agent/', BODY_LIMITS.chat],
];

const limiters = new Map<number, MiddlewareHandler>();
function limiter(maxSize: number): MiddlewareHandler {
  let handler = limiters.get(maxSize);
  if (!handler) {
    handler = bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(413, `Request body exceeds ${maxSize} bytes`);
      },
    });
    limiters.set(maxSize, handler);
  }
  return handler;
}

/** Holds every request body to the limit of its route before any handler reads it. */
export const limitBodies: MiddlewareHandler = (c, next) => {
  const route = BY_PREFIX.find(([prefix]) => c.req.path.startsWith(prefix));
  const limit = route ? route[1] : BODY_LIMITS.default;
  return limit === null ? next() : limiter(limit)(c, next);
};
