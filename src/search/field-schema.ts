import { z } from 'zod';
import { notReserved } from '../validation';

export const FIELD_DATA_TYPES = ['string', 'long', 'double', 'boolean', 'date', 'categories', 'attributes', 'raw'] as const;
export const SEARCH_MODES = ['balanced', 'fuzzy', 'exact', 'custom', 'off'] as const;

export type FieldDataType = (typeof FIELD_DATA_TYPES)[number];
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Types whose values are not text: only `exact`, `custom` and `off` search them. */
export const SCALAR_TYPES: ReadonlySet<FieldDataType> = new Set(['long', 'double', 'boolean', 'date']);
const SCALAR_MODES: ReadonlySet<SearchMode> = new Set(['exact', 'custom', 'off']);

const flag = z.boolean().default(false);

const fieldInput = z
  .object({
    code: notReserved(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a field code is 1 to 64 letters, digits, _ or - and starts with a letter or _'),
    ),
    dataType: z.enum(FIELD_DATA_TYPES),
    searchMode: z.enum(SEARCH_MODES).optional(),
    weight: z.number().int().min(0).max(1000).default(1),
    display: flag,
    facet: flag,
    sort: flag,
    suggest: flag,
    navigation: flag,
    semantic: flag,
  })
  .strict()
  .superRefine((field, ctx) => {
    if (field.searchMode && SCALAR_TYPES.has(field.dataType) && !SCALAR_MODES.has(field.searchMode)) {
      ctx.addIssue({
        code: 'custom',
        path: ['searchMode'],
        message: `dataType '${field.dataType}' supports only the search modes exact, custom, off`,
      });
    }
  })
  // An omitted searchMode is `balanced`, except for scalar types where balanced is not allowed: there it is `off`.
  .transform((field) => ({
    ...field,
    searchMode: field.searchMode ?? (SCALAR_TYPES.has(field.dataType) ? 'off' : 'balanced'),
  }));

export type SearchAppField = z.output<typeof fieldInput>;

export const searchAppSchemaInput = z
  .object({
    fields: z.array(fieldInput).max(200),
  })
  .strict()
  .superRefine(
    (schema, ctx) => {
      // Runs on the raw input too (see `when`), so duplicates are reported beside other invalid fields.
      const fields: unknown = (schema as { fields?: unknown } | null)?.fields;
      if (!Array.isArray(fields)) return;
      const seen = new Set<unknown>();
      fields.forEach((field: { code?: unknown } | null, i) => {
        const code = field?.code;
        if (typeof code !== 'string') return;
        if (seen.has(code)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'code'], message: `duplicate field code '${code}'` });
        seen.add(code);
      });
    },
    { when: () => true },
  );

export type SearchAppSchema = z.output<typeof searchAppSchemaInput>;
