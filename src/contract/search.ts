/** Search and suggest requests and answers. */
import { z } from 'zod';
import { DEFAULT_SNIPPET_WORDS } from '../search/engine/highlight';

export const MAX_ROWS = 100;
export const MAX_FACET_LIMIT = 1000;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const text = z.string().max(1000);
const tracking = { userId: text.optional(), sessionId: text.optional(), requestId: text.optional(), requestOrigin: text.optional() };

const MAX_LISTED_FIELDS = 50;
const MAX_SNIPPET_WORDS = 100;
const MAX_LISTED_FACETS = 200;
/** As many as a schema has fields. */
const MAX_RETRIEVED_FIELDS = 200;
const fieldCode = z.string().max(64);
/** A field code, or `<code>.<key>` of an attributes facet. */
const facetId = z.string().max(200);
/** `field` or `field:words` (Algolia's attributesToSnippet syntax); `*` stands for every displayed string field. */
const snippetSpec = z
  .string()
  .regex(/^[^:,]{1,64}(:\d{1,3})?$/, 'expected a field code, optionally followed by :words')
  .transform((spec) => {
    const [field, words] = spec.split(':');
    return { field, words: words === undefined ? DEFAULT_SNIPPET_WORDS : Number(words) };
  })
  .refine((spec) => spec.words >= 1 && spec.words <= MAX_SNIPPET_WORDS, `a snippet is 1 to ${MAX_SNIPPET_WORDS} words`);
const highlightTag = z.string().max(100);
const highlightTags = { highlightPreTag: highlightTag.optional(), highlightPostTag: highlightTag.optional() };
/** A comma-separated GET parameter as a list (empty = none). */
const commaList = <T extends z.ZodType<unknown, string>>(item: T, max = MAX_LISTED_FIELDS) =>
  z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).max(max));

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

/** Per facet id, its value limit instead of `facetLimit`: 0 answers none (a numeric facet's `facetStats` only). */
const facetLimitsSchema = z
  .record(facetId, integer(0, MAX_FACET_LIMIT))
  .refine((limits) => Object.keys(limits).length <= MAX_LISTED_FACETS, `at most ${MAX_LISTED_FACETS} facets`);

/**
 * Per categories facet id, the path a hierarchical menu is opened at (`a/b`, `''` its top): the facet answers its
 * top-level values and the children of each level of the path, up to its limit per level (issue 13).
 */
const facetPathsSchema = z
  .record(facetId, text)
  .refine((paths) => Object.keys(paths).length <= MAX_LISTED_FACETS, `at most ${MAX_LISTED_FACETS} facets`);

/** How much vector ranking weighs against keyword ranking: 0 keyword only, 1 vector only (issue 12). */
const semanticRatio = z.number().min(0).max(1);

export const searchBody = z.object({
  q: text.optional(),
  hybrid: z.object({ semanticRatio: semanticRatio.optional() }).strict().optional(),
  page: integer(1, 1_000_000).default(1),
  rows: integer(1, MAX_ROWS).default(10),
  sort: z.union([z.string(), z.object({ sort: z.string().optional() })]).optional(),
  filters: z.record(z.string(), filterSchema).optional(),
  facetLimit: integer(1, MAX_FACET_LIMIT).optional(),
  facetLimits: facetLimitsSchema.optional(),
  facetPaths: facetPathsSchema.optional(),
  facets: z.array(facetId).max(MAX_LISTED_FACETS).optional(),
  attributesToRetrieve: z.array(fieldCode).max(MAX_RETRIEVED_FIELDS).optional(),
  attributesToHighlight: z.array(fieldCode).max(MAX_LISTED_FIELDS).optional(),
  attributesToSnippet: z.array(snippetSpec).max(MAX_LISTED_FIELDS).optional(),
  ...highlightTags,
  ...tracking,
});

export const searchQuery = z.object({
  q: text.optional(),
  page: integer(1, 1_000_000).default(1),
  rows: integer(1, MAX_ROWS).default(10),
  sort: z.string().optional(),
  facetLimit: integer(1, MAX_FACET_LIMIT).optional(),
  /** Gathered from the `facetLimit.{id}` parameters. */
  facetLimits: facetLimitsSchema.optional(),
  /** Gathered from the `facetPath.{id}` parameters. */
  facetPaths: facetPathsSchema.optional(),
  semanticRatio: z.coerce.number().pipe(semanticRatio).optional(),
  facets: commaList(facetId, MAX_LISTED_FACETS).optional(),
  attributesToRetrieve: commaList(fieldCode, MAX_RETRIEVED_FIELDS).optional(),
  attributesToHighlight: commaList(fieldCode).optional(),
  attributesToSnippet: commaList(snippetSpec).optional(),
  ...highlightTags,
  ...tracking,
});

export const suggestInput = z.object({ q: text.optional(), rows: integer(1, MAX_ROWS).default(10), requestId: text.optional() });

const facetValue = z.object({ value: z.string(), count: z.number().int() });

export const searchResult = z.object({
  total: z.number().int(),
  time: z.number().describe('milliseconds the engine and document fetch took'),
  documents: z.array(
    z.object({
      id: z.string(),
      position: z.number().int().describe('1-based across pages'),
      document: z.record(z.string(), z.unknown()).describe('the fields with display: true (those of attributesToRetrieve when given)'),
      highlight: z
        .record(z.string(), z.union([z.string(), z.array(z.string())]))
        .optional()
        .describe('attributesToHighlight, marked'),
      snippet: z
        .record(z.string(), z.union([z.string(), z.array(z.string())]))
        .optional()
        .describe('attributesToSnippet, cut and marked'),
    }),
  ),
  facets: z.array(z.object({ id: z.string(), name: z.string(), values: z.array(facetValue) })),
  facetStats: z
    .record(z.string(), z.object({ min: z.number(), max: z.number(), avg: z.number(), sum: z.number() }))
    .describe('numeric facets of the matching documents (dates in epoch ms)'),
  paging: z.object({ page: z.number().int(), rows: z.number().int(), total: z.number().int(), totalPages: z.number().int() }),
  exhaustiveFacetsCount: z
    .literal(false)
    .optional()
    .describe(
      'false when facet counts may be low: a sharded app where a shard had more values of a facet than it returns (1.5 × facetLimit + 10); absent when every count is exact',
    ),
  semantic: z
    .object({ ratio: z.number(), fallback: z.string().optional() })
    .optional()
    .describe('hybrid searches: the semanticRatio applied; fallback says why only keyword results were answered'),
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
export type SearchBody = Omit<z.input<typeof searchBody>, 'page' | 'rows' | 'facetLimit' | 'facetLimits'> & {
  page?: number;
  rows?: number;
  facetLimit?: number;
  facetLimits?: Record<string, number>;
};
export type SearchFilter = z.input<typeof filterSchema>;
export type SearchResponse = z.output<typeof searchResponse>;
export type SuggestResponse = z.output<typeof suggestResponse>;
