/** Search and suggest requests and answers. */
import { z } from 'zod';

/** Most rows per page of search and suggest. */
export const MAX_ROWS = 100;
/** Most values per facet a request may ask for. */
export const MAX_FACET_LIMIT = 1000;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const text = z.string().max(1000);
const tracking = { userId: text.optional(), sessionId: text.optional(), requestId: text.optional(), requestOrigin: text.optional() };

export const filterSchema = z
  .object({
    filterType: z.enum(['term', 'range', 'slider', 'tree']),
    filterDataType: z.enum(['string', 'number', 'date']).optional(),
    filterOperator: z.enum(['or', 'and', 'not']).optional(),
    values: z
      .array(z.union([z.string(), z.number(), z.boolean()]).transform(String))
      .max(1000)
      .optional(),
    minValue: z.union([z.number(), z.string()]).optional(),
    maxValue: z.union([z.number(), z.string()]).optional(),
  })
  .superRefine((filter, ctx) => {
    const ranged = filter.filterType === 'range' || filter.filterType === 'slider';
    if (!ranged && !filter.values?.length)
      ctx.addIssue({ code: 'custom', path: ['values'], message: `a ${filter.filterType} filter needs values` });
  });

/** POST search body. */
export const searchBody = z.object({
  q: text.optional(),
  page: integer(1, 1_000_000).default(1),
  rows: integer(1, MAX_ROWS).default(10),
  sort: z.union([z.string(), z.object({ sort: z.string().optional() })]).optional(),
  filters: z.record(z.string(), filterSchema).optional(),
  facetLimit: integer(1, MAX_FACET_LIMIT).optional(),
  ...tracking,
});

/** GET search query parameters besides the `f.{facetId}` filters. */
export const searchQuery = z.object({
  q: text.optional(),
  page: integer(1, 1_000_000).default(1),
  rows: integer(1, MAX_ROWS).default(10),
  sort: z.string().optional(),
  facetLimit: integer(1, MAX_FACET_LIMIT).optional(),
  ...tracking,
});

/** Suggest query parameters (GET) or body (POST). */
export const suggestInput = z.object({ q: text.optional(), rows: integer(1, MAX_ROWS).default(10), requestId: text.optional() });

const facetValue = z.object({ value: z.string(), count: z.number().int() });

export const searchResult = z.object({
  total: z.number().int(),
  time: z.number().describe('milliseconds the engine and document fetch took'),
  documents: z.array(
    z.object({
      id: z.string(),
      position: z.number().int().describe('1-based across pages'),
      document: z.record(z.string(), z.unknown()).describe('the fields with display: true'),
    }),
  ),
  facets: z.array(z.object({ id: z.string(), name: z.string(), values: z.array(facetValue) })),
  paging: z.object({ page: z.number().int(), rows: z.number().int(), total: z.number().int(), totalPages: z.number().int() }),
});

export const searchResponse = z.object({
  statusCode: z.literal(200),
  requestId: z.string(),
  time: z.number().describe('milliseconds the worker spent'),
  result: searchResult,
});

export const suggestResponse = z.object({
  statusCode: z.literal(200),
  requestId: z.string(),
  time: z.number(),
  suggestions: z.array(facetValue),
});

/** A POST search as a caller writes it (the numbers the service also accepts as strings typed as numbers). */
export type SearchBody = Omit<z.input<typeof searchBody>, 'page' | 'rows' | 'facetLimit'> & {
  page?: number;
  rows?: number;
  facetLimit?: number;
};
export type SearchFilter = z.input<typeof filterSchema>;
export type SearchResponse = z.output<typeof searchResponse>;
export type SuggestResponse = z.output<typeof suggestResponse>;
