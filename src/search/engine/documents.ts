/** Adding and removing documents: every column of the state gets the document's values under one ordinal. */
import { analyzeWords, phrase } from './analysis';
import { ValueColumn } from './columns';
import { isNumeric } from './plan';
import { markAlive, type IndexState } from './state';
import type { DocumentPayload, SearchAppField } from './types';
import { attributeEntries, fieldText, numberValue, stringValues } from './values';

/** Indexes a document under a fresh ordinal; an earlier version of it must have been removed first. */
export function addDocument(state: IndexState, id: string, payload: DocumentPayload): void {
  state.version += 1;
  const ord = state.ids.length;
  state.ids.push(id);
  state.ordOf.set(id, ord);
  markAlive(state, ord);
  state.text.add(
    ord,
    state.plan.text.map(({ field, slot }) => [slot, analyzeWords(fieldText(field, payload[field.code]))]),
  );
  for (const field of state.plan.facets) {
    const value = payload[field.code];
    if (field.dataType === 'attributes') {
      for (const [key, values] of attributeEntries(value)) columnOf(state.facets, `${field.code}.${key}`).add(ord, values);
    } else {
      columnOf(state.facets, field.code).add(ord, isNumeric(field) ? numberFacetValues(field, value) : stringValues(field, value));
    }
  }
  for (const field of state.plan.valueColumns) {
    columnOf(state.values, field.code).add(ord, stringValues(field, payload[field.code]).map(phrase));
  }
  for (const field of state.plan.numbers) {
    const number = numberValue(field, payload[field.code]);
    if (!Number.isNaN(number)) state.numbers.get(field.code)?.set(ord, number);
  }
}

/** Marks a document's ordinal dead; answers whether it was indexed. */
export function removeDocument(state: IndexState, id: string): boolean {
  const ord = state.ordOf.get(id);
  if (ord === undefined) return false;
  state.version += 1;
  state.ordOf.delete(id);
  state.alive[ord] = 0;
  state.liveCount -= 1;
  state.text.remove(ord);
  for (const column of state.facets.values()) column.remove(ord);
  for (const column of state.values.values()) column.remove(ord);
  for (const column of state.numbers.values()) column.clear(ord);
  return true;
}

function columnOf(columns: Map<string, ValueColumn>, id: string): ValueColumn {
  let column = columns.get(id);
  if (!column) {
    column = new ValueColumn();
    columns.set(id, column);
  }
  return column;
}

/** Facet values of a numeric field: canonical numbers, dates as ISO 8601 (what filters compare with). */
function numberFacetValues(field: SearchAppField, value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values
    .map((v) => numberValue(field, v))
    .filter((n) => !Number.isNaN(n))
    .map((n) => (field.dataType === 'date' ? new Date(n).toISOString() : String(n)));
}
