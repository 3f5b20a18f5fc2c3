import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { createDb } from '../db/client';
import { cachedSearchApp } from '../db/queries';
import type { SearchResult } from '../search/engine/types';
import { searchAnswer } from '../search/hybrid-search';
import type { ToolDefinition } from './providers';

export const SEARCH_TOOL: ToolDefinition = {
  name: 'search',
  description: 'Search the documents of this service. Answers the total and the best matching documents with their ids and fields.',
  parameters: {
    type: 'object',
    properties: {
      q: { type: 'string', description: 'Keywords to search for' },
      rows: { type: 'integer', minimum: 1, maximum: 10, description: 'How many documents to answer (default 5)' },
    },
    required: ['q'],
  },
};

/** How the model is told to reference a document (syntax recorded in docs/decisions.md). */
export const ACTION_INSTRUCTIONS = [
  'You can search the documents of this service with the `search` tool; base your answers on what it finds.',
  'To let the user open a document you mention, write right after it the action token',
  '[[SVCACTION]]{"action":"open","id":"<document id>"} on one line, with the id exactly as the search answered it.',
].join(' ');

function parseArguments(json: string): { q: string; rows: number } | undefined {
  try {
    const args = JSON.parse(json) as { q?: unknown; rows?: unknown };
    if (typeof args.q !== 'string') return undefined;
    const rows = typeof args.rows === 'number' && Number.isInteger(args.rows) ? Math.min(Math.max(args.rows, 1), 10) : 5;
    return { q: args.q, rows };
  } catch {
    return undefined;
  }
}

/** Runs a `search` tool call and answers the tool message content (JSON); failures are told to the model, not thrown. */
export async function runSearchTool(env: Env, tenantCode: string, searchApp: string, argumentsJson: string): Promise<string> {
  const args = parseArguments(argumentsJson);
  if (!args) return JSON.stringify({ error: 'arguments must be {"q": string, "rows"?: integer}' });
  try {
    // The app's default semanticRatio: hybrid when it has an embedder and semantic fields.
    const app = await cachedSearchApp(createDb(env.DB), tenantCode, searchApp);
    const found = await searchAnswer(env, app, { q: args.q, page: 1, rows: args.rows }).answer(false);
    const { total, documents } = JSON.parse(found.json) as SearchResult;
    return JSON.stringify({ total, documents: documents.map(({ id, document }) => ({ id, fields: document })) });
  } catch (err) {
    if (err instanceof ApiError) return JSON.stringify({ error: err.message });
    logError('agent search tool failed', err, { tenantCode, searchApp });
    return JSON.stringify({ error: 'search is unavailable' });
  }
}
