/**
 * What is embedded for a document: the values of its `semantic: true` fields in schema order, each line
 * prefixed with the field code, cut to the model's input limit. The content hash of that text (with the
 * embedder's fingerprint) names the vector, so unchanged text is never embedded twice.
 */
import { createHash } from 'node:crypto';
import type { DocumentPayload, SearchAppField } from '../engine/types';
import { attributeEntries, categoryPaths, stringValues } from '../engine/values';

/**
 * Characters embedded per document or query: about 512 tokens of English, the input limit of the small
 * embedding models (bge-small/base, all-MiniLM); larger models simply see the first part of long documents.
 */
export const MAX_EMBEDDING_CHARS = 2000;

export function semanticFields(fields: SearchAppField[]): SearchAppField[] {
  return fields.filter((field) => field.semantic);
}

function valueText(field: SearchAppField, value: unknown): string {
  if (field.dataType === 'categories') return categoryPaths(value).join(', ');
  if (field.dataType === 'attributes') {
    return attributeEntries(value)
      .map(([key, values]) => `${key} ${values.join(', ')}`)
      .join('; ');
  }
  return stringValues(field, value).join(', ');
}

/** The text embedded for a document; empty when it has no semantic values (it then gets no vector). */
export function embeddingText(fields: SearchAppField[], payload: DocumentPayload): string {
  const lines: string[] = [];
  for (const field of semanticFields(fields)) {
    const text = valueText(field, payload[field.code]).trim();
    if (text) lines.push(`${field.code}: ${text}`);
  }
  return lines.join('\n').slice(0, MAX_EMBEDDING_CHARS);
}

/**
 * SHA-256 (first 128 bits, hex) of the embedder fingerprint and the text: the key a vector is stored under.
 * Synchronous (node:crypto), so the Durable Object can hash every document inside one re-index.
 */
export function contentHash(fingerprint: string, text: string): string {
  return createHash('sha256').update(`${fingerprint}\n${text}`).digest('hex').slice(0, 32);
}
