import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** One invalid input field: a dotted path into the request and what is wrong with it. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The one JSON body of every non-2xx answer. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: ErrorDetail[];
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The one error type of the service: thrown anywhere, answered as an ErrorBody by `onError`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(message: string, details?: ErrorDetail[]) {
    return new ApiError(400, message, details);
  }
  static unauthorized(message = 'Missing or invalid token') {
    return new ApiError(401, message);
  }
  static forbidden(message = 'Token lacks the required permission') {
    return new ApiError(403, message);
  }
  static notFound(message: string) {
    return new ApiError(404, message);
  }
  static conflict(message: string) {
    return new ApiError(409, message);
  }
}

export function errorBody(status: number, message: string, details?: ErrorDetail[]): ErrorBody {
  const body: ErrorBody = { statusCode: status, error: REASONS[status] ?? 'Error', message };
  if (details?.length) body.details = details;
  return body;
}

export function errorResponse(status: ContentfulStatusCode, message: string, details?: ErrorDetail[]): Response {
  return Response.json(errorBody(status, message, details), { status });
}

/** Maps anything thrown by a handler to the one error body; unexpected errors are logged, never echoed. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) return errorResponse(err.status, err.message, err.details);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return errorResponse(status, err.message || REASONS[status] || 'Error');
  }
  logError('unhandled error', err, { method: c.req.method, path: c.req.path });
  return errorResponse(500, 'Internal server error');
}

/** One structured JSON log line per failure. */
export function logError(msg: string, err: unknown, fields: Record<string, unknown> = {}): void {
  const error = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { message: String(err) };
  console.error(JSON.stringify({ level: 'error', msg, ...fields, error }));
}
