import type { SearchAppField } from '../field-schema';
import type { IndexConfig } from './types';
import { NumberColumn, StringColumn, ValueColumn } from './columns';
import { parseScalar, textsOf } from './analysis';

/** How a searchable field is indexed: text terms (balanced, fuzzy, custom), phrases (exact strings) or scalar keys (exact scalars). */
export type SlotKind = 'text' | 'phrase' | 'scalar';

export interface Slot {
  index: number;
  field: SearchAppField;
  kind: SlotKind;
  /** Text slots: prefix on every query term (fuzzy) rather than only the last one. */
  fuzzy: boolean;
  weight: number;
}

export type FacetKind = 'string' | 'number' | 'date' | 'boolean' | 'categories';

export interface FacetDef {
  id: string;
  field: SearchAppField;
  kind: FacetKind;
  values: ValueColumn;
  /** number and date facets: the value as a number, for range filters. */
  numbers?: NumberColumn;
  /** attributes: the key inside the field's object. */
  key?: string;
}

export interface SortColumn {
  field: SearchAppField;
  numbers?: NumberColumn;
  strings?: StringColumn;
}

export const MAX_SLOTS = 256;

export function slotsOf(config: IndexConfig): Slot[] {
  const slots: Slot[] = [];
  for (const field of config.fields) {
    const scalar = field.dataType === 'long' || field.dataType === 'double' || field.dataType === 'boolean' || field.dataType === 'date';
    const mode = field.searchMode ?? (scalar ? 'off' : 'balanced');
    if (mode === 'off') continue;
    const kind: SlotKind = scalar ? 'scalar' : mode === 'exact' ? 'phrase' : 'text';
    // Scalars in custom mode are searched by equality, like exact: there is nothing else to configure.
    slots.push({ index: slots.length, field, kind, fuzzy: mode === 'fuzzy', weight: Math.max(field.weight ?? 1, 0) });
  }
  return slots.slice(0, MAX_SLOTS);
}

export function facetKindOf(field: SearchAppField): FacetKind {
  switch (field.dataType) {
    case 'long':
    case 'double':
      return 'number';
    case 'date':
      return 'date';
    case 'boolean':
      return 'boolean';
    case 'categories':
      return 'categories';
    default:
      return 'string';
  }
}

export function newFacet(id: string, field: SearchAppField, key?: string): FacetDef {
  const kind = key === undefined ? facetKindOf(field) : 'string';
  return { id, field, kind, key, values: new ValueColumn(id), numbers: kind === 'number' || kind === 'date' ? new NumberColumn() : undefined };
}

/** The canonical text of a scalar (facet value, exact key); undefined when the value does not fit the type. */
export function canonicalScalar(kind: FacetKind, value: unknown): string | undefined {
  if (kind === 'boolean') {
    if (value === true || value === 'true') return 'true';
    if (value === false || value === 'false') return 'false';
    return undefined;
  }
  if (kind === 'number') {
    const n = parseScalar(value, 'number');
    return Number.isNaN(n) ? undefined : String(n);
  }
  if (kind === 'date') {
    const ms = parseScalar(value, 'date');
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  return typeof value === 'string' ? value : undefined;
}

/** The facet values of one field value: categories give every level of their paths. */
export function facetValuesOf(facet: FacetDef, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (facet.kind === 'categories') {
    const out: string[] = [];
    for (const path of textsOf(value)) {
      const parts = path.split('/').filter((part) => part.length > 0);
      for (let i = 1; i <= parts.length; i++) out.push(parts.slice(0, i).join('/'));
    }
    return out;
  }
  if (facet.kind === 'string') return textsOf(value);
  const values = Array.isArray(value) ? value : [value];
  return values.map((v) => canonicalScalar(facet.kind, v)).filter((v): v is string => v !== undefined);
}

/** Sort identifiers: `<code>_asc|_desc` for sortable fields and the named sorts. */
export function sortsOf(config: IndexConfig): Map<string, { field: string; direction: 'asc' | 'desc' }> {
  const sorts = new Map<string, { field: string; direction: 'asc' | 'desc' }>();
  for (const field of config.fields) {
    if (!field.sort) continue;
    sorts.set(`${field.code}_asc`, { field: field.code, direction: 'asc' });
    sorts.set(`${field.code}_desc`, { field: field.code, direction: 'desc' });
  }
  const codes = new Set(config.fields.map((field) => field.code));
  for (const sort of config.sorts ?? []) if (codes.has(sort.field)) sorts.set(sort.id, { field: sort.field, direction: sort.direction });
  return sorts;
}
