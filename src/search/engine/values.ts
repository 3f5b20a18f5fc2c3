/** Reading typed values out of a document payload, the one way indexing and display both use. */
import { QueryError } from './query-error';
import type { DocumentPayload, QueryProblem, SearchAppField } from './types';

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Category paths of a `categories` value: `"a/b"` strings or level arrays `["a", "b"]`. */
export function categoryPaths(value: unknown): string[] {
  return asList(value)
    .map((entry) => (Array.isArray(entry) ? entry.map(String).join('/') : String(entry)))
    .map((path) =>
      path
        .split('/')
        .map((s) => s.trim())
        .filter(Boolean)
        .join('/'),
    )
    .filter(Boolean);
}

/** Every level of the paths: `interface/x11` gives `interface` and `interface/x11`. */
export function categoryLevels(paths: string[]): string[] {
  const levels = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) levels.add(parts.slice(0, i).join('/'));
  }
  return [...levels];
}

/** Key -> string values of an `attributes` value. */
export function attributeEntries(value: unknown): Array<[string, string[]]> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, asList(v).map(String)]);
}

/** The value of a numeric field as a number: long/double as is, dates as epoch milliseconds. */
export function numberValue(field: SearchAppField, value: unknown): number {
  if (value === undefined || value === null) return NaN;
  if (field.dataType === 'date') return typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : NaN;
  return typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
}

/** String forms of a non-numeric field's value, as facet values. */
export function stringValues(field: SearchAppField, value: unknown): string[] {
  if (field.dataType === 'categories') return categoryLevels(categoryPaths(value));
  if (field.dataType === 'attributes') return attributeEntries(value).flatMap(([, values]) => values);
  return asList(value)
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(String);
}

/** The text a tokenized field contributes to the full-text index. */
export function fieldText(field: SearchAppField, value: unknown): string {
  if (field.dataType === 'categories') return categoryPaths(value).join(' ');
  return stringValues(field, value).join(' ');
}

/** `attributesToRetrieve` entry standing for every displayed field. */
const ALL_FIELDS = '*';

/**
 * The displayed fields a search answers of each document (Algolia's `attributesToRetrieve`): all of them when
 * `codes` is absent or holds `*`, else those named, in schema order. Throws `QueryError` for a code that is not a
 * displayed field.
 */
export function retrievedFields(fields: SearchAppField[], codes: string[] | undefined): SearchAppField[] {
  const displayed = fields.filter((field) => field.display);
  if (codes === undefined || codes.includes(ALL_FIELDS)) return displayed;
  const problems: QueryProblem[] = [];
  codes.forEach((code, i) => {
    if (displayed.some((field) => field.code === code)) return;
    const known = fields.some((field) => field.code === code);
    problems.push({ path: `attributesToRetrieve.${i}`, message: known ? `'${code}' is not a displayed field` : `unknown field '${code}'` });
  });
  if (problems.length) throw new QueryError(problems);
  const wanted = new Set(codes);
  return displayed.filter((field) => wanted.has(field.code));
}

/** The payload projected onto the fields with `display: true` (of `fields`). */
export function displayFields(fields: SearchAppField[], payload: DocumentPayload): Record<string, unknown> {
  // Assigned key by key (a third of `Object.fromEntries`' cost, per hit of every answer): a field code is never
  // `__proto__` (the schema reserves it), so every key is an own one.
  const shown: Record<string, unknown> = {};
  for (const field of fields) {
    const value = payload[field.code];
    if (field.display && value !== undefined) shown[field.code] = value;
  }
  return shown;
}
