/**
 * The embedder of a search app (admin API `embedder`): which model turns the text of `semantic: true`
 * fields, and queries, into vectors. Stored in D1 with the search app; the API key is a secret
 * (answered as `***`, kept when a later PUT omits it).
 */
import { z } from 'zod';
import type { SearchAppField } from '../engine/types';

/** A search app without its own `defaultSemanticRatio` weighs vector and keyword ranking equally. */
export const DEFAULT_SEMANTIC_RATIO = 0.5;

const model = z.string().min(1).max(200);

/** Body of `embedder` in `PUT /api/v1/admin/searchapps/{tenant}/{code}`; `null` (handled by the caller) removes it. */
export const embedderInput = z.discriminatedUnion('provider', [
  z.object({ provider: z.literal('workers-ai'), model }).strict(),
  z
    .object({
      provider: z.literal('openai'),
      model,
      baseUrl: z.url({ protocol: /^https?$/ }).optional(),
      /** Omitted: the stored key is kept; null: cleared. */
      apiKey: z.string().min(1).max(1000).nullable().optional(),
      dimensions: z.number().int().min(1).max(4096).optional(),
    })
    .strict(),
]);

export type EmbedderInput = z.output<typeof embedderInput>;

export type StoredEmbedder =
  { provider: 'workers-ai'; model: string } | { provider: 'openai'; model: string; baseUrl?: string; apiKey?: string; dimensions?: number };

/** The embedder to store after a PUT: `undefined` input keeps the stored one, `null` removes it. */
export function nextEmbedder(input: EmbedderInput | null | undefined, stored: StoredEmbedder | null): StoredEmbedder | null {
  if (input === undefined) return stored;
  if (input === null) return null;
  if (input.provider === 'workers-ai') return { provider: 'workers-ai', model: input.model };
  const { apiKey, ...rest } = input;
  const keptKey = apiKey === undefined && stored?.provider === 'openai' ? stored.apiKey : (apiKey ?? undefined);
  return keptKey ? { ...rest, apiKey: keptKey } : rest;
}

/** An embedder as the admin API answers it: the API key shown as `***`. */
export function embedderView(stored: StoredEmbedder | null) {
  if (!stored || stored.provider === 'workers-ai') return stored;
  return { ...stored, apiKey: stored.apiKey ? '***' : null };
}

/**
 * What identifies the vector space an embedder produces (provider, endpoint, model, dimensions; not the key):
 * vectors of two embedders with different fingerprints are never compared.
 */
export function embedderFingerprint(stored: StoredEmbedder): string {
  return stored.provider === 'workers-ai'
    ? `workers-ai|${stored.model}`
    : `openai|${stored.baseUrl ?? ''}|${stored.model}|${stored.dimensions ?? ''}`;
}

/** A search app's embedder in use: it has one and at least one `semantic: true` field. */
export interface ActiveEmbedder {
  embedder: StoredEmbedder;
  fingerprint: string;
}

export function activeEmbedder(app: { embedder: StoredEmbedder | null; fields: SearchAppField[] }): ActiveEmbedder | undefined {
  if (!app.embedder || !app.fields.some((field) => field.semantic)) return undefined;
  return { embedder: app.embedder, fingerprint: embedderFingerprint(app.embedder) };
}
