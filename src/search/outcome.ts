import { ApiError, type ErrorDetail } from '../errors';

/**
 * What the Durable Object answers for a call that can fail on the caller's input. Error classes do not
 * survive RPC (they arrive as plain `Error`), so the problem travels as data and the client throws it.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; status: 400 | 404 | 409; message: string; details?: ErrorDetail[] };

/** The value of an outcome, or its problem thrown as ApiError. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new ApiError(outcome.status, outcome.message, outcome.details);
}
