import type { Outcome } from '../search/engine/types';
import { ApiError } from '../errors';

/** The value of a Durable Object answer, or its problem thrown as the one error type. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new ApiError(outcome.status, outcome.message, outcome.details);
}
