/** The one error type of the service and its JSON body: framework-free, thrown by every capability. */

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

const REASONS = {
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
} as const;

/** The statuses the service answers errors with. */
export type ErrorStatus = keyof typeof REASONS;

/** The one error type of the service: thrown anywhere, answered as an ErrorBody by the HTTP layer. */
export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
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
  /** 429, answered with `Retry-After: seconds`. */
  static tooManyRequests(retryAfterSeconds: number) {
    const error = new ApiError(429, `Too many requests; retry after ${retryAfterSeconds} s`);
    error.retryAfterSeconds = retryAfterSeconds;
    return error;
  }

  /** Set on 429 answers: when the caller may try again. */
  retryAfterSeconds?: number;
}

/** The ErrorBody of `status`: its reason phrase, the message, and details when there are any. */
export function errorBody(status: number, message: string, details?: ErrorDetail[]): ErrorBody {
  const body: ErrorBody = { statusCode: status, error: REASONS[status as ErrorStatus] ?? 'Error', message };
  if (details?.length) body.details = details;
  return body;
}

/** Details as one line (`path: message; …`), for the `error` of a queue entry or bulk result and for logs. */
export function describeDetails(details: ErrorDetail[]): string {
  return details.map((d) => `${d.path}: ${d.message}`).join('; ');
}

/** One structured JSON log line per failure. */
export function logError(msg: string, err: unknown, fields: Record<string, unknown> = {}): void {
  const error = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { message: String(err) };
  console.error(JSON.stringify({ level: 'error', msg, ...fields, error }));
}
