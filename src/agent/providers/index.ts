import { openAiProvider } from './openai';
import type { ProviderModule } from './types';
import { workersAiProvider } from './workers-ai';

export { ProviderError, type ChatMessage, type ChatProvider, type ModelAttachment, type ToolDefinition } from './types';

/** Providers by model id prefix (`openai:gpt-4o-mini`). */
const providers: Record<string, ProviderModule> = {
  openai: openAiProvider,
  'workers-ai': workersAiProvider,
};

export const PROVIDER_PREFIXES = Object.keys(providers);

/** Splits `<prefix>:<model>`; undefined when the prefix names no provider. */
export function resolveModel(modelId: string): { provider: ProviderModule; model: string } | undefined {
  const colon = modelId.indexOf(':');
  if (colon <= 0) return undefined;
  const provider = providers[modelId.slice(0, colon)];
  const model = modelId.slice(colon + 1);
  return provider && model ? { provider, model } : undefined;
}
