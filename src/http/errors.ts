import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, errorBody, logError, type ErrorDetail } from '../errors';

export function errorResponse(status: ContentfulStatusCode, message: string, details?: ErrorDetail[]): Response {
  return Response.json(errorBody(status, message, details), { status });
}

/** Maps anything thrown by a handler to the one error body; unexpected errors are logged, never echoed. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    const response = errorResponse(err.status, err.message, err.details);
    if (err.retryAfterSeconds !== undefined) response.headers.set('Retry-After', String(err.retryAfterSeconds));
    return response;
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return errorResponse(status, err.message || errorBody(status, '').error);
  }
  logError('unhandled error', err, { method: c.req.method, path: c.req.path });
  return errorResponse(500, 'Internal server error');
}
