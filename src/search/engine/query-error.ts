import type { QueryProblem } from './types';

/** An invalid search request (unknown facet or sort, a value not fitting its type); `details` name each problem. */
export class QueryError extends Error {
  constructor(readonly details: QueryProblem[]) {
    super(details.map((d) => `${d.path}: ${d.message}`).join('; '));
    this.name = 'QueryError';
  }
}
