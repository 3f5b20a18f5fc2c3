/**
 * The GET search's filter syntax, shared by the route that reads it and the typed client that writes it (free of
 * zod and of the engine, since the client ships to browsers): `f.{id}=value` repeatable (a term filter, operator
 * `or`), `f.{id}=min..max` a range with either side empty; `facetLimit.{id}=N` one facet's value limit;
 * `facetPath.{id}=a/b` the path a categories facet's menu is opened at.
 */

/** Query parameters naming a filter start with this; the rest is the facet id. */
export const FILTER_PREFIX = 'f.';

/** `facetLimit.{id}=N`: the value limit of one facet (POST `facetLimits`). */
export const FACET_LIMIT_PREFIX = 'facetLimit.';

/** `facetPath.{id}=a/b`: the path a categories facet's hierarchical menu is opened at (POST `facetPaths`). */
export const FACET_PATH_PREFIX = 'facetPath.';

/** `min..max` (the first `..` separates): a range filter. */
export const RANGE = /^(.*?)\.\.(.*)$/;

/** A bound written as a number (as `String(number)` writes one) is that number: epoch ms for a date, as `facetStats` answers. */
const NUMBER_BOUND = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** A written range bound as the filter takes it: empty is open, a number is a number, anything else text (an ISO date). */
export function rangeBound(written: string): number | string | undefined {
  if (written === '') return undefined;
  return NUMBER_BOUND.test(written) ? Number(written) : written;
}
